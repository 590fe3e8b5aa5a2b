#!/usr/bin/env python3
"""The Java facade's contract on a real JVM (tests/java/JvmApi.java checks
the calls, their exceptions and the closed probe), then its first ring as
`lastwords dump --json` reads it: the candidates Java recorded carry the
digests of their names' UTF-8 (String.getBytes), the same as `lastwords
digest NAME` gives, its one peer_died mark holds the pid and the digest
of the name (UTF-8) it was given, and nothing follows the close record:
events after close() were ignored. The ring of the close that raced four
recording threads is whole and ended cleanly. Skips (77) without a JDK.

usage: jvm-api.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import json
import os
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup
from jvm import jvm_or_skip


def records(lw, path):
    p = lastwords(lw, ["dump", "--json", path])
    check(p.returncode == 0, "dump --json %s exits %d: %s" % (path, p.returncode, p.stderr))
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    return (lines[0], lines[1:]) if lines else ({}, [])


def main():
    lw, _ = setup("usage: jvm-api.py LASTWORDS SOURCE_ROOT")
    jvm = jvm_or_skip()
    tmp = tempfile.TemporaryDirectory(prefix="lw-jvm-api-")
    p = jvm.run("JvmApi", [tmp.name])
    if p is None:
        return finish("JvmApi did not finish")
    for line in p.stdout.splitlines():
        if line.startswith("FAIL: "):
            fail("JvmApi", line[6:])
    check(p.returncode == 0, "JvmApi exits %d: %s" % (p.returncode, p.stderr[-2000:]))
    ok = [x for x in p.stdout.splitlines() if x.startswith("ok ")]
    digests = [x.split()[1] for x in p.stdout.splitlines() if x.startswith("digest ")]
    rings = [x.split(" ", 1)[1] for x in p.stdout.splitlines() if x.startswith("ring ")]
    peers = [x.split()[1:] for x in p.stdout.splitlines() if x.startswith("peer ")]
    if not check(len(rings) == 1 and digests, "JvmApi names its ring and digests"):
        return finish("JvmApi: no ring")

    head, recs = records(lw, rings[0])
    # The first probe was opened through Probe.Config (JvmApi.java).
    check(head.get("app_version") == 7 and head.get("memory_budget_kb") == 256 * 1024,
          "the Config's version and budget are the ring's: %r"
          % {k: head.get(k) for k in ("app_version", "memory_budget_kb")})
    sampled = [r for r in recs if r.get("flags", 0) & 1]  # LW_SLOT_F_RSS_SAMPLED
    check(sampled, "the Config's sampler period started the sampler: no record's RSS is sampled")
    got = [r["candidate"] for r in recs if r["type"] == "candidate"]
    check(got == digests, "the ring's candidates are the names' digests:\n%r\n%r" % (got, digests))
    got = [(r["pid"], int(r["process_digest"], 16)) for r in recs if r.get("mark") == "peer_died"]
    want = [(int(p[0]), int(p[1], 16)) for p in peers]
    check(len(want) == 1 and got == want,
          "the ring's peer_died marks hold the pid and the name's digest Java gave: %r, %r"
          % (got, want))
    d = lastwords(lw, ["digest", "model-v7-int8"]).stdout.split()
    check(d and d[0] == digests[0], "lastwords digest gives Java's digest: %r %r" % (d, digests[0]))
    check(recs and recs[-1]["type"] == "close", "the close record is the newest: %r"
          % (recs[-1] if recs else None))
    check(head.get("outcome") == "clean", "the first run ended cleanly: %r" % head.get("outcome"))

    others = sorted(f for f in os.listdir(tmp.name) if f.endswith(".lwr")
                    and os.path.join(tmp.name, f) != rings[0])
    if check(len(others) == 1, "one more ring, the racing close's: %r" % others):
        head, recs = records(lw, os.path.join(tmp.name, others[0]))
        check(head.get("outcome") == "clean" and head.get("torn") == 0
              and head.get("corrupt") == 0, "the racing close's ring is whole and clean: %r"
              % {k: head.get(k) for k in ("outcome", "torn", "corrupt", "valid")})
        check(recs and recs[-1]["type"] == "close", "its close record is the newest")
    return finish("the facade's calls, exceptions and close on a JVM (%s)"
                  % (ok[0] if ok else "no summary"))


if __name__ == "__main__":
    sys.exit(main())
