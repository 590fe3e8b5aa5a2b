#!/usr/bin/env python3
"""Each run's `timeline` in `lastwords report --format json` (issue 14):
what a picture of the run needs, on the run's clock (ms from its start).

- The demo: the crash's death is its crash record, the kill's its last
  record; the evidence of each (exit record, tombstone, crash line, lmkd
  kill) is placed at its UTC time less the run's start, with its file and
  line; the lmkd kill and the exit record come after the kill's last
  record. The ring-less run has no timeline. The text's memory slope
  states its window ("over its last 117 ms (14 samples)") and is left out
  of the crash's run, whose 3 samples span 36 ms: too few.
- Every scenario: a timeline exactly for the runs with a ring; at most 512
  points, in time order, min <= max, whose max is the run's peak; each
  joined exit record is in the evidence, with its file and line, and the
  main process's peer_died mark where one joined; each piece of evidence
  at its UTC time less the run's start; every stage names its session.
- A ring of 40,000 memory samples and 30,000 marks: at most 512 points,
  whose max and min are the spike and the dip, and marks folded per kind
  and bucket whose counts add up to 30,000.
- A wall clock stepped one hour forward during the run: the exit record
  (joined by run id), written at the stepped clock, is placed by the
  nearest clock triple, right after the death, not an hour later.
- Two sessions with a load open each: the end of session 1's closes session
  1's, not the latest one begun.

usage: report-timeline.py LASTWORDS SOURCE_ROOT
"""
import datetime
import glob
import json
import os
import shlex
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup

SCENARIO = "fixtures/scenarios/memory-limiter-reason-17/bundle"


def iso_ms(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc).timestamp() * 1000


def report(lw, args):
    p = lastwords(lw, ["report", "--format", "json"] + args)
    try:
        return json.loads(p.stdout)
    except ValueError:
        fail("report %s: no JSON (exit %d): %s" % (" ".join(args), p.returncode, p.stderr[-300:]))
        return {"runs": []}


def invariants(where, r):
    t = r["timeline"]
    if r["ring"] == "none":
        check(t is None, "%s: a ring-less run has no timeline" % where)
        return
    if not check(isinstance(t, dict), "%s: a run with a ring has a timeline" % where):
        return
    pts = t["points"]
    check(len(pts) <= 512, "%s: %d points" % (where, len(pts)))
    check(all(a[0] <= b[0] for a, b in zip(pts, pts[1:])), "%s: points in time order" % where)
    check(all(p[1] <= p[2] for p in pts), "%s: each point's min <= max" % where)
    if pts:
        check(max(p[2] for p in pts) == r["memory"]["peak_kb"],
              "%s: the points' max %d is the peak %d" % (where, max(p[2] for p in pts),
                                                          r["memory"]["peak_kb"]))
    check(t["budget_kb"] == r["memory"]["budget_kb"], "%s: the budget" % where)
    ev = [(e["file"], e["line"]) for e in t["evidence"] if e["kind"] == "exit_record"]
    for x in r["exit_records"]:
        check((x["file"], x["line"]) in ev, "%s: exit record %s:%d on the timeline" %
              (where, x["file"], x["line"]))
    if r.get("peer_died"):
        peer = [e for e in t["evidence"] if e["kind"] == "peer_died"]
        check(len(peer) == 1 and peer[0]["time"] == r["peer_died"]["time"] and
              peer[0]["file"] == r["peer_died"]["file"],
              "%s: the peer_died mark on the timeline: %s" % (where, peer))
    if r["start"]:
        for e in t["evidence"]:
            if e["t_ms"] is not None:
                check(abs(e["t_ms"] - (iso_ms(e["time"]) - iso_ms(r["start"]))) < 1,
                      "%s: %s at its time less the run's start: %s" % (where, e["kind"], e))
    check(all("session" in s for s in r["stages"]), "%s: every stage names its session" % where)
    if r["outcome"] == "clean":
        check(t["death"] is None, "%s: a clean run has no death" % where)


