#!/usr/bin/env python3
"""Real evidence from real devices (../shared/corpus/): every file is
detected as its right kind, and its records match the expectations in
fixtures/corpus-expect/<file>.json, written by hand from reading each file.

An expectation is {"kind": K, "records": [R, ...]} where each R lists the
fields that record must have, in order; "records" may be left out when only
the kind is asserted. A corpus file without an expectation fails the test,
so a new sample cannot go unchecked. Skips (77) when the corpus is absent.

usage: evidence-corpus.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys

from helpers import corpus_or_skip, fail, finish, lastwords, setup


def main():
    lw, root = setup(__doc__)
    corpus = corpus_or_skip(root)
    expect_dir = os.path.join(root, "fixtures", "corpus-expect")
    checked = 0
    for name in sorted(os.listdir(corpus)):
        if name == "README.md" or name.startswith("."):
            continue
        path = os.path.join(corpus, name)
        exp_path = os.path.join(expect_dir, name + ".json")
        if not os.path.exists(exp_path):
            fail("%s: no expectation in fixtures/corpus-expect/" % name)
            continue
        with open(exp_path) as f:
            exp = json.load(f)
        p = lastwords(lw, ["inspect", "--json", path])
        if p.returncode < 0:
            continue
        try:
            got = json.loads(p.stdout)[0]
        except (ValueError, IndexError):
            fail("%s: inspect printed no JSON (exit %d): %s"
                            % (name, p.returncode, p.stderr.strip()))
            continue
        if got.get("kind") != exp["kind"]:
            fail("%s: detected as %s, expected %s" % (name, got.get("kind"), exp["kind"]))
            continue
        if "error" in got:
            fail("%s: %s" % (name, got["error"]))
            continue
        checked += 1
        if "records" not in exp:
            continue
        records = got.get("records", [])
        if len(records) != len(exp["records"]):
            fail("%s: %d records, expected %d" % (name, len(records), len(exp["records"])))
        for i, (want, have) in enumerate(zip(exp["records"], records)):
            for key, value in want.items():
                if have.get(key) != value:
                    fail("%s record %d: %s is %r, expected %r"
                                    % (name, i, key, have.get(key), value))
    return finish("%d corpus files detected and checked" % checked)


if __name__ == "__main__":
    sys.exit(main())
