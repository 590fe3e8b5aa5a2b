#!/usr/bin/env python3
"""A file that is not there gets the one message lastwords(1) documents,
whichever command was given it: "lastwords: cannot open 'FILE': No such
file or directory" (ingest puts "refused 'BUNDLE': " before it), with the
command's exit status: 4 for an input, 11 for the history database (check: 14,
when the run expected is then missing).

usage: analyzer-missing-file.py LASTWORDS SOURCE_ROOT
"""
import os
import sys
import tempfile

from helpers import check, finish, lastwords, setup


def main():
    lw, root = setup("usage: analyzer-missing-file.py LASTWORDS SOURCE_ROOT")
    with tempfile.TemporaryDirectory() as tmp:
        gone = os.path.join(tmp, "gone.lwr")
        line = "lastwords: cannot open '%s': No such file or directory" % gone
        db = os.path.join(tmp, "history.db")
        cases = [
            (["dump", gone], 4, line), (["verify", gone], 4, line), (["inspect", gone], 4, line),
            (["dump", "--json", gone], 4, line), (["inspect", "--json", gone], 4, line),
            (["report", gone], 4, line), (["report", "--format", "json", gone], 4, line),
            (["check", gone, "fixtures/demo"], 4, line),
            (["check", "fixtures/check/minimal.json", gone], 14, line),  # and its run missing
            (["ingest", "--db", db, gone], 4, "lastwords: refused '%s': %s" % (gone, line[len("lastwords: "):])),
            (["history", "--db", gone], 11, line), (["export", "--db", gone, "--format", "csv"], 11, line),
        ]
        for args, status, want in cases:
            p = lastwords(lw, args)
            lines = p.stderr.splitlines()
            check(p.returncode == status and lines.count(want) == 1,
                  "%s: exit %d (want %d) and %r, got %r" % (" ".join(args[:2]), p.returncode, status, want,
                                                           p.stderr))
            check(not any("No such file" in l for l in lines if l != want),
                  "%s: no other wording of the missing file: %r" % (" ".join(args[:2]), p.stderr))
    return finish("analyzer-missing-file: %d commands" % len(cases))


sys.exit(main())
