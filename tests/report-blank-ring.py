#!/usr/bin/env python3
"""A ring that was never initialized (issue 10, item 5): a SIGKILL inside
lw_open can leave a full-size file of zeros, preallocated before the header
was written. It is an empty run, which dump, verify and inspect name, in
the binary file as in its JSON lines.

Before the fix, verify and dump said "bad magic" and inspect "unknown
kind", all with exit 4.

usage: report-blank-ring.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

from helpers import check, finish, lastwords, setup

BLANK = "never initialized: the ring is all zero"
SIZE = 4096 + 256 * 64  # a 256-slot ring


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory() as d:
        blank = os.path.join(d, "com.example.demo:inference.20261130T002805.100Z.25999.lwr")
        with open(blank, "wb") as f:
            f.truncate(SIZE)

        for cmd in (["verify"], ["dump"], ["inspect"]):
            p = lastwords(lw, cmd + [blank])
            check(p.returncode == 0 and BLANK in p.stdout,
                  "%s: exit %d, %r %r" % (cmd[0], p.returncode, p.stdout, p.stderr))
        p = lastwords(lw, ["verify", "--json", blank])
        v = json.loads(p.stdout) if p.returncode == 0 else {}
        check(v.get("outcome") == "never_initialized" and v.get("ok") is True and
              v.get("slot_count") == 256, "verify --json: %r" % p.stdout)

        # Its JSON lines say the same, and read back as the same empty run.
        jl = os.path.join(d, "blank.jsonl")
        with open(jl, "w") as f:
            f.write(lastwords(lw, ["dump", "--json", blank]).stdout)
        p = lastwords(lw, ["inspect", jl])
        check(p.returncode == 0 and BLANK in p.stdout, "inspect of its JSON lines: %r %r"
              % (p.stdout, p.stderr))
    return finish("a ring never initialized")


if __name__ == "__main__":
    sys.exit(main())
