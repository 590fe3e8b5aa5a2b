#!/usr/bin/env python3
"""Without the probe, real evidence gives verdicts (issue 11): `lastwords
report` on the corpus's dumpsys exit-info dumps, toString() lines and
logcats (../shared/corpus/, real samples from devices), with no ring and no
--package, judges the packages the records name, lists them, and gives each
record a ring-less run with a verdict: the native crash and the
low-memory kills are supported (one system source), the force stops system
reclaim. --fail-on low_memory fails on them (it passed with 0 before:
nothing was judged), and `ingest` stores them (it refused the bundle).
Skips (77) when the corpus is absent.

usage: report-corpus.py LASTWORDS SOURCE_ROOT
"""
import os
import sys
import tempfile

from helpers import check, corpus_or_skip, finish, lastwords, report_json, setup

FILES = ["dumpsys-exit-info-01.txt", "dumpsys-exit-info-03.txt", "dumpsys-exit-info-04.txt",
         "dumpsys-exit-info-06.txt", "exitinfo-tostring-01.txt", "lmkd-01.txt", "am-kill-01.txt",
         "am-died-01.txt", "eventlog-am-01.txt"]

# (process, pid) -> (class, level), read from the samples
WANT = {
    ("com.example.otel_zone_example", 8036): ("native_crash", "supported"),  # APP CRASH(NATIVE)
    ("com.example.otel_zone_example", 8297): ("system_reclaim", "supported"),  # FORCE STOP
    ("com.example.otel_zone_example", 8180): ("system_reclaim", "supported"),
    ("com.termux.x11", 10156): ("low_memory", "supported"),                  # LOW_MEMORY
    ("com.termux.x11", 20019): ("low_memory", "supported"),
    ("com.termux.x11", 14031): ("low_memory", "supported"),
}


def main():
    lw, root = setup(__doc__)
    corpus = corpus_or_skip(root)
    paths = [os.path.join(corpus, f) for f in FILES]
    rep, _ = report_json(lw, paths)  # exits 0, the schema holds
    if not rep:
        return finish("the corpus")
    judged = {p["name"] for p in rep["packages"] if p["why"] == "present"}
    check({"com.example.otel_zone_example", "com.termux.x11"} <= judged,
          "the packages present are judged, and listed: %s" % rep["packages"])
    got = {(r["process"], r["pid"]): (r["classification"], r["evidence_level"]) for r in rep["runs"]}
    for key, want in WANT.items():
        check(got.get(key) == want, "%s pid %d: %s, expected %s" % (key + (got.get(key), want)))
    check(all(r["ring"] == "none" for r in rep["runs"]) and
          sum(1 for r in rep["runs"] if r["classification"]) >= 10,
          "every run is ring-less, and most have a verdict: %d runs" % len(rep["runs"]))
    p = lastwords(lw, ["report", "--fail-on", "low_memory"] + paths)
    check(p.returncode == 3, "--fail-on low_memory fails on the ring-less kills: exit %d" % p.returncode)
    with tempfile.TemporaryDirectory() as d:
        p = lastwords(lw, ["ingest", "--db", os.path.join(d, "h.db"), paths[0]])
        check(p.returncode == 0 and "3 runs: 3 new" in p.stdout,
              "ingest stores a dump's ring-less runs: %d %r %r" % (p.returncode, p.stdout, p.stderr))
    return finish("the corpus's dumps and logcats: %d runs with verdicts" % len(rep["runs"]))


if __name__ == "__main__":
    sys.exit(main())
