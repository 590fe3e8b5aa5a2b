#!/usr/bin/env python3
"""An unknown section layout is counted and skipped, never fatal (issue 11,
item 4): a dumpsys exit-info whose package sections hold a section of a
layout this version does not know, and a record laid out another way, still
gives the verdicts of the records it can read, exit 0; the report counts the
lines it skipped for each input, with the first one, in the JSON's inputs
(not_understood), the text and the page.

usage: report-unknown-layout.py LASTWORDS SOURCE_ROOT
"""
import os
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup

DUMP = """ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)
Last Timestamp of Persistence Into Persistent Storage: 2025-06-10 13:00:06.012
  package: com.example.vision
    Historical Process Exit for uid=10231
        ApplicationExitInfo #0:
          timestamp=2025-06-10 14:00:06.424 pid=7311 realUid=10231 packageUid=10231 definingUid=10231 user=0
          process=com.example.vision:inference reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0
          importance=230 pss=0.00 rss=256MB description=null state=32 bytes trace=null
    Exit Summary Of A Later Release:
        frobnication level: 7
        ApplicationExitInfo Summary #0 { reason=3 count=1 }
  package: com.example.vision
    Historical Process Exit for uid=10231
        ApplicationExitInfo #1:
          pid is 7402 and it was killed
        ApplicationExitInfo #2:
          timestamp=2025-06-10 14:00:09.871 pid=7402 realUid=10231 packageUid=10231 definingUid=10231 user=0
          process=com.example.vision reason=2 (SIGNALED) subreason=0 (UNKNOWN) status=9
          importance=400 pss=88MB rss=97MB description=null state=empty trace=null
"""
LOGCAT = """06-10 14:00:06.410   612   612 I lowmemorykiller: Kill 'com.example.vision:inference' (7311), uid 10231, oom_score_adj 200 to free 262144kB rss, 18432kB swap; reason: low watermark is breached
06-10 14:00:09.860   612   612 I lowmemorykiller: Kill 'com.example.vision' (7402), uid 10231, oom_score_adj 905 to free 99328kB rss, 0kB swap; reason: low watermark is breached
"""


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory() as d:
        dump, logcat = os.path.join(d, "exit-info.txt"), os.path.join(d, "logcat.txt")
        with open(dump, "w") as f:
            f.write(DUMP)
        with open(logcat, "w") as f:
            f.write(LOGCAT)
        rep, inputs = report_json(lw, ["--tz", "+02:00", d])  # exits 0, the schema holds
        if rep:
            got = sorted((r["pid"], r["classification"], r["evidence_level"]) for r in rep["runs"])
            check(got == [(7311, "low_memory", "confirmed"), (7402, "system_reclaim", "confirmed")],
                  "the records it can read give their verdicts: %s" % got)
            skipped = {f: x.get("not_understood") for f, x in inputs.items()}
            check(skipped.get(dump) == {"lines": 3, "first_line": 9} and skipped.get(logcat) is None,
                  "the skipped lines are counted: %s" % skipped)
        text = lastwords(lw, ["report", "--tz", "+02:00", d])
        check(text.returncode == 0 and
              "lines not understood, counted and skipped (the rest was read):\n  '%s': 3 lines, "
              "the first at line 9" % dump in text.stdout, "the text counts them: %r" % text.stdout[-400:])
        html = lastwords(lw, ["report", "--format", "html", "--tz", "+02:00", d])
        check(html.returncode == 0 and "3 lines not understood, skipped (the first at line 9)" in html.stdout,
              "the page counts them")
    return finish("an unknown section layout is counted and skipped")


if __name__ == "__main__":
    sys.exit(main())
