#!/usr/bin/env python3
"""Seed differential test: `lastwords report --format seed FILE` against the
seed script itself (../shared/seeds/lifecycle_probe.py).

usage: seed-differential.py LASTWORDS SOURCE_ROOT [--keep DIR] [--seed N] [--part PART]

Generates event files (valid, and invalid in every way the script checks or
trips over), deterministically from a seeded generator, runs both programs on
each with the same argument and working directory, and compares the exit
status, stdout byte for byte, and stderr: all of it for the script's own
refusals (SystemExit), its last line for an uncaught exception (the traceback
frames above it are not reproduced). Prints a summary by category and every
disagreement. Exit status: 0 all agree, 1 a disagreement, 77 the script is
absent.

--part PART checks one part of the files (one meson test each, PARTS):
a category, or half of a large one (malformed-1 has the first half of the
malformed files), or a few small categories together.
"""
import concurrent.futures
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from helpers import skip

STAGES = ["download", "load", "runtime_prepare", "delegate_prepare",
          "inference", "cache", "exit"]
REASONS = ["none", "low_memory", "anr", "native_crash", "java_crash",
           "system_reclaim", "unknown"]
FIELDS = ["time_ms", "rss_mb", "budget_mb", "sessions"]
# Values of the wrong type or range for an int field, as JSON text.
ODD_VALUES = ["true", "false", "1.0", "1e3", "-0.0", "\"5\"", "null", "[]", "{}",
              "[1]", "{\"a\": 1}", "NaN", "Infinity", "-Infinity", "-1", "0", "-0",
              "123456789012345678901234567890123", "-98765432109876543210987654321"]


# part -> (its categories, which half of them: 0 all, 1 the first, 2 the
# second).
PARTS = {
    "valid": (["valid"], 0),
    "types": (["types"], 0),
    "malformed-1": (["malformed"], 1),
    "malformed-2": (["malformed"], 2),
    "large-1": (["large"], 1),
    "large-2": (["large"], 2),
    "encoding-order": (["encoding", "time-order"], 0),
    "other": (["shape", "stage", "reason", "paths", "args"], 0),
}


def in_part(cases, part):
    """The indexes of the cases of part (PARTS), or all of them (None)."""
    if part is None:
        return list(range(len(cases)))
    cats, half = PARTS[part]
    idx = [i for i, c in enumerate(cases) if c[0] in cats]
    if half:
        mid = (len(idx) + 1) // 2
        idx = idx[:mid] if half == 1 else idx[mid:]
    return idx


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.cases = []  # (category, name, kind, payload)

    def add(self, cat, name, data, kind="file"):
        self.cases.append((cat, name, kind, data))

    # --- building blocks: an event is a list of (key, raw JSON value) ---
    def event(self, t, reason=None):
        r = self.rng
        ev = [("time_ms", str(t)), ("stage", json.dumps(r.choice(STAGES))),
              ("rss_mb", str(r.randint(0, 4000))),
              ("budget_mb", str(r.randint(1, 4000))),
              ("sessions", str(r.randint(0, 5)))]
        r.shuffle(ev)
        if reason is not None:
            ev.append(("exit_reason", json.dumps(reason)))
        elif r.random() < 0.3:
            ev.append(("exit_reason", json.dumps(r.choice(REASONS))))
        return ev

    def events(self, n=None, start=None):
        r = self.rng
        n = n if n is not None else r.randint(1, 25)
        t = start if start is not None else r.randint(0, 10**6)
        out = []
        for _ in range(n):
            t += r.choice([0, 1, 5, 100, r.randint(0, 10**5)])
            out.append(self.event(t))
        return out

    def render(self, events, style=None):
        r = self.rng
        style = style if style is not None else r.randint(0, 4)
        nl, ind, sp = [("", "", ""), ("\n", "  ", " "), ("\r\n", "\t", " "),
                       ("\n", "    ", ""), ("\r", " ", "  ")][style]
        parts = []
        for ev in events:
            if isinstance(ev, str):
                parts.append(ind + ev)
                continue
            kv = ("," + sp).join(self.key(k) + ":" + sp + v for k, v in ev)
            parts.append(ind + "{" + kv + "}")
        return ("[" + nl + ("," + nl).join(parts) + nl + "]" + nl).encode()

    def key(self, k):
        if k.startswith("\x00raw:"):
            return k[5:]
        return json.dumps(k)

    def doc(self, events, style=None):
        return self.render(events, style)