def demo(lw):
    rep = report(lw, ["--tz", "+01:00", "fixtures/demo"])
    by = {r["outcome"]: r for r in rep["runs"]}
    crash, kill = by.get("crashed"), by.get("died")
    if not check(crash and kill, "demo: a crashed and a killed run"):
        return
    for r in rep["runs"]:
        invariants("demo pid %d" % r["pid"], r)
    ct, kt = crash["timeline"], kill["timeline"]
    check(ct["death"]["source"] == "crash_record" and ct["death"]["stage"] == "delegate_prepare"
          and "SIGSEGV" in ct["death"]["detail"], "demo: the crash's death: %s" % ct["death"])
    check(kt["death"]["source"] == "last_record" and kt["death"]["t_ms"] == kt["end_ms"] and
          kt["death"]["stage"] == "inference", "demo: the kill's death: %s" % kt["death"])
    for r, kinds in ((crash, {"exit_record", "tombstone", "fatal_signal"}),
                     (kill, {"exit_record", "lmkd_kill"})):
        t, start = r["timeline"], iso_ms(r["start"])
        got = {e["kind"] for e in t["evidence"]}
        check(kinds <= got, "demo pid %d: evidence %s, expected %s" % (r["pid"], got, kinds))
        for e in t["evidence"]:
            check(abs(e["t_ms"] - (iso_ms(e["time"]) - start)) < 1 and e["within_ms"] >= 2000
                  and e["file"].startswith("fixtures/demo/") and e["line"],
                  "demo pid %d: %s placed at its time less the start: %s" % (r["pid"], e["kind"], e))
    late = [e for e in kt["evidence"] if e["kind"] in ("lmkd_kill", "exit_record")]
    check(all(e["t_ms"] > kt["death"]["t_ms"] for e in late),
          "demo: the kill's evidence after its last record: %s" % late)
    ringless = [r for r in rep["runs"] if r["ring"] == "none"]
    check(len(ringless) == 1 and ringless[0]["timeline"] is None, "demo: the ring-less run")
    text = lastwords(lw, ["report", "--tz", "+01:00", "fixtures/demo"]).stdout
    mem = [l for l in text.splitlines() if l.startswith("memory")]
    check(any("113.4 MiB" in l and "/s over its last 117 ms (14 samples)" in l for l in mem),
          "demo: the kill's slope states its window: %s" % mem)
    check(not any("25.4 MiB" in l and "rising" in l for l in mem),
          "demo: no slope from the crash's 3 samples in 36 ms: %s" % mem)
    check(crash["memory"]["slope_kb_per_s"] is None and kill["memory"]["slope_samples"] == 14,
          "demo: the JSON's slopes: %s, %s" % (crash["memory"], kill["memory"]))


def scenarios(lw):
    n = 0
    for d in sorted(glob.glob("fixtures/scenarios/*/bundle")):
        base = os.path.dirname(d)
        args = shlex.split(open(os.path.join(base, "args")).read()) \
            if os.path.exists(os.path.join(base, "args")) else []
        args = [os.path.join(base, a) if a.startswith("rings/") or a.startswith("../") else a
                for a in args]
        for r in report(lw, args + [d])["runs"]:
            invariants("%s pid %s" % (os.path.basename(base), r["pid"]), r)
        n += 1
    return n


def ring_lines():
    """The scenario's ring: its header line and its records."""
    path = glob.glob(os.path.join(SCENARIO, "*.jsonl"))[0]
    lines = [json.loads(l) for l in open(path)]
    return path, lines[0], lines[1:]


def write(path, head, recs):
    with open(path, "w") as f:
        for x in [head] + recs:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")


