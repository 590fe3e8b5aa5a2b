#!/usr/bin/env python3
"""A report of thousands of runs holds one run's tree at a time: `report
--format json` writes its runs one by one, and a verdict's lines are as
long as they are, not fixed arrays.

A dumpsys exit-info of 8,000 LOW_MEMORY records, each of its own pid and
none of a ring, gives 8,000 ring-less runs. `report --format json` on it
must stay under a peak RSS (wait4) bound and give every run a verdict. Before,
each verdict was 8 KiB of fixed lines and the whole report was one cJSON
tree serialized at once: about 140 MiB here.

usage: report-bounded-memory.py LASTWORDS SOURCE_ROOT B_SANITIZE
"""
import json
import os
import sys
import tempfile

from helpers import check, finish, run_bounded, setup

RECORDS = 8000
BOUND_MIB = 64   # sanitized builds get 3 times it


def dump(path):
    with open(path, "w") as f:
        f.write("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
                "Last Timestamp of Persistence Into Persistent Storage: 2025-06-10 16:00:00.000\n"
                "  package: com.example.many\n    Historical Process Exit for uid=10001\n")
        for i in range(RECORDS):
            f.write("        ApplicationExitInfo #%d:\n"
                    "          timestamp=2025-06-10 %02d:%02d:%02d.000 pid=%d realUid=10001 "
                    "packageUid=10001 definingUid=10001 user=0\n"
                    "          process=com.example.many:inference reason=3 (LOW_MEMORY) "
                    "subreason=0 (UNKNOWN) status=0\n"
                    "          importance=100 pss=512MB rss=600MB description=null "
                    "state=empty trace=null\n"
                    % (i, 15 - i // 3600 % 15, i // 60 % 60, i % 60, 20000 + i))


def main():
    lw, _, sanitize = setup(__doc__, extra=1)
    bound = BOUND_MIB * (3 if sanitize not in ("", "none") else 1)
    with tempfile.TemporaryDirectory() as d:
        dump(os.path.join(d, "exit-info.txt"))
        status, out, err, rss, secs = run_bounded(
            [lw, "report", "--format", "json", "--tz", "+00:00", d], 300)
        check(status == 0, "report exits %s: %s" % (status, err[-500:]))
        try:
            runs = json.loads(out)["runs"]
        except ValueError as e:
            runs = []
            check(False, "the report is not JSON: %s" % e)
        judged = [r for r in runs if r["classification"] == "low_memory"]
        check(len(judged) == RECORDS, "%d of %d ring-less runs got their verdict"
              % (len(judged), RECORDS))
        check(rss <= bound, "peak RSS %.0f MiB, over the bound of %d MiB" % (rss, bound))
    return finish("report-bounded-memory: %d runs in %.0f MiB (bound %d), %.1f s"
                  % (RECORDS, rss, bound, secs))


if __name__ == "__main__":
    sys.exit(main())
