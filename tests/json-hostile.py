#!/usr/bin/env python3
"""Every JSON input is refused, by what is wrong and where, when cJSON
would read it as something else (issue 20, items 5, 8 and 12).

cJSON cuts a string at \\u0000 (so "Europe/Berlin\\u0000x" would read as
Europe/Berlin, and an expectation's process as a shorter name), takes a raw
NUL byte for whitespace, keeps overlong UTF-8 and half surrogate pairs,
and gives up past 1000 nested objects and arrays with no word of why. Each
JSON input goes through one reader (json_read()), which refuses them all:
an expectation file (`check`), the app's exit-info JSON, the seed script's
events JSON, a ring's JSON lines, and a pull's manifest. For each input and
each of a \\u0000 escape, a raw NUL byte, an overlong UTF-8 sequence, a
lone high surrogate and 100,000 nested arrays, put into a member of one of
its objects: exit 4, and a message naming the file, the line, the member
and what is wrong (the nesting limit, 1000, by number). The same files
without the change are read (exit 0 or 14, never 4).

usage: json-hostile.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import tempfile

from helpers import check, finish, lastwords, setup

EXPECT = {"runs": [{"process": "com.example.demo:inference", "pid": 25711,
                    "classification": "low_memory", "evidence_level": "confirmed"}]}

# (name, the member put before the key, what the message says, whether the
# member "x" is named)
HOSTILE = [
    ("\\u0000", b'"x": "a\\u0000b", ', "a \\u0000 escape (a string cannot hold NUL)", True),
    ("a NUL byte", b"\0", "found byte 0x00", False),
    ("overlong UTF-8", b'"x": "\xc0\xaf", ', "an overlong UTF-8 sequence", True),
    ("a lone surrogate", b'"x": "\\ud800", ',
     "a \\u escape of a high surrogate with no low one after it", True),
    ("100000 deep", b'"x": ' + b"[" * 100000 + b"]" * 100000 + b", ",
     "objects and arrays nested deeper than the limit, 1000", True),
]


def inputs(tmp):
    """(name, path to write, its bytes, the key to put the change before,
    which occurrence of it, the lastwords arguments)."""
    with open("fixtures/evidence/exit-info/export-array.json", "rb") as f:
        aei = f.read()
    with open("fixtures/scenarios/seed-ring-less/bundle/events.json", "rb") as f:
        seed = f.read()
    with open("fixtures/rings-json/killed-inference.jsonl", "rb") as f:
        ring = f.read()
    bundle = os.path.join(tmp, "bundle")
    shutil.copytree("fixtures/scenarios/tz-dst-manifest/bundle", bundle)
    with open(os.path.join(bundle, "manifest.json"), "rb") as f:
        manifest = f.read()
    exp = os.path.join(tmp, "expect.json")
    return [
        ("expectation", exp, json.dumps(EXPECT, indent=2).encode(), b'"process"', 0,
         ["check", "--tz", "+01:00", exp, "fixtures/demo"]),
        ("exit-info JSON", os.path.join(tmp, "exit-info.json"), aei, b'"processName"', 1,
         ["report", os.path.join(tmp, "exit-info.json")]),
        ("seed events", os.path.join(tmp, "events.json"), seed, b'"stage"', 1,
         ["report", os.path.join(tmp, "events.json")]),
        ("ring JSON", os.path.join(tmp, "ring.jsonl"), ring, b'"process"', 0,
         ["report", os.path.join(tmp, "ring.jsonl")]),
        ("ring JSON record", os.path.join(tmp, "ring.jsonl"), ring, b'"ticket"', 2,
         ["report", os.path.join(tmp, "ring.jsonl")]),
        ("manifest", os.path.join(bundle, "manifest.json"), manifest, b'"timezone"', 0,
         ["report", bundle]),
    ]


def main():
    lw, _ = setup(__doc__)
    n = 0
    with tempfile.TemporaryDirectory(prefix="lw-json-hostile-") as tmp:
        for name, path, text, key, nth, args in inputs(tmp):
            with open(path, "wb") as f:
                f.write(text)
            p = lastwords(lw, args)
            check(p.returncode in (0, 14), "%s as it is: exit %d: %s" % (name, p.returncode, p.stderr))
            at = -1
            for _ in range(nth + 1):
                at = text.index(key, at + 1)
            line = text[:at].count(b"\n") + 1
            for what, put, says, member in HOSTILE:
                with open(path, "wb") as f:
                    f.write(text[:at] + put + text[at:])
                p = lastwords(lw, args)
                want = "lastwords: '%s': line %d: " % (path, line)
                check(p.returncode == 4 and want in p.stderr and says in p.stderr and
                      (not member or 'in member "x"' in p.stderr),
                      "%s with %s: exit %d, %r; expected 4 and %r ... %r"
                      % (name, what, p.returncode, p.stderr[:300], want, says))
                if args[0] == "check":
                    check(not p.stdout, "%s with %s: check wrote %r" % (name, what, p.stdout[:80]))
                n += 1
            with open(path, "wb") as f:
                f.write(text)
        # the expectation's process cut at \u0000 matched the run as if cut
        exp = dict(EXPECT, runs=[dict(EXPECT["runs"][0],
                                      process="com.example.demo:inference\u0000junk")])
        path = os.path.join(tmp, "cut.json")
        with open(path, "w") as f:
            json.dump(exp, f)
        p = lastwords(lw, ["check", "--tz", "+01:00", path, "fixtures/demo"])
        check(p.returncode == 4 and 'line 1: ' in p.stderr and 'in member "process"' in p.stderr and
              "\\u0000 escape" in p.stderr,
              "a process with \\u0000: exit %d, %r" % (p.returncode, p.stderr))
        n += 1
    return finish("json-hostile: %d JSON inputs refused by what is wrong, with line and member" % n)


if __name__ == "__main__":
    raise SystemExit(main())
