#!/usr/bin/env python3
"""The report's sessions and the rules that read them, on real rings: the
real probe's rings that tests/probe-sessions.c leaves (forked children):

- switch.lwr, a process SIGKILLed in the middle of a model switch (session
  2 loading model-b while session 1 still held model-a), with an exit
  record and an lmkd line written for its pid and time: low_memory,
  confirmed; rule switch-overlap names both candidates, the recovery says to
  close the old session before the new one loads and neither candidate is
  isolated or replaced; the JSON's sessions and resident_candidates are
  the ring's session table; the text and HTML show them;
- lapped.lwr, the same switch after enough marks to push every record of
  the opens out of the ring: the session table alone still tells it;
- the switch's JSON lines with session 1 closed before session 2 loads
  (unload first): no switch-overlap, and isolate_candidate is back;
- unpaired.lwr, a clean run that left session 2 open with its load begun:
  no verdict, rule unpaired-stage as a finding in JSON, text and HTML; with
  both closed (its JSON lines edited) no finding.

usage: report-sessions.py LASTWORDS SOURCE_ROOT PROBE_SESSIONS
"""
import json
import os
import shutil
import tempfile
import time

from helpers import check, finish, lastwords, report_json, run, setup

TZ = ["--tz", "+00:00"]


def digest(lw, name):
    return lastwords(lw, ["digest", name]).stdout.split()[0]


def ring_lines(lw, ring):
    p = lastwords(lw, ["dump", "--json", ring])
    check(p.returncode == 0, "dump --json %s: %s" % (ring, p.stderr))
    return [json.loads(x) for x in p.stdout.splitlines()]


def write_lines(path, lines):
    with open(path, "w") as f:
        for x in lines:
            f.write(json.dumps(x, separators=(",", ":")) + "\n")


def write_evidence(d, head, lines):
    """An exit record and lmkd's line for the ring's pid, 200 ms after its
    last record (UTC: the report is given --tz +00:00)."""
    last = max(x.get("realtime_ns") or 0 for x in lines[1:])
    last = max(last, head["start_real_ns"])
    t = (last + 200_000_000) / 1e9
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % (int(t * 1000) % 1000)
    kill = t - 0.03
    kstamp = time.strftime("%m-%d %H:%M:%S", time.gmtime(kill)) + ".%03d" % (int(kill * 1000) % 1000)
    pid, proc = head["pid"], head["process"]
    with open(os.path.join(d, "exit-info.txt"), "w") as f:
        f.write("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
                "  package: com.example.app\n"
                "    Historical Process Exit for uid=10244\n"
                "        ApplicationExitInfo #0:\n"
                "          timestamp=%s pid=%d realUid=10244 packageUid=10244 "
                "definingUid=10244 user=0\n"
                "          process=%s reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
                "          importance=125 pss=0.00 rss=612MB description=null state=32 bytes "
                "trace=null\n" % (stamp, pid, proc))
    with open(os.path.join(d, "logcat.txt"), "w") as f:
        f.write("--------- beginning of main\n"
                "%s   612   612 I lowmemorykiller: Kill '%s' (%d), uid 10244, oom_score_adj 125 "
                "to free 626688kB rss, 20480kB swap; reason: min watermark is breached\n"
                % (kstamp, proc, pid))


def bundle(tmp, name, lines):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    write_lines(os.path.join(d, "ring.jsonl"), lines)
    write_evidence(d, lines[0], lines)
    return d


def switch_checks(lw, what, d, a, b, with_times):
    rep, _ = report_json(lw, TZ + [d])
    if not rep:
        return
    r = rep["runs"][0]
    check((r["classification"], r["evidence_level"]) == ("low_memory", "confirmed"),
          "%s: %s, %s" % (what, r["classification"], r["evidence_level"]))
    check("switch-overlap" in r["rules"] and "concurrency-at-death" in r["rules"],
          "%s: rules %r" % (what, r["rules"]))
    line = [e for e in r["evidence"] if e.startswith("a switch in progress at death")]
    check(line and ("session 2 loading %s" % b) in line[0] and ("session 1 still held %s" % a)
          in line[0], "%s: evidence %r" % (what, r["evidence"]))
    acts = {x["action"]: x["why"] for x in r["recovery"]["actions"]}
    check("isolate_candidate" not in acts and "revert_to_stable" not in acts,
          "%s: the candidate is blamed: %r" % (what, acts))
    why = acts.get("reduce_concurrency", "")
    check(("close session 1 (%s) before session 2 loads %s" % (a, b)) in why,
          "%s: reduce_concurrency says %r" % (what, why))
    check(r["resident_candidates"] == [a, b], "%s: resident %r" % (what, r["resident_candidates"]))
    ses = {s["id"]: s for s in r["sessions"]}
    check(sorted(ses) == [0, 1, 2, 15], "%s: sessions %r" % (what, sorted(ses)))
    if sorted(ses) != [0, 1, 2, 15]:
        return
    check(ses[1]["candidate"] == a and ses[1]["state"] == "open" and
          ses[1]["open_stages"] == ["inference"] and ses[1]["result"] is None,
          "%s: session 1 %r" % (what, ses[1]))
    check(ses[2]["candidate"] == b and ses[2]["open_stages"] == ["load"],
          "%s: session 2 %r" % (what, ses[2]))
    check(ses[15]["state"] == "closed" and ses[15]["result"] == "alloc_failed" and
          (ses[15]["closed_ms"] is not None) == with_times,
          "%s: session 15 %r" % (what, ses[15]))
    check(ses[2]["opened_ms"] is not None and ses[2]["opened_ms"] > ses[1]["opened_ms"],
          "%s: session 2 opened at %r, session 1 at %r" % (what, ses[2]["opened_ms"],
                                                          ses[1]["opened_ms"]))
    if with_times:
        spans = [(s["stage"], s["session"], s["end_ms"] is None) for s in r["stages"]]
        check(spans == [("load", 1, False), ("inference", 1, True), ("load", 2, True)],
              "%s: stages %r" % (what, spans))
    text = lastwords(lw, ["report"] + TZ + [d]).stdout
    check("resident   %s, %s at the end" % (a, b) in text and
          "sessions   1   %s open, inference open" % a in text, "%s: text\n%s" % (what, text))
    html = lastwords(lw, ["report", "--format", "html"] + TZ + [d]).stdout
    check("<h3>Sessions</h3>" in html and "<code>%s</code> <code>%s</code>" % (a, b) in html,
          "%s: the page has no sessions table" % what)


