#!/usr/bin/env python3
"""Evidence pasted with every line indented reads as the file itself.

A bug tracker's paste (a code block inside a list, a quoted reply) puts the
same margin of spaces or tabs before every line. Each text fixture of
fixtures/evidence/ (and each sample of ../shared/corpus, when present) is
written indented by four spaces, two spaces, a tab and a space then a tab
(blank lines indented too, or left blank), into a scratch directory; `lastwords inspect --json` of each must give what
it gives for the original: the same kind, line counts and records (the
file's name aside).

usage: evidence-indented.py LASTWORDS SOURCE_ROOT
"""
import glob
import json
import os
import sys
import tempfile

from helpers import fail, finish, lastwords, setup

# name: (margin, whether blank lines get it too)
MARGINS = {"spaces": ("    ", True), "two": ("  ", False), "tab": ("\t", True),
           "mixed": (" \t", False)}


def inspect(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    try:
        files = json.loads(p.stdout)
    except ValueError:
        fail("inspect --json %s: not JSON (exit %d)" % (path, p.returncode))
        return None
    for f in files:
        f.pop("file", None)
    return p.returncode, files


def first_difference(got, want):
    """Where an indented copy's result first departs from the original's."""
    if got[0] != want[0]:
        return "exit %d, originally %d" % (got[0], want[0])
    for g, w in zip(got[1], want[1]):
        for key in ("kind", "lines", "skipped"):
            if g.get(key) != w.get(key):
                return "%s %r, originally %r" % (key, g.get(key), w.get(key))
        gr, wr = g.get("records", []), w.get("records", [])
        if len(gr) != len(wr):
            return "%d records, originally %d" % (len(gr), len(wr))
        for i, (a, b) in enumerate(zip(gr, wr)):
            keys = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            if keys:
                return "record %d: %s differ" % (i, ", ".join(keys))
    return "a different result"


def main():
    lw, root = setup("usage: evidence-indented.py LASTWORDS SOURCE_ROOT")
    samples = sorted(glob.glob("fixtures/evidence/*/*.txt"))
    samples += sorted(glob.glob(os.path.normpath(os.path.join(root, "..", "shared", "corpus", "*.txt"))))
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in samples:
            want = inspect(lw, path)
            if want is None:
                continue
            with open(path, "rb") as f:
                lines = f.read().split(b"\n")
            last = lines.pop()  # after the final newline: nothing, or a last line
            for name, (margin, blanks) in MARGINS.items():
                pasted = os.path.join(tmp, "%s.%s" % (os.path.basename(path), name))
                m = margin.encode()
                with open(pasted, "wb") as f:
                    f.write(b"".join(m + l + b"\n" if l or blanks else b"\n" for l in lines))
                    f.write(m + last if last else b"")
                got = inspect(lw, pasted)
                n += 1
                if got is not None and got != want:
                    fail("%s indented (%s)" % (path, name), first_difference(got, want))
    return finish("%d samples, %d indented copies read as their originals" % (len(samples), n))


if __name__ == "__main__":
    sys.exit(main())
