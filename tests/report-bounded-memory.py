#!/usr/bin/env python3
"""A report of thousands of runs, or of a run of thousands of stages, holds
one small tree at a time: `report --format json` writes its runs one by
one and each run's stages one by one, and a verdict's lines are as long as
they are, not fixed arrays.

A dumpsys exit-info of 8,000 LOW_MEMORY records, each of its own pid and
none of a ring, gives 8,000 ring-less runs. `report --format json` on it
must stay under a peak RSS (wait4) bound and give every run a verdict. Before,
each verdict was 8 KiB of fixed lines and the whole report was one cJSON
tree serialized at once: about 140 MiB here.

A ring (as the JSON lines of `lastwords dump --json`) of 100,000 inference
stages: every stage in the report, under a bound. Before, the stages were
one cJSON tree: 84 MiB here.

usage: report-bounded-memory.py LASTWORDS SOURCE_ROOT B_SANITIZE
"""
import glob
import json
import os
import sys
import tempfile

from helpers import check, finish, run_bounded, setup

RECORDS = 8000
BOUND_MIB = 64   # sanitized builds get 3 times it
STAGES = 100000
STAGES_BOUND_MIB = 40


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


def many_stages(lw, root, path):
    """A demo ring's header and open record, then STAGES stages."""
    ring = sorted(glob.glob(os.path.join(root, "fixtures", "demo", "rings", "*inference*")))[0]
    lines = run_bounded([lw, "dump", "--json", ring], 60)[1].decode().splitlines()
    opened = json.loads(lines[1])
    with open(path, "w") as f:
        f.write(lines[0] + "\n" + lines[1] + "\n")
        for i in range(2 * STAGES):
            e = {"type": "stage_end" if i % 2 else "stage_begin", "ticket": 2 + i,
                 "t_mono_ns": opened["t_mono_ns"] + 1000 * (i + 1), "tid": opened["tid"],
                 "flags": 0, "stage": "inference", "rss_kb": 2000, "rss_age_ms": 0}
            if i % 2:
                e["error"] = "none"
            f.write(json.dumps(e) + "\n")


def main():
    lw, root, sanitize = setup(__doc__, extra=1)
    scale = 3 if sanitize not in ("", "none") else 1
    bound = BOUND_MIB * scale
    with tempfile.TemporaryDirectory() as d:
        ring = os.path.join(d, "stages.jsonl")
        many_stages(lw, root, ring)
        status, out, err, stages_rss, _ = run_bounded([lw, "report", "--format", "json", ring], 300)
        check(status == 0, "stages: report exits %s: %s" % (status, err[-500:]))
        try:
            stages = json.loads(out)["runs"][0]["stages"]
        except (ValueError, KeyError, IndexError) as e:
            stages = []
            check(False, "stages: the report is not JSON of a run: %s" % e)
        check(len(stages) == STAGES and all(s["error"] == "none" for s in stages),
              "stages: %d of %d in the report, each closed" % (len(stages), STAGES))
        check(stages_rss <= STAGES_BOUND_MIB * scale, "stages: peak RSS %.0f MiB, over the bound "
              "of %d MiB" % (stages_rss, STAGES_BOUND_MIB * scale))
        os.unlink(ring)

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
    return finish("report-bounded-memory: %d runs in %.0f MiB (bound %d), %.1f s; %d stages in "
                  "%.0f MiB (bound %d)" % (RECORDS, rss, bound, secs, STAGES, stages_rss,
                                           STAGES_BOUND_MIB * scale))


if __name__ == "__main__":
    sys.exit(main())
