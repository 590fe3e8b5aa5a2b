#!/usr/bin/env python3
"""The demo bundle (fixtures/demo), as the README's main command reports it:
the GPU delegate's crash and the low-memory kill are confirmed, each with
its recovery; the clean runs get no verdict; the stale record of a run
three days before, whose ring was not kept, joins no ring and is a
ring-less run of its own: a LOW_MEMORY record of a cached process
(importance 400), so system_reclaim (rule cached-reclaim), supported (one
system source), with the probe named as what would add its stage and
candidate.

usage: report-demo.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, run, setup


def main():
    lw, _ = setup(__doc__)
    p = lastwords(lw, ["report", "--tz", "+01:00", "--format", "json", "fixtures/demo"])
    check(p.returncode == 0, "report exits %d: %s" % (p.returncode, p.stderr))
    rep = json.loads(p.stdout)
    runs = rep["runs"]
    check(len(runs) == 5, "%d runs, expected 5" % len(runs))
    by_outcome = {}
    for r in runs:
        by_outcome.setdefault(r["outcome"], []).append(r)
    clean = by_outcome.get("clean", [])
    check(len(clean) == 2 and all(r["classification"] is None for r in clean),
          "two clean runs without a verdict")
    crash = by_outcome.get("crashed", [{}])[0]
    check(crash.get("classification") == "native_crash" and
          crash.get("evidence_level") == "confirmed", "crash verdict: %s" % crash.get("classification"))
    check(crash.get("open_stage") == "delegate_prepare", "crash in delegate_prepare")
    acts = [a["action"] for a in crash.get("recovery", {}).get("actions", [])]
    check(acts[:2] == ["isolate_delegate", "revert_to_stable"], "crash recovery %s" % acts)
    check({"aei-crash-native", "tombstone", "ring-crash-record"} <= set(crash.get("rules", [])),
          "crash rules %s" % crash.get("rules"))
    killed = by_outcome.get("died", [{}])[0]
    check(killed.get("classification") == "low_memory" and
          killed.get("evidence_level") == "confirmed", "kill verdict %s" % killed.get("classification"))
    check(killed.get("memory", {}).get("over_budget") is True, "the killed run was over budget")
    acts = [a["action"] for a in killed.get("recovery", {}).get("actions", [])]
    check(acts[0] == "stop_new_inference" and "revert_to_stable" in acts, "kill recovery %s" % acts)
    stable = killed.get("stable_candidate")
    dg = run([lw, "digest", "demo-model-v1"]).stdout.split()[0]
    check(stable == dg, "stable candidate %s is demo-model-v1 (%s)" % (stable, dg))
    ringless = [r for r in runs if r["ring"] == "none"]
    check(len(ringless) == 1 and ringless[0]["pid"] == 25495 and
          ringless[0]["no_ring"]["why"] == "no_run_with_pid" and
          (ringless[0]["classification"], ringless[0]["evidence_level"]) == ("system_reclaim", "supported") and
          ringless[0]["candidate"] is None and ringless[0]["start"] is None and
          [a["action"] for a in ringless[0]["recovery"]["actions"]] ==
          ["verify_state_restore"] and
          any("link liblastwords" in m for m in ringless[0]["missing"]),
          "the stale record is a ring-less run: %s" % ringless)
    check(rep["unmatched_exit_records"] == [], "unmatched %s" % rep["unmatched_exit_records"])
    for r in runs:
        for a in r["recovery"]["actions"]:
            check(a["action"] not in ("delete_model", "wipe_caches"), "a destructive action")
    # Without --tz, the zone comes from the tombstone's own time (+0100):
    # the same verdicts.
    p = run([lw, "report", "--format", "json", "fixtures/demo"])
    rep2 = json.loads(p.stdout)
    check(rep2["timezone"]["source"] == "tombstone" and rep2["timezone"]["offset_minutes"] == 60 and
          [(r["pid"], r["classification"]) for r in rep2["runs"]] ==
          [(r["pid"], r["classification"]) for r in runs] and not rep2["unmatched_exit_records"],
          "without --tz, the tombstone's zone: %s" % rep2["timezone"])
    # Without it too, dumpsys' local times fall an hour late: the crash
    # record then lands after the next run began, and joins nothing; at
    # +01:00 it would, so the zone is what is unknown, and it is no
    # ring-less run (that would count the crash twice).
    with tempfile.TemporaryDirectory() as d:
        bare = os.path.join(d, "demo")
        shutil.copytree("fixtures/demo", bare, ignore=shutil.ignore_patterns("tombstone_00"))
        rep2 = json.loads(run([lw, "report", "--format", "json", bare]).stdout)
    whys = sorted(u["why"] for u in rep2["unmatched_exit_records"])
    check(whys == ["tz_unknown"], "without any zone the crash record joins no run: %s" % whys)
    check([r["pid"] for r in rep2["runs"] if r["ring"] == "none"] == [25495],
          "without any zone only the stale record is a ring-less run")
    check(any("pass --tz" in n for n in rep2["device"]["notes"]), "the report says the zone was assumed")
    # --fail-on gates.
    for spec, want in (("low_memory:confirmed", 3), ("anr", 0), ("native_crash:supported", 3)):
        p = run([lw, "report", "--tz", "+01:00", "--fail-on", spec, "fixtures/demo"])
        check(p.returncode == want, "--fail-on %s exits %d, expected %d" % (spec, p.returncode, want))
    return finish("demo bundle: %d runs checked" % len(runs))


if __name__ == "__main__":
    sys.exit(main())
