#!/usr/bin/env python3
"""What one input may keep of each kind of record is capped (lastwords(1),
LIMITS): 20,000 exit records or log lines of one type, 1,000 tombstones or
ANR traces. Past it the last ones read are kept, the others counted, and
the report says so: in text under "inputs cut to a limit", in JSON as the
input's "cut" and "records_cut" ({"kind", "kept", "dropped"}, valid against
the schema), and inspect on the file's line.

  - a logcat of 20,500 lmkd kills: the last 20,000 are kept (inspect --json
    lists their pids), 500 dropped, said by report and inspect;
  - a dumpsys exit-info of 20,010 records: the last 20,000 kept;
  - peak RSS of `report` does not grow with the input: a logcat of 300,000
    kills takes no more than one of 100,000, within a few MiB. Before, every
    record was kept (about 324 bytes each: 256 MB of kill lines took 762 MB),
    and the larger took some 40 MiB more.

usage: evidence-record-cap.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, run_bounded, setup

LOGS_MAX = 20000
EXITS_MAX = 20000
GROWTH_MIB = 8      # what peak RSS may differ between the two sizes

KILL = ("06-10 14:%02d:%02d.500   612   612 I lowmemorykiller: Kill 'com.example.app' (%d), "
        "uid 10001, oom_score_adj 900 to free 1000kB rss, 0kB swap; reason: low watermark "
        "is breached\n")


def write_kills(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write(KILL % (i // 60 % 60, i % 60, 100000 + i))


def write_dump(path, n):
    with open(path, "w") as f:
        f.write("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
                "  package: com.example.many\n    Historical Process Exit for uid=10001\n")
        for i in range(n):
            f.write("        ApplicationExitInfo #%d:\n"
                    "          timestamp=2025-06-10 12:00:00.000 pid=%d realUid=10001 "
                    "packageUid=10001 definingUid=10001 user=0\n"
                    "          process=com.example.many reason=3 (LOW_MEMORY) "
                    "subreason=0 (UNKNOWN) status=0\n"
                    "          importance=100 pss=512MB rss=600MB description=null "
                    "state=empty trace=null\n" % (i, 100000 + i))


def inspect_json(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    check(p.returncode == 0, "inspect %s: exit %d %s" % (path, p.returncode, p.stderr[-300:]))
    return json.loads(p.stdout)[0] if p.returncode == 0 else {}


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory(prefix="lw-cap-") as tmp:
        logcat = os.path.join(tmp, "logcat.txt")
        write_kills(logcat, LOGS_MAX + 500)

        f = inspect_json(lw, logcat)
        pids = [r.get("pid") for r in f.get("records", [])]
        check(pids == list(range(100500, 100500 + LOGS_MAX)),
              "inspect: %d records kept, pids %s..%s; want the last %d (100500..%d)"
              % (len(pids), pids[:1], pids[-1:], LOGS_MAX, 100499 + LOGS_MAX))
        check(f.get("records_cut") == [{"kind": "lmkd_kill", "kept": LOGS_MAX, "dropped": 500}],
              "inspect --json: records_cut %r" % f.get("records_cut"))
        p = lastwords(lw, ["inspect", logcat])
        phrase = ("500 lmkd_kill records dropped, the last 20000 read kept (what one input may "
                  "keep)")
        check(phrase in p.stdout.split("\n")[0],
              "inspect: the file's line does not say %r: %r" % (phrase, p.stdout[:300]))

        rep, inputs = report_json(lw, ["--tz", "+00:00", logcat])
        i = inputs.get(logcat, {})
        check(i.get("records_cut") == [{"kind": "lmkd_kill", "kept": LOGS_MAX, "dropped": 500}],
              "report json: the input's records_cut %r" % i.get("records_cut"))
        check(phrase in i.get("cut", ""), "report json: the input's cut %r" % i.get("cut"))
        p = lastwords(lw, ["report", "--tz", "+00:00", logcat])
        check(p.returncode == 0 and "inputs cut to a limit" in p.stdout and phrase in p.stdout,
              "report text: no 'inputs cut to a limit' naming the kills: exit %d %r"
              % (p.returncode, p.stdout[-600:]))

        dump = os.path.join(tmp, "exit-info.txt")
        write_dump(dump, EXITS_MAX + 10)
        f = inspect_json(lw, dump)
        pids = [r.get("pid") for r in f.get("records", [])]
        check(pids == list(range(100010, 100010 + EXITS_MAX)),
              "dump: %d records kept, pids %s..%s; want the last %d"
              % (len(pids), pids[:1], pids[-1:], EXITS_MAX))
        check(f.get("records_cut") == [{"kind": "exit_record", "kept": EXITS_MAX, "dropped": 10}],
              "dump: records_cut %r" % f.get("records_cut"))
        os.unlink(dump)

        figures = []
        for n in (100000, 300000):
            write_kills(logcat, n)
            status, out, err, rss, secs = run_bounded(
                [lw, "report", "--format", "json", "--tz", "+00:00", logcat], 50)
            check(status == 0, "report of %d kills: exit %s %r" % (n, status, err[-300:]))
            figures.append((n, os.path.getsize(logcat) / 1048576.0, rss, secs))
        (n0, mib0, rss0, _), (n1, mib1, rss1, _) = figures
        check(rss1 <= rss0 + GROWTH_MIB,
              "peak RSS grows with the input: %.0f MiB for %d kills (%.0f MiB), %.0f MiB for %d "
              "(%.0f MiB)" % (rss0, n0, mib0, rss1, n1, mib1))
    return finish("evidence-record-cap: report peak RSS %s" % ", ".join(
        "%.0f MiB for %d kills (%.0f MiB, %.1f s)" % (r, n, m, s) for n, m, r, s in figures))


if __name__ == "__main__":
    sys.exit(main())
