#!/usr/bin/env python3
"""One truth about where a run's peak was (issue 20, finding 10): the
run's peak stage and its sessions' peaks come from one walk
(sessions_peak_stage()), in text, JSON and HTML.

- sessions-switch.lwr: the run's highest RSS is held from outside any
  stage into session 1's load; the run said "outside any stage" beside
  session 1's "in load". Now both say load.
- clean-exit.lwr: the peak was reached by the end of delegate_prepare (its
  stage_end carries it) and held into inference: the run says
  delegate_prepare, as the ring's peak record does (dump): a stage
  record's sample is of its stage, in the sessions' walk too.
- every fixture ring: when a session's peak equals the run's, the run's
  peak stage is one of those sessions' peak stages (never "outside any
  stage" beside one in a stage), and the text and the HTML say the stage
  the JSON does.

usage: report-peak-stage.py LASTWORDS SOURCE_ROOT
"""
import glob
import re

from helpers import check, finish, lastwords, report_json, setup

TZ = ["--tz", "+00:00"]


def mib(kb):
    return "%.1f MiB" % (kb / 1024.0)


def one_ring(lw, ring):
    d, _ = report_json(lw, TZ + [ring])
    run = d["runs"][0]
    m = run["memory"]
    peak, stage = m["peak_kb"], m["peak_stage"]
    same = [s["peak_stage"] for s in run["sessions"] if s["peak_kb"] and s["peak_kb"] == peak]
    if same:
        check(stage in same, "%s: the run's peak %d kB is %s, its sessions' at that peak %s"
              % (ring, peak, stage, same))
    text = lastwords(lw, ["report"] + TZ + [ring]).stdout
    if peak:
        want = "outside any stage" if stage == "none" else "in " + stage
        line = [x for x in text.splitlines() if x.startswith("memory     peak")]
        check(line and want in line[0], "%s: text %r, JSON peak_stage %s" % (ring, line, stage))
        for s in run["sessions"]:
            if s["peak_kb"] and len(run["sessions"]) > 1:
                check(re.search(r"\b%d\s+\S+ .*peak %s in %s" % (s["id"], re.escape(mib(s["peak_kb"])),
                                                                   s["peak_stage"]), text),
                      "%s: session %d's peak in %s not in the text" % (ring, s["id"], s["peak_stage"]))
        html = lastwords(lw, ["report", "--format", "html"] + TZ + [ring]).stdout
        want = "(outside any stage)" if stage == "none" else "(in %s)" % stage
        check(want in html, "%s: the HTML's memory lacks %r" % (ring, want))
    return stage


def main():
    lw, _ = setup("usage: report-peak-stage.py LASTWORDS SOURCE_ROOT")
    rings = sorted(glob.glob("fixtures/rings/*.lwr") + glob.glob("fixtures/rings-json/*.jsonl"))
    stages = {r: one_ring(lw, r) for r in rings}
    check(stages.get("fixtures/rings/sessions-switch.lwr") == "load",
          "sessions-switch: the peak is in %s, not load" % stages.get("fixtures/rings/sessions-switch.lwr"))
    check(stages.get("fixtures/rings/clean-exit.lwr") == "delegate_prepare",
          "clean-exit: the peak is in %s, not delegate_prepare" % stages.get("fixtures/rings/clean-exit.lwr"))
    dump = lastwords(lw, ["dump", "fixtures/rings/clean-exit.lwr"]).stdout
    check("in delegate_prepare" in [x for x in dump.splitlines() if x.startswith("peak rss:")][0],
          "clean-exit: dump's peak record is not in delegate_prepare")
    # A newer writer's stage (9) at the peak: named by its number, never
    # "(null)" nor "outside any stage".
    newer = "fixtures/scenarios/stage-from-newer-writer/bundle"
    text = lastwords(lw, ["report"] + TZ + [newer]).stdout
    d, _ = report_json(lw, TZ + [newer])
    check("peak 224.0 MiB in stage 9 (unknown to this reader)" in text and "(null)" not in text,
          "a newer writer's stage at the peak: %r" % [x for x in text.splitlines() if "peak" in x])
    check(d and d["runs"][0]["memory"]["peak_stage"] == "unknown",
          "a newer writer's stage at the peak is not \"unknown\" in JSON")
    return finish("%d rings, one peak stage each" % len(rings))


if __name__ == "__main__":
    import sys
    sys.exit(main())