def generate(seed):
    g = Gen(seed)
    r = g.rng

    # --- valid files ---
    for i in range(70):
        g.add("valid", f"random-{i}", g.doc(g.events()))
    for reason in REASONS:
        evs = g.events(r.randint(1, 6))
        evs[-1] = [kv for kv in evs[-1] if kv[0] != "exit_reason"] + [("exit_reason", json.dumps(reason))]
        g.add("valid", f"last-reason-{reason}", g.doc(evs))
    evs = g.events(4)
    evs[-1] = [kv for kv in evs[-1] if kv[0] != "exit_reason"]
    g.add("valid", "last-reason-absent", g.doc(evs))
    g.add("valid", "one-event", g.doc(g.events(1)))
    g.add("valid", "equal-times", g.doc([g.event(7) for _ in range(5)]))
    g.add("valid", "first-time-minus-one", g.doc([g.event(-1), g.event(-1), g.event(0)]))
    g.add("valid", "all-over-budget", g.doc([[("time_ms", str(i)), ("stage", '"load"'),
                                               ("rss_mb", str(100 + i)), ("budget_mb", "1"),
                                               ("sessions", "0")] for i in range(30)]))
    g.add("valid", "peak-first-max-wins", g.doc([
        [("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "9"), ("budget_mb", "9"), ("sessions", "1")],
        [("time_ms", "2"), ("stage", '"cache"'), ("rss_mb", "9"), ("budget_mb", "9"), ("sessions", "2")],
        [("time_ms", "3"), ("stage", '"exit"'), ("rss_mb", "8"), ("budget_mb", "1"), ("sessions", "3")]]))
    # bools are ints: compare as 1 and 0, print as true and false
    g.add("valid", "bools-as-ints", g.doc([
        [("time_ms", "false"), ("stage", '"load"'), ("rss_mb", "true"), ("budget_mb", "true"), ("sessions", "false")],
        [("time_ms", "true"), ("stage", '"inference"'), ("rss_mb", "true"), ("budget_mb", "true"), ("sessions", "true")],
        [("time_ms", "1"), ("stage", '"exit"'), ("rss_mb", "2"), ("budget_mb", "true"), ("sessions", "0")]]))
    g.add("valid", "bool-peak", g.doc([
        [("time_ms", "0"), ("stage", '"load"'), ("rss_mb", "false"), ("budget_mb", "1"), ("sessions", "true")],
        [("time_ms", "0"), ("stage", '"cache"'), ("rss_mb", "true"), ("budget_mb", "1"), ("sessions", "false")]]))
    # -0 is 0
    g.add("valid", "minus-zero", g.doc([
        [("time_ms", "-0"), ("stage", '"load"'), ("rss_mb", "-0"), ("budget_mb", "1"), ("sessions", "-0")],
        [("time_ms", "0"), ("stage", '"load"'), ("rss_mb", "0"), ("budget_mb", "1"), ("sessions", "0")]]))
    # big ints compared exactly and printed exactly
    big = "9" * 40
    g.add("valid", "big-ints", g.doc([
        [("time_ms", big), ("stage", '"load"'), ("rss_mb", "1" + "0" * 30), ("budget_mb", "1" + "0" * 29), ("sessions", big)],
        [("time_ms", big + "0"), ("stage", '"exit"'), ("rss_mb", "1" + "0" * 30 + "1"), ("budget_mb", big * 2), ("sessions", "0")],
        [("time_ms", "1" + "0" * 41), ("stage", '"cache"'), ("rss_mb", "-" + big), ("budget_mb", "1"), ("sessions", "1")]]))
    g.add("valid", "big-int-4300-digits", g.doc([
        [("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "7" * 4300), ("budget_mb", "1"), ("sessions", "0")]]))
    g.add("valid", "big-negative-times", g.doc([
        [("time_ms", "-" + big), ("stage", '"load"'), ("rss_mb", "1"), ("budget_mb", "1"), ("sessions", "0")]]))
    g.add("valid", "int64-edges", g.doc([
        [("time_ms", "9223372036854775807"), ("stage", '"load"'), ("rss_mb", "9223372036854775808"), ("budget_mb", "9223372036854775807"), ("sessions", "18446744073709551616")],
        [("time_ms", "9223372036854775808"), ("stage", '"load"'), ("rss_mb", "-9223372036854775809"), ("budget_mb", "1"), ("sessions", "0")]]))
    # duplicate keys: the last one wins
    g.add("valid", "duplicate-keys", g.doc([
        [("time_ms", "5"), ("stage", '"bogus"'), ("rss_mb", "1.5"), ("budget_mb", "1"), ("sessions", "0"),
         ("stage", '"load"'), ("rss_mb", "50"), ("time_ms", "1"), ("exit_reason", "null"), ("exit_reason", '"anr"')]]))
    # escapes in keys and values
    g.add("valid", "escaped-keys-values", g.doc([
        [("\x00raw:\"time\\u005fms\"", "1"), ("\x00raw:\"st\\u0061ge\"", '"lo\\u0061d"'),
         ("rss_mb", "3"), ("\x00raw:\"budget\\u005Fmb\"", "2"), ("sessions", "0"),
         ("\x00raw:\"exit\\u005freason\"", '"n\\u0061tive_crash"')]]))
    g.add("valid", "extra-keys", g.doc([
        g.event(1) + [("note", '"h\\u00e9llo \\ud83d\\ude00 \\"q\\" \\\\ \\/ \\b\\f\\n\\r\\t"'),
                      ("nested", '{"a": [1, 2.5, {"b": null}], "c": "Infinity"}'),
                      ("nan", "NaN"), ("inf", "-Infinity"), ("big", "1" * 5000 + ".5"),
                      ("f", "1E+2"), ("g", "-0.0e-0"), ("lone", '"\\ud800"'),
                      ("utf8", json.dumps("żółć ☃ 𝄞", ensure_ascii=False))]]))
    g.add("valid", "whitespace-everywhere", b" \t\r\n[ \r\n{ \"time_ms\" \t: 1 ,\"stage\"\n:\"load\"\r,\"rss_mb\":1,\"budget_mb\":1,\"sessions\":0 } \n]\r\n\t ")
    g.add("valid", "unicode-extra-key", g.doc([g.event(1) + [("ключ", '"значение"')]]))

    # --- bad time order ---
    for i in range(25):
        evs = g.events(r.randint(2, 12))
        k = r.randint(1, len(evs) - 1)
        t = int(dict(evs[k - 1])["time_ms"])
        evs[k] = [(a, b) if a != "time_ms" else (a, str(t - r.randint(1, 1000))) for a, b in evs[k]]
        g.add("time-order", f"decreasing-{i}", g.doc(evs))
    g.add("time-order", "first-below-minus-one", g.doc([g.event(-2)]))
    g.add("time-order", "big-decrease", g.doc([g.event("1" + "0" * 50), g.event("9" * 50)]))
    g.add("time-order", "bool-after-two", g.doc([g.event(2), [("time_ms", "true"), ("stage", '"load"'), ("rss_mb", "1"), ("budget_mb", "1"), ("sessions", "0")]]))

    # --- bad stage ---
    for s in ["Load", "none", "load ", "", "inference\\u0000", "unknown", "exitt", "\\u006coad_",
              "d\\u00f6wnload", "cache\\n"]:
        evs = g.events(r.randint(1, 5))
        k = r.randrange(len(evs))
        evs[k] = [(a, b) if a != "stage" else (a, '"' + s + '"') for a, b in evs[k]]
        g.add("stage", f"stage-{s!r}", g.doc(evs))
    for v in ["1", "null", "true", "1.5", "NaN", "[]", "[\"load\"]", "{}", "{\"load\": 1}"]:
        evs = g.events(r.randint(1, 5))
        k = r.randrange(len(evs))
        evs[k] = [(a, b) if a != "stage" else (a, v) for a, b in evs[k]]
        g.add("stage", f"stage-type-{v}", g.doc(evs))
    evs = g.events(3)
    evs[1] = [(a, b) for a, b in evs[1] if a != "stage"]
    g.add("stage", "stage-missing", g.doc(evs))
    evs = g.events(3)
    evs[1] = [(a, b) if a != "stage" else (a, "[]") for a, b in evs[1]]
    evs[1] = [(a, b) if a != "time_ms" else (a, "-5") for a, b in evs[1]]
    g.add("stage", "unhashable-stage-after-bad-time", g.doc(evs))

    # --- bad reason ---
    for v in ['"LOW_MEMORY"', '"oom"', '"None"', '""', "null", "0", "false", "1.0", "[]", "{}",
              '["anr"]', '"anr "']:
        evs = g.events(r.randint(1, 5))
        k = r.randrange(len(evs))
        evs[k] = [(a, b) for a, b in evs[k] if a != "exit_reason"] + [("exit_reason", v)]
        g.add("reason", f"reason-{v}", g.doc(evs))
    g.add("reason", "bad-stage-hides-unhashable-reason", g.doc([
        [("time_ms", "1"), ("stage", '"nope"'), ("rss_mb", "1"), ("budget_mb", "1"), ("sessions", "0"), ("exit_reason", "[]")]]))

    # --- wrong types and ranges of every int field ---
    for f in FIELDS:
        for v in ODD_VALUES:
            evs = g.events(r.randint(1, 6))
            k = r.randrange(len(evs))
            evs[k] = [(a, b) if a != f else (a, v) for a, b in evs[k]]
            g.add("types", f"{f}={v[:20]}", g.doc(evs))
        evs = g.events(r.randint(1, 6))
        k = r.randrange(len(evs))
        evs[k] = [(a, b) for a, b in evs[k] if a != f]
        g.add("types", f"{f}-missing", g.doc(evs))
    for v in ["0", "-1", "false", "-0", "-" + "9" * 30]:
        g.add("types", f"budget-{v[:12]}", g.doc([[("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "1"), ("budget_mb", v), ("sessions", "0")]]))
    for v in ["-1", "-" + "9" * 30]:
        g.add("types", f"sessions-{v[:12]}", g.doc([[("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "1"), ("budget_mb", "1"), ("sessions", v)]]))
    g.add("types", "all-missing", g.doc([[]]))
    g.add("types", "rss-float-budget-bad", g.doc([[("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "1.0"), ("budget_mb", "0"), ("sessions", "-1")]]))

    # --- top level and elements ---
    g.add("shape", "empty-list", b"[]")
    g.add("shape", "empty-list-spaces", b" [ \n ] ")
    for v in ["{}", '{"events": []}', '"events"', "5", "null", "true", "1.5", "NaN", '{"a": [1, 2]}']:
        g.add("shape", f"top-{v}", v.encode())
    for v in ["1", '"x"', "[]", "[1]", "null", "true", "false", "1.5", "-Infinity", "[[{}]]"]:
        evs = g.events(r.randint(1, 4))
        k = r.randrange(len(evs) + 1)
        evs.insert(k, v)
        g.add("shape", f"element-{v}", g.doc(evs))
    evs = g.events(3)
    evs[1] = [(a, b) if a != "time_ms" else (a, "-9") for a, b in evs[1]]
    evs.append("7")
    g.add("shape", "bad-time-before-non-dict", g.doc(evs))

    # --- malformed JSON ---
    malformed = [
        b"", b" ", b"\n\n", b"[", b"]", b"{", b"[1,]", b'[{"time_ms":1,}]', b"[1 2]", b"[,1]",
        b'[{"time_ms" 1}]', b"[{1: 2}]", b"[{'a': 1}]", b"['load']", b"[01]", b"[1.]", b"[.5]",
        b"[-]", b"[-", b"-", b"[+1]", b"[1e]", b"[1e+]", b"[tru]", b"[nul]", b"[Nan]", b"[-Inf]",
        b"[inf]", b'["abc]', b'["abc', b'["a\\x"]', b'["a\\', b'["\\u12"]', b'["\\u12G4"]',
        b'["\\u0041', b'"\\u0041', b'["\\ud800\\u12G4"]', b'["\\ud800\\x"]', b'["\\ud800\\u"]',
        b'"\\ud800\\u1234', b'["a\tb"]', b'["a\nb"]', b'["a\r\nb"]', b'["\x00"]', b"[\x00]",
        b"[1] x", b"[1] []", b"[][]", b"[1]\n\n  x", b"//c\n[1]", b"[1] // c", b"[\"a\" \"b\"]",
        b'[{"a":1 "b":2}]', b'[{"a":1,,"b":2}]', b'[{"a"::1}]', b"[1,\r\n\r\n  x]", b"[1,\r\r x]",
        b"\t\r\n x", b"[\xc3\xa9, x]", b'["\xc3\xa9\xe2\x98\x83", x]', b'[{"\xf0\x9d\x84\x9e": 1}, ?]',
        b"[TRUE]", b"[True]", b"[None]", b"[undefined]", b"[0x10]", b"[1_000]", b"[\xef\xbb\xbf1]",
        b"\xef\xbb\xbf[]", b"\xef\xbb\xbf", b" \xef\xbb\xbf[]",
    ]
    for i, m in enumerate(malformed):
        g.add("malformed", f"fixed-{i}", m)
    # truncations and corruptions of valid documents
    for i in range(40):
        d = g.doc(g.events(r.randint(1, 6)))
        g.add("malformed", f"truncated-{i}", d[:r.randrange(1, len(d))])
    for i in range(30):
        d = bytearray(g.doc(g.events(r.randint(1, 6))))
        for _ in range(r.randint(1, 3)):
            d[r.randrange(len(d))] = r.choice(b'{}[],:"\\x-0e. \ttn\r\n/')
        g.add("malformed", f"corrupt-{i}", bytes(d))
    d = g.doc(g.events(3))
    g.add("malformed", "bad-event-then-bad-json", g.doc([[("time_ms", '"x"')]])[:-2] + b", ]")
    # nesting depth: Python's recursion limit
    for n in [994, 995, 996, 1200]:
        g.add("malformed", f"deep-arrays-{n}", b"[" * n + b"]" * n)
        g.add("malformed", f"deep-objects-{n}", b"[" + b'{"a":' * (n - 1) + b"1" + b"}" * (n - 1) + b"]")
    g.add("malformed", "deep-in-field", b'[{"time_ms": 1, "stage": ' + b"[" * 1000 + b"]" * 1000 + b"}]")
    g.add("malformed", "deep-unclosed", b"[" * 2000)
    # the int digit limit (4300)
    g.add("malformed", "int-4301-digits", b"[" + b"1" * 4301 + b"]")
    g.add("malformed", "int-neg-4301-digits", b'[{"time_ms": -' + b"2" * 4301 + b"}]")
    g.add("malformed", "int-5000-in-extra", g.doc([g.event(1) + [("x", "3" * 5000)]]))
    g.add("malformed", "int-limit-then-bad-json", b"[" + b"1" * 4301 + b", x]")
    g.add("malformed", "float-5000-digits-ok", g.doc([g.event(1) + [("x", "3" * 5000 + ".0")]]))

    # --- encoding ---
    enc = [b"\xff", b"[\xff]", b'["\xe0\x80"]', b'["\xe1\x80"]', b"[\xe1\x80", b"[\xf1\x80\x80",
           b"[\xf1\x80\x80]", b"[\xf1\x80", b"[\xf1\x80A", b'["\xed\xa0\x80"]', b'["\xc0\x80"]',
           b'["\xf5\x80\x80\x80"]', b'["\xf4\x90\x80\x80"]', b'["\xf0\x80\x80\x80"]', b"[1] \xfe",
           b"[x, \xff]", b"\xef\xbb\xbf\xff", b"\xc3", b"[1]\n\xe2\x82"]
    for i, e in enumerate(enc):
        g.add("encoding", f"fixed-{i}", e)
    for i in range(12):
        d = bytearray(g.doc(g.events(r.randint(1, 6))))
        d[r.randrange(len(d))] = r.choice([0x80, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xf0, 0xf4, 0xf8, 0xff])
        g.add("encoding", f"random-{i}", bytes(d))
    g.add("encoding", "latin1-stage", g.doc([[("time_ms", "1"), ("stage", '"d\xf6wnload"'), ("rss_mb", "1"), ("budget_mb", "1"), ("sessions", "0")]]).replace(b"\xc3\xb6", b"\xf6"))
    g.add("encoding", "valid-utf8-after-bad-event", g.doc([[("time_ms", '"x"')], [("k", json.dumps("€𝄞", ensure_ascii=False))]]))

    g.add("valid", "rss-equals-budget", g.doc([
        [("time_ms", "1"), ("stage", '"load"'), ("rss_mb", "5"), ("budget_mb", "5"), ("sessions", "0")],
        [("time_ms", "2"), ("stage", '"cache"'), ("rss_mb", "true"), ("budget_mb", "true"), ("sessions", "0")],
        [("time_ms", "3"), ("stage", '"exit"'), ("rss_mb", big), ("budget_mb", big), ("sessions", "0")]]))

    # --- large files: tokens across the reader's 256 KiB refills ---
    # (document, token): the token is placed across the first read's end
    ev = b'{"time_ms": 1, "stage": "load", "rss_mb": 1, "budget_mb": 1, "sessions": 0'
    snippets = [
        (b'[{"time_ms": 1, "stage": "lo\\u0061d", "rss_mb": 12345678901234567890, "budget_mb": 1, "sessions": 0}]', b'lo\\u0061d"'),
        (b'[{"time_ms": 1, "stage": "load", "rss_mb": 12345678901234567890, "budget_mb": 1, "sessions": 0}]', b'12345678901234567890'),
        (b'[{"time_ms": 1, "stage": "load", "rss_mb": -Infinity, "budget_mb": 1, "sessions": 0}]', b'-Infinity'),
        (b'[' + ev + b', "x": "\xc3\xa9\xe2\x98\x83\xf0\x9d\x84\x9e"}]', b'\xc3\xa9\xe2\x98\x83\xf0\x9d\x84\x9e'),
        (b'[' + ev + b', "x": "\xe2\x98"}]', b'\xe2\x98"'),
        (b'[' + ev + b'}\r\n, x]', b'\r\n, x'),
        (b'[' + ev + b', "x": 1.5e+3}]', b'1.5e+3'),
        (b'[' + ev + b', "x": "\\u00', b'\\u00'),
        (b'[' + ev + b', "x": "\\ud83d\\ude00"}]', b'\\ud83d\\ude00"'),
        (b'[' + ev + b', "x": true, "y": false, "z": null}]', b'true, "y": false, "z": null'),
    ]
    for si, (snip, tok) in enumerate(snippets):
        at = snip.index(tok)
        for k in range(1, len(tok) + 1):
            n = 262144 - at - k
            pad = b"\r\n" * (n // 2) + b" " * (n % 2)
            g.add("large", f"boundary-{si}-{k}", pad + snip)
    evs = g.events(20000, start=0)
    g.add("large", "20k-events", g.doc(evs, style=1))
    bad = list(evs)
    bad[19990] = [(a, b) if a != "stage" else (a, '"nope"') for a, b in bad[19990]]
    g.add("large", "20k-bad-stage-near-end", g.doc(bad, style=2))
    d = g.doc(evs, style=4)
    g.add("large", "20k-bad-json-near-end", d[:-40] + b"x" + d[-39:])
    g.add("large", "20k-bad-utf8-at-end", d + b"\xff")

    # --- paths and arguments (built by the runner) ---
    for kind in ["missing", "directory", "dev-null", "fifo", "symlink", "dangling-symlink",
                 "symlink-loop", "dotdot-through-missing", "dotdot-through-symlink",
                 "empty-arg", "long-name", "trailing-slash"]:
        g.add("paths", kind, None, kind="path:" + kind)
    for args in [[], ["a.json", "b.json"], ["a.json", "a.json", "a.json"]]:
        g.add("args", f"{len(args)}-args", args, kind="args")
    return g.cases


def run(cmd, cwd):
    env = dict(os.environ)
    env.pop("PYTHONINTMAXSTRDIGITS", None)
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def last_line(b):
    lines = [l for l in b.split(b"\n") if l.strip()]
    return lines[-1] if lines else b""


def prepare(case, root, idx):
    """Returns (cwd, argv list after the program) for a case."""
    cat, name, kind, data = case
    d = os.path.join(root, f"c{idx:04d}")
    os.makedirs(d)
    if kind == "file":
        with open(os.path.join(d, "events.json"), "wb") as f:
            f.write(data)
        return d, ["events.json"]
    if kind == "args":
        for a in data:
            with open(os.path.join(d, a), "wb") as f:
                f.write(b'[{"time_ms":1,"stage":"load","rss_mb":1,"budget_mb":1,"sessions":0}]')
        return d, list(data)
    valid = b'[{"time_ms":1,"stage":"load","rss_mb":5,"budget_mb":1,"sessions":0}]'
    k = kind.split(":", 1)[1]
    if k == "missing":
        return d, ["nope.json"]
    if k == "directory":
        os.mkdir(os.path.join(d, "dir.json"))
        return d, ["dir.json"]
    if k == "dev-null":
        return d, ["/dev/null"]
    if k == "fifo":
        os.mkfifo(os.path.join(d, "fifo.json"))
        return d, ["fifo.json"]
    if k == "symlink":
        with open(os.path.join(d, "real.json"), "wb") as f:
            f.write(valid)
        os.symlink("real.json", os.path.join(d, "link.json"))
        return d, ["link.json"]
    if k == "dangling-symlink":
        os.symlink("nowhere.json", os.path.join(d, "link.json"))
        return d, ["link.json"]
    if k == "symlink-loop":
        os.symlink("b", os.path.join(d, "a"))
        os.symlink("a", os.path.join(d, "b"))
        return d, ["a"]
    if k == "dotdot-through-missing":
        # Python applies ".." lexically past a missing directory; open(2) would not.
        with open(os.path.join(d, "events.json"), "wb") as f:
            f.write(valid)
        return d, ["missing-dir/../events.json"]
    if k == "dotdot-through-symlink":
        sub = os.path.join(d, "sub", "deeper")
        os.makedirs(sub)
        with open(os.path.join(d, "sub", "events.json"), "wb") as f:
            f.write(valid)
        os.symlink(os.path.join("sub", "deeper"), os.path.join(d, "lnk"))
        return d, ["lnk/../events.json"]
    if k == "empty-arg":
        return d, [""]
    if k == "long-name":
        return d, ["x" * 300]
    if k == "trailing-slash":
        with open(os.path.join(d, "events.json"), "wb") as f:
            f.write(valid)
        return d, ["events.json/"]
    raise ValueError(kind)


def compare(py, lw):
    """None when they agree, else what differs."""
    prc, pout, perr = py
    lrc, lout, lerr = lw
    if prc != lrc:
        return f"exit status: script {prc}, lastwords {lrc}"
    if pout != lout:
        return f"stdout differs:\n--- script\n{pout[:600]!r}\n--- lastwords\n{lout[:600]!r}"
    if perr.startswith(b"Traceback"):
        if last_line(perr) + b"\n" != lerr:
            return (f"stderr differs (traceback's last line):\n--- script\n{last_line(perr)!r}"
                    f"\n--- lastwords\n{lerr[:600]!r}")
    elif perr != lerr:
        return f"stderr differs:\n--- script\n{perr[:600]!r}\n--- lastwords\n{lerr[:600]!r}"
    return None


def main():
    args = sys.argv[1:]
    keep = None
    seed = 4
    if "--keep" in args:
        i = args.index("--keep")
        keep = args[i + 1]
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    part = None
    if "--part" in args:
        i = args.index("--part")
        part = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2 or (part is not None and part not in PARTS):
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    lastwords = os.path.abspath(args[0])
    oracle = os.path.normpath(os.path.join(args[1], "..", "shared", "seeds", "lifecycle_probe.py"))
    if not os.path.isfile(oracle):
        skip(f"needs the seed script ../shared/seeds/lifecycle_probe.py, which the project "
             f"may not ship: {oracle} is absent")
    cases = generate(seed)
    chosen = in_part(cases, part)
    root = keep or tempfile.mkdtemp(prefix="seed-diff-")
    if keep:
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)

    def one(idx):
        case = cases[idx]
        cwd, argv = prepare(case, root, idx)
        py = run([sys.executable, oracle] + argv, cwd)
        lw = run([lastwords, "report", "--format", "seed"] + argv, cwd)
        return idx, py, lw

    results = {}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
            for idx, py, lw in ex.map(one, chosen):
                results[idx] = (py, lw)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)

    by_cat = {}
    outcomes = {}
    failures = []
    for idx in chosen:
        cat, name = cases[idx][0], cases[idx][1]
        py, lw = results[idx]
        diff = compare(py, lw)
        tot, ok = by_cat.get(cat, (0, 0))
        by_cat[cat] = (tot + 1, ok + (diff is None))
        if py[0] == 0:
            kind = "report"
        elif py[2].startswith(b"Traceback"):
            kind = last_line(py[2]).split(b":")[0].decode(errors="replace")
        elif py[2].startswith(b"usage"):
            kind = "usage"
        else:
            kind = "refusal: " + py[2].decode(errors="replace").strip().rsplit(" at index", 1)[0]
        outcomes[kind] = outcomes.get(kind, 0) + 1
        if diff:
            failures.append((cat, name, idx, diff))

    for cat, name, idx, diff in failures:
        print(f"DISAGREE [{cat}] {name} (case c{idx:04d}): {diff}\n")
    total = len(chosen)
    agreed = total - len(failures)
    print(f"seed differential: {total} files ({part or 'all'}), {agreed} agreed, "
          f"{len(failures)} disagreed (seed {seed})")
    print("by category:")
    for cat, (tot, ok) in by_cat.items():
        print(f"  {cat:12s} {ok:4d}/{tot:<4d} agreed")
    print("by the script's outcome:")
    for kind, n in sorted(outcomes.items(), key=lambda kv: -kv[1]):
        print(f"  {n:4d}  {kind}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