def big_ring(lw, tmp):
    _, head, recs = ring_lines()
    base = recs[0]
    out = recs[:2]
    t0 = base["t_mono_ns"]
    samples, marks = 40000, 30000
    for i in range(samples):
        rss = 10000 + i * 4
        if i == 12345:
            rss = 900000
        if i == 23456:
            rss = 100
        out.append({"type": "memory", "ticket": len(out), "t_mono_ns": t0 + (i + 1) * 1000000,
                    "tid": base["tid"], "flags": 0, "stage": "none", "rss_kb": rss, "rss_age_ms": 0,
                    "vm_kb": rss + 1000})
        if i < marks:
            out.append({"type": "mark", "ticket": len(out), "t_mono_ns": t0 + (i + 1) * 1000000 + 1000,
                        "tid": base["tid"], "flags": 0, "stage": "none", "rss_kb": rss,
                        "rss_age_ms": 0, "mark": "queue_depth", "value": i})
    head = dict(head, valid=len(out), head=len(out))
    path = os.path.join(tmp, "big.jsonl")
    write(path, head, out)
    r = report(lw, [path])["runs"]
    if not check(len(r) == 1, "big ring: one run"):
        return
    t = r[0]["timeline"]
    pts = t["points"]
    check(t["samples"] >= samples, "big ring: %d samples" % t["samples"])
    check(len(pts) <= 512, "big ring: %d points" % len(pts))
    check(max(p[2] for p in pts) == 900000 and min(p[1] for p in pts) == 100,
          "big ring: the spike and the dip survive: max %d, min %d" %
          (max(p[2] for p in pts), min(p[1] for p in pts)))
    qd = [m for m in t["marks"] if m["mark"] == "queue_depth"]
    check(len(t["marks"]) <= 512 * 12 and sum(m["count"] for m in qd) == marks and len(qd) <= 512,
          "big ring: %d marks (%d queue_depth) for %d" % (len(t["marks"]), len(qd), marks))
    m = r[0]["memory"]
    check(m["slope_samples"] and m["slope_samples"] >= 5 and 9900 <= m["slope_window_ms"] <= 10000,
          "big ring: the slope over the last 10 s: %s" % m)


def clock_step(lw, tmp):
    path, head, recs = ring_lines()
    step = 3600 * 10**9
    recs = [dict(x) for x in recs]
    for x in recs:
        if x["type"] == "stage_begin" and x["stage"] == "inference":
            x["realtime_ns"] += step
    d = os.path.join(tmp, "step")
    os.mkdir(d)
    write(os.path.join(d, os.path.basename(path)), head, recs)
    doc = json.load(open(os.path.join(SCENARIO, "exit-info.json")))
    want = doc["records"][0]["timestamp"] - head["start_real_ns"] // 10**6
    doc["records"][0]["timestamp"] += step // 10**6
    json.dump(doc, open(os.path.join(d, "exit-info.json"), "w"))
    runs = report(lw, [d])["runs"]
    ev = [e for r in runs if r["timeline"] for e in r["timeline"]["evidence"]
          if e["kind"] == "exit_record"]
    check(len(ev) == 1 and abs(ev[0]["t_ms"] - want) < 1,
          "clock step: the exit record at %s ms on the run's clock, expected %d" %
          ([e["t_ms"] for e in ev], want))


def sessions(lw, tmp):
    _, head, recs = ring_lines()
    base = recs[0]
    out = recs[:1]

    def stage(kind, session, ms):
        e = {"type": kind, "ticket": len(out), "t_mono_ns": base["t_mono_ns"] + ms * 1000000,
             "tid": base["tid"], "flags": 0, "stage": "load", "rss_kb": 2000, "rss_age_ms": 0,
             "session": session}
        if kind == "stage_end":
            e["error"] = "none"
        out.append(e)
    stage("stage_begin", 1, 1)
    stage("stage_begin", 2, 2)
    stage("stage_end", 1, 3)
    path = os.path.join(tmp, "sessions.jsonl")
    write(path, dict(head, valid=len(out), head=len(out), format_version=2), out)
    runs = report(lw, [path])["runs"]
    got = [(s["session"], s["end_ms"] is not None) for s in runs[0]["stages"]] if runs else []
    check(got == [(1, True), (2, False)],
          "sessions: session 1's end closes its own load: %s" % got)


def main():
    lw, _ = setup(__doc__)
    demo(lw)
    n = scenarios(lw)
    with tempfile.TemporaryDirectory(prefix="lw-timeline-") as tmp:
        big_ring(lw, tmp)
        clock_step(lw, tmp)
        sessions(lw, tmp)
    return finish("report-timeline: the demo, %d scenarios, a big ring, a clock step, sessions" % n)


sys.exit(main())
