#!/usr/bin/env python3
"""A ring that was never initialized (issue 10, item 5): a SIGKILL inside
lw_open can leave a full-size file of zeros, preallocated before the header
was written. It is an empty run, which every command names, and never a
reason to refuse the bundle that holds it.

Before the fix, every bundle pulled after such a kill was refused ("unknown
kind", exit 4, and `ingest` stored nothing); verify and dump said "bad
magic".

An empty file (0 bytes) named as a ring is the same empty run, named
"empty file" by every command (issue 20, finding 11): before, verify and
dump refused it ("empty file", exit 4) while report, trace and ingest
called it "unknown kind".

usage: report-blank-ring.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, schema_errors, setup

CASES = (
    # (what every command says, the file's size, the slots it has room for)
    ("never initialized: the ring is all zero", 4096 + 256 * 64, 256),  # a 256-slot ring
    ("empty file: never initialized (0 bytes", 0, 0),
)


def main():
    lw, _ = setup(__doc__)
    want, _ = report_json(lw, ["--tz", "+01:00", "fixtures/demo"])
    for BLANK, SIZE, SLOTS in CASES:
        one_case(lw, want, BLANK, SIZE, SLOTS)
    return finish("a ring never initialized, all zero or empty")


def one_case(lw, want, BLANK, SIZE, SLOTS):
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "bundle")
        shutil.copytree("fixtures/demo", bundle)
        blank = os.path.join(bundle, "rings",
                             "com.example.demo:inference.20261130T002805.100Z.25999.lwr")
        with open(blank, "wb") as f:
            f.truncate(SIZE)

        for cmd in (["verify"], ["dump"], ["inspect"]):
            p = lastwords(lw, cmd + [blank])
            check(p.returncode == 0 and BLANK in p.stdout,
                  "%s: exit %d, %r %r" % (cmd[0], p.returncode, p.stdout, p.stderr))
        p = lastwords(lw, ["verify", "--json", blank])
        v = json.loads(p.stdout) if p.returncode == 0 else {}
        check(v.get("outcome") == "never_initialized" and v.get("ok") is True and
              v.get("slot_count") == SLOTS, "verify --json: %r" % p.stdout)

        rep, _ = report_json(lw, ["--tz", "+01:00", bundle])
        if rep:
            check([r["run_id"] for r in rep["runs"]] == [r["run_id"] for r in want["runs"]] and
                  [r["evidence_level"] for r in rep["runs"]] ==
                  [r["evidence_level"] for r in want["runs"]],
                  "the other runs are reported as without it")
            got = [i for i in rep["inputs"] if i["file"] == blank]
            check(len(got) == 1 and got[0]["kind"] == "ring" and
                  got[0].get("note", "").startswith(BLANK) and "error" not in got[0],
                  "the blank ring is named in the inputs: %r" % got)
        p = lastwords(lw, ["report", "--tz", "+01:00", bundle])
        check(p.returncode == 0 and "inputs left out:\n  '%s': %s" % (blank, BLANK) in p.stdout,
              "the text names it: %r" % p.stdout[-600:])
        # Given alone: an empty run, named, not an unknown kind.
        p = lastwords(lw, ["report", blank])
        check(p.returncode == 0 and "'%s': %s" % (blank, BLANK) in p.stdout and not p.stderr,
              "report of it alone: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))
        trace = os.path.join(d, "trace.pftrace")
        for args in (["trace", "--tz", "+01:00", "-o", trace, bundle], ["trace", "-o", trace, blank]):
            p = lastwords(lw, args)
            check(p.returncode == 0 and "unknown kind" not in p.stderr,
                  "%s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr))

        # Its JSON lines say the same, and read back as the same empty run.
        jl = os.path.join(d, "blank.jsonl")
        with open(jl, "w") as f:
            f.write(lastwords(lw, ["dump", "--json", blank]).stdout)
        with open(jl) as f:
            for e in schema_errors("schemas/ring-events.schema.json", json.loads(f.read())):
                check(False, "its JSON line: schema: " + e)
        p = lastwords(lw, ["inspect", jl])
        check(p.returncode == 0 and BLANK in p.stdout, "inspect of its JSON lines: %r %r"
              % (p.stdout, p.stderr))

        # ingest stores the bundle.
        db = os.path.join(d, "history.db")
        p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", bundle])
        check(p.returncode == 0 and "1 stored" in p.stdout,
              "ingest: exit %d, %r %r" % (p.returncode, p.stdout, p.stderr))

        # check reads the bundle as the report does: as without it.
        p0 = lastwords(lw, ["check", "fixtures/check/demo.json", "fixtures/demo"])
        p = lastwords(lw, ["check", "fixtures/check/demo.json", bundle])
        check(p.returncode == p0.returncode == 0 and "unknown kind" not in p.stderr,
              "check: exit %d, %r" % (p.returncode, p.stdout + p.stderr))
        if not SIZE:
            return
        # A hidden name (the probe's temporary file) is read too.
        os.rename(blank, os.path.join(bundle, "rings", ".lw-open.tmp"))
        p = lastwords(lw, ["report", "--tz", "+01:00", bundle])
        check(p.returncode == 0 and "/rings/.lw-open.tmp': %s" % BLANK in p.stdout,
              "a hidden blank ring: exit %d, %r" % (p.returncode, p.stdout[-400:]))


if __name__ == "__main__":
    sys.exit(main())