def main():
    lw, root, probe = setup("usage: report-sessions.py LASTWORDS SOURCE_ROOT PROBE_SESSIONS", 1)
    # meson gives the program relative to the build root, and setup() has
    # changed to the source root.
    probe = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", ""), probe)
    tmp = tempfile.mkdtemp(prefix="lw-report-sessions-")
    try:
        keep = os.path.join(tmp, "rings")
        os.makedirs(keep)
        p = run([probe, keep])
        if not check(p.returncode == 0, "probe-sessions %s: %s%s" % (keep, p.stdout, p.stderr)):
            return finish("report-sessions")
        a, b = digest(lw, "model-a"), digest(lw, "model-b")

        sw = ring_lines(lw, os.path.join(keep, "switch.lwr"))
        switch_checks(lw, "switch", bundle(tmp, "switch", sw), a, b, True)
        lapped = ring_lines(lw, os.path.join(keep, "lapped.lwr"))
        check(not any(x["type"] in ("session_open", "stage_begin") for x in lapped[1:]),
              "lapped: records of the opens are left")
        switch_checks(lw, "lapped", bundle(tmp, "lapped", lapped), a, b, False)

        # Unload first: session 1 closed before session 2 loads.
        first = json.loads(json.dumps(sw))
        for s in first[0]["sessions"]:
            if s["id"] == 1:
                s.update(state="closed", open_stage="none", open_stages=[])
        rep, _ = report_json(lw, TZ + [bundle(tmp, "unload-first", first)])
        if rep:
            r = rep["runs"][0]
            acts = [x["action"] for x in r["recovery"]["actions"]]
            check("switch-overlap" not in r["rules"] and r["resident_candidates"] == [b] and
                  "isolate_candidate" in acts,
                  "unload first: rules %r, resident %r, actions %r"
                  % (r["rules"], r["resident_candidates"], acts))

        un = os.path.join(keep, "unpaired.lwr")
        rep, _ = report_json(lw, [un])
        if rep:
            r = rep["runs"][0]
            check(r["classification"] is None and r["rules"] == ["unpaired-stage"] and
                  not r["recovery"]["actions"], "unpaired: %r %r" % (r["classification"], r["rules"]))
            check(any("session 2 (candidate %s) was opened and never closed" % b in e
                      for e in r["evidence"]) and
                  any("load was begun and never ended in session 2" in e for e in r["evidence"]),
                  "unpaired: evidence %r" % r["evidence"])
        text = lastwords(lw, ["report", un]).stdout
        check("findings   unpaired-stage" in text, "unpaired: text\n%s" % text)
        html = lastwords(lw, ["report", "--format", "html", un]).stdout
        check("with a finding for leak investigation" in html and "unpaired-stage" in html,
              "unpaired: the page does not show the finding")
        closed = ring_lines(lw, un)
        for s in closed[0]["sessions"]:
            s.update(state="closed" if s["id"] else s["state"], open_stage="none", open_stages=[])
        closed[0]["open_stage"] = "none"
        path = os.path.join(tmp, "closed.jsonl")
        write_lines(path, closed)
        rep, _ = report_json(lw, [path])
        if rep:
            check(rep["runs"][0]["rules"] == [], "all closed: rules %r" % rep["runs"][0]["rules"])
    finally:
        shutil.rmtree(tmp)
    return finish("report-sessions: a switch, a lapped switch, unload first, unpaired and closed")


if __name__ == "__main__":
    raise SystemExit(main())
