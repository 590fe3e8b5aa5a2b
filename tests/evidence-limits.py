#!/usr/bin/env python3
"""What is too large is cut or refused to a stated limit (lastwords(1),
LIMITS), and said:

  - a line longer than 64 KiB is read as its first 64 KiB (an evidence
    line's fields come from them), the rest of it skipped, and the lines
    after it are read as usual; inspect counts the cut lines and names the
    first (in text, and cut_lines and first_cut_line in JSON);
  - of a tombstone's crashing thread the first 256 frames are kept, and
    the others counted (cut_frames);
  - a JSON file larger than 16 MiB is refused with a reason that names the
    limit;
  - the report names what was cut of each input: in text under "inputs cut
    to a limit", as the input's "cut" in JSON (valid against the schema)
    and in HTML.

Before, every line and frame was kept whole, said nothing, and JSON of any
size was parsed (taking about ten times its size in memory).

usage: evidence-limits.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup

LINE_MAX = 64 << 10
FRAMES_MAX = 256
JSON_MAX = 16 << 20

PREFIX = b"06-10 14:00:06.500   612   612 I lowmemorykiller: "
KILL = b"Kill 'com.example.app' (%d), uid 10001, oom_score_adj 900 to free 1000kB rss, 0kB swap"


def write_logcat(path):
    """Lines 2 and 4 are too long; line 4's kill is read from its first
    64 KiB, its reason cut there; line 3 and 5 are kills read as usual."""
    long_kill = PREFIX + (KILL % 4343) + b"; reason: " + b"z" * (100 << 10)
    with open(path, "wb") as f:
        f.write(b"06-10 14:00:05.000  1000  1000 I ExampleTag: before\n")
        f.write(b"06-10 14:00:05.100  1000  1000 I ExampleTag: " + b"y" * (200 << 10) + b"\n")
        f.write(PREFIX + (KILL % 4242) + b"; reason: low watermark is breached\n")
        f.write(long_kill + b"\r\n")
        f.write(PREFIX + (KILL % 4444) + b"; reason: last\n")
    return LINE_MAX - (len(long_kill) - (100 << 10))  # the reason's bytes kept


def write_tombstone(root, path):
    with open(os.path.join(root, "fixtures", "evidence", "tombstone", "plain-gpu-delegate.txt"),
              "rb") as f:
        text = f.read()
    frames = b"".join(b"      #%03d pc 00000000000%05x  /vendor/lib64/libdeep.so (recurse+4)\n" % (i, i)
                      for i in range(300))
    with open(path, "wb") as f:
        f.write(text.replace(b"backtrace:\n", b"backtrace:\n" + frames, 1))


def write_big_json(path):
    record = {"pid": 1, "processName": "com.example.app", "reason": 3, "timestamp": 1760000000000,
              "description": "d" * 200}
    one = json.dumps(record).encode()
    n = JSON_MAX // (len(one) + 2) + 1
    with open(path, "wb") as f:
        f.write(b"[" + b",\n".join([one] * n) + b"]\n")


def inspect_json(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    check(p.returncode == 0, "inspect %s: exit %d %s" % (path, p.returncode, p.stderr))
    return json.loads(p.stdout)[0] if p.returncode == 0 else {}


def main():
    lw, root = setup(__doc__)
    cut_phrase = "2 lines longer than 64 KiB read cut to it, the first at line 2"
    frames_phrase = "44 tombstone frames past the first 256 not kept"
    with tempfile.TemporaryDirectory(prefix="lw-limits-") as tmp:
        bundle = os.path.join(tmp, "bundle")
        os.mkdir(bundle)
        logcat = os.path.join(bundle, "logcat.txt")
        kept = write_logcat(logcat)
        f = inspect_json(lw, logcat)
        kills = dict((r["pid"], r) for r in f.get("records", []) if r["event"] == "lmkd_kill")
        check(f.get("lines") == 5 and f.get("cut_lines") == 2 and f.get("first_cut_line") == 2,
              "logcat: %s lines, %s cut, the first at %s; want 5, 2, 2"
              % (f.get("lines"), f.get("cut_lines"), f.get("first_cut_line")))
        check(sorted(kills) == [4242, 4343, 4444] and kills[4242]["line"] == 3 and
              kills[4444]["line"] == 5,
              "logcat: the kills of lines 3, 4 and 5 are read: %s" % sorted(kills))
        if 4343 in kills:
            reason = kills[4343]["reason"] or ""
            check(len(reason) == kept and set(reason) == {"z"},
                  "the cut line's reason holds what its first 64 KiB hold: %d bytes, want %d"
                  % (len(reason), kept))
        p = lastwords(lw, ["inspect", logcat])
        check(p.returncode == 0 and cut_phrase in p.stdout.splitlines()[0],
              "inspect names the cut lines: %r" % p.stdout[:300])

        tomb = os.path.join(bundle, "tombstone_01")
        write_tombstone(root, tomb)
        f = inspect_json(lw, tomb)
        t = f.get("records", [{}])[0]
        frames = t.get("frames", [])
        check(len(frames) == FRAMES_MAX and f.get("cut_frames") == 300 - FRAMES_MAX and
              frames[-1]["index"] == FRAMES_MAX - 1,
              "tombstone: %d frames kept (last #%s), %s cut; want %d and %d"
              % (len(frames), frames[-1]["index"] if frames else "-", f.get("cut_frames"),
                 FRAMES_MAX, 300 - FRAMES_MAX))
        p = lastwords(lw, ["inspect", tomb])
        check(frames_phrase in p.stdout.splitlines()[0], "inspect names the frames cut: %r"
              % p.stdout[:300])

        big = os.path.join(tmp, "exit-info.json")
        write_big_json(big)
        p = lastwords(lw, ["inspect", big])
        want = "lastwords: '%s': larger than 16 MiB, the limit for JSON, which is read whole" % big
        check(p.returncode == 4 and p.stderr.strip() == want,
              "JSON past 16 MiB: exit %d (want 4), %r" % (p.returncode, p.stderr[:300]))

        p = lastwords(lw, ["report", bundle])
        text = p.stdout
        check("inputs cut to a limit" in text and ("'%s': %s" % (logcat, cut_phrase)) in text and
              ("'%s': %s" % (tomb, frames_phrase)) in text,
              "report text names the inputs cut: %r" % text[-600:])
        rep, inputs = report_json(lw, [bundle])
        if rep:
            check(inputs[logcat].get("cut") == cut_phrase and
                  inputs[tomb].get("cut") == frames_phrase,
                  "report JSON: cut of the inputs: %r, %r"
                  % (inputs[logcat].get("cut"), inputs[tomb].get("cut")))
        p = lastwords(lw, ["report", "--format", "html", bundle])
        check(("cut to a limit: " + cut_phrase) in p.stdout, "the HTML report names the cut")
    return finish("evidence-limits: lines, frames and JSON at their limits")


if __name__ == "__main__":
    sys.exit(main())
