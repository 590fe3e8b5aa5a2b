#!/usr/bin/env python3
"""The main process's peer_died mark as a witness (rule peer-died), on
variants of the bundles of fixtures/scenarios/peer-died-*, whose rings are
the real probe's (fixtures/rings/peer-*.lwr, from tests/fixture-rings.c):

- it joins the run of its pid whose process name has its digest, and whose
  death window holds its time: another digest, another pid, or a time well
  before the run's last record join nothing;
- it ends the run's window at its time: the record of pid 24508 25 minutes
  later is another death (a ring-less run) with the mark, and the run's own
  without it;
- it supports the ring's account and never confirms: alone with the ring's
  memory it leaves low memory unconfirmed (an OOM needs the system's or an
  allocation's evidence, issue 23), with one system source it is supported,
  with none and no claim of the ring's class unknown and unconfirmed;
- it joins a ring-less run of its pid and package too;
- the JSON report's run has peer_died (the ring, its record, who saw the
  death, when), the HTML page shows it, and ingest stores the rule.

usage: report-peer-died.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile

from helpers import check, finish, lastwords, setup

SCENARIOS = "fixtures/scenarios"
MAIN = "com.example.demo.20261201T184405.379Z.24507.jsonl"
PEER = "com.example.demo_inference.20261201T184405.383Z.24508.jsonl"
PROCESS = "com.example.demo:inference"
TZ = ["--tz", "+01:00"]


def report(lw, inputs, fmt="json"):
    p = lastwords(lw, ["report", "--format", fmt] + TZ + inputs)
    check(p.returncode == 0, "report %s exits %d: %s" % (inputs, p.returncode, p.stderr))
    return json.loads(p.stdout) if fmt == "json" else p.stdout


def runs_of(rep, process=PROCESS):
    return [r for r in rep["runs"] if r["process"] == process]


def edit_ring(path, edit):
    """Rewrite the ring of JSON lines at path with edit(lines), which
    changes the parsed lines in place or returns new ones."""
    with open(path) as f:
        lines = [json.loads(x) for x in f if x.strip()]
    lines = edit(lines) or lines
    with open(path, "w") as f:
        f.write("".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines))


def variant(tmp, name, scenario, edit=None, drop=()):
    """A copy of a scenario's bundle; edit(lines) changes the main ring's
    records; files named in drop are left out."""
    d = os.path.join(tmp, name)
    shutil.copytree(os.path.join(SCENARIOS, scenario, "bundle"), d)
    for f in drop:
        os.remove(os.path.join(d, f))
    if edit:
        edit_ring(os.path.join(d, MAIN), edit)
    return d


def mark(lines):
    return [x for x in lines if x.get("mark") == "peer_died"][0]


def main():
    lw, _ = setup(__doc__)
    tmp = tempfile.TemporaryDirectory(prefix="lw-peer-died-")

    # The scenarios' rings are the real probe's (tests/fixture-rings.c):
    # dump --json of fixtures/rings/peer-*.lwr under their own names.
    for scenario in ("peer-died-supported", "peer-died-confirmed"):
        for name, ring in ((MAIN, "peer-main"), (PEER, "peer-inference")):
            want = lastwords(lw, ["dump", "--json", "fixtures/rings/%s.lwr" % ring]).stdout
            want = want.replace('"file":"fixtures/rings/%s.lwr"' % ring,
                                '"file":"%s"' % name.replace(".jsonl", ".lwr"))
            with open(os.path.join(SCENARIOS, scenario, "bundle", name)) as f:
                check(f.read() == want, "%s/bundle/%s is dump --json of fixtures/rings/%s.lwr"
                      % (scenario, name, ring))

    # With the mark: the run's own verdict, and the late record is another
    # death. Without it: that record joins the run, whose window is open.
    rep = report(lw, [os.path.join(SCENARIOS, "peer-died-supported", "bundle")])
    ringed = [r for r in runs_of(rep) if r["ring"] == "probe"]
    ringless = [r for r in runs_of(rep) if r["ring"] == "none"]
    p = ringed[0]["peer_died"] if ringed and "peer_died" in ringed[0] else {}
    check(p.get("process") == "com.example.demo" and p.get("pid") == 24507
          and p.get("ticket") == 2 and p.get("time") == "2026-12-01T18:44:05.490185Z"
          and p.get("file", "").endswith(MAIN), "the run's peer_died: %r" % p)
    check(not any("peer_died" in r for r in rep["runs"] if r is not ringed[0]),
          "only the dead run has a peer_died")
    check(len(ringless) == 1 and ringless[0]["classification"] == "system_reclaim"
          and ringed[0]["exit_records"] == [], "the late record is a death of its own: %r"
          % [(r["ring"], r["classification"], len(r["exit_records"])) for r in runs_of(rep)])
    d = variant(tmp.name, "no-main", "peer-died-supported", drop=[MAIN])
    alone = runs_of(report(lw, [d]))
    check(len(alone) == 1 and len(alone[0]["exit_records"]) == 1
          and alone[0]["classification"] == "system_reclaim" and "peer_died" not in alone[0],
          "without the mark the late record joins the run: %r"
          % [(r["classification"], len(r["exit_records"])) for r in alone])

    # What the mark must name: the digest, the pid, a time at the run's end.
    def other_digest(lines):
        mark(lines)["process_digest"] = "0123456789abcdef"

    def other_pid(lines):
        mark(lines)["value"] = mark(lines)["pid"] = 24509

    def too_early(lines):
        mark(lines)["t_mono_ns"] -= 10 ** 10  # 10 s before the run's last record

    for name, edit in (("other-digest", other_digest), ("other-pid", other_pid),
                       ("too-early", too_early)):
        got = runs_of(report(lw, [variant(tmp.name, name, "peer-died-supported", edit)]))
        check(len(got) == 1 and "peer_died" not in got[0] and len(got[0]["exit_records"]) == 1
              and "peer-died" not in got[0]["rules"],
              "%s: the mark names no run: %r" % (name, [(r["rules"], len(r["exit_records"]))
                                                       for r in got]))

    # Supports, never confirms: with one system source (the exit record,
    # no lmkd line) the level stays supported.
    d = variant(tmp.name, "one-source", "peer-died-confirmed", drop=["logcat.txt"])
    got = runs_of(report(lw, [d]))
    check(len(got) == 1 and got[0]["evidence_level"] == "supported"
          and got[0]["rules"] == ["aei-low-memory", "ring-memory-pressure", "peer-died"],
          "one system source and the mark: %r" % [(r["rules"], r["evidence_level"]) for r in got])

    # With no budget the ring claims no class: the mark gives none.
    def no_budget(lines):
        lines[0]["memory_budget_kb"] = 0
        return [x for x in lines if x.get("mark") != "budget"]

    d = variant(tmp.name, "no-claim", "peer-died-supported", drop=["exit-info.txt"])
    edit_ring(os.path.join(d, PEER), no_budget)
    got = runs_of(report(lw, [d]))
    check(len(got) == 1 and got[0]["classification"] == "unknown"
          and got[0]["evidence_level"] == "unconfirmed"
          and got[0]["rules"] == ["peer-died", "no-exit-record"],
          "no claim of the ring's: %r" % [(r["rules"], r["classification"], r["evidence_level"])
                                          for r in got])

    # A ring-less run of the pid: its exit record and the mark, no ring.
    d = variant(tmp.name, "ringless", "peer-died-confirmed", drop=[PEER, "logcat.txt"])
    got = runs_of(report(lw, [d]))
    check(len(got) == 1 and got[0]["ring"] == "none" and "peer_died" in got[0]
          and got[0]["rules"] == ["aei-low-memory", "peer-died", "no-ring"]
          and got[0]["evidence_level"] == "supported",
          "a ring-less run gets the mark: %r" % [(r["ring"], r["rules"], r["evidence_level"])
                                                 for r in got])

    # The HTML page says when the main process saw the death.
    html = report(lw, [os.path.join(SCENARIOS, "peer-died-supported", "bundle")], "html")
    check("<th>seen dying</th><td>2026-12-01 18:44:05.490 UTC by com.example.demo (pid 24507, "
          "peer_died)</td>" in html, "the HTML page shows the peer_died witness")

    # ingest stores the rule and its evidence line like any other.
    db = os.path.join(tmp.name, "history.db")
    p = lastwords(lw, ["ingest", "--db", db] + TZ + [os.path.join(SCENARIOS, "peer-died-supported",
                                                                  "bundle")])
    check(p.returncode == 0, "ingest exits %d: %s" % (p.returncode, p.stderr))
    with sqlite3.connect(db) as c:
        rules = [r[0] for r in c.execute("SELECT text FROM run_line WHERE kind = 'rule'")]
        lines = [r[0] for r in c.execute("SELECT text FROM run_line WHERE kind = 'evidence'")]
    check("peer-died" in rules and any(x.startswith("peer_died: com.example.demo") for x in lines),
          "the history holds the rule and its line: %r" % rules)
    return finish("the peer_died witness")


if __name__ == "__main__":
    sys.exit(main())
