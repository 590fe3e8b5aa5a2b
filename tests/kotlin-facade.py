#!/usr/bin/env python3
"""The Java facade from Kotlin: tests/kotlin/ProbeConfig.kt, compiled by
Debian's kotlinc against lastwords.jar and run on the JVM, opens the probe
through Probe.Config's named calls (as Probe.Config's Javadoc shows it)
and checks the builder's refusals; its ring then holds what the Config
said (`lastwords dump --json`): the version code, the budget, RSS from the
sampler thread, and a clean close. Skips (77) without a JDK or kotlinc.

usage: kotlin-facade.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from helpers import check, fail, finish, lastwords, setup, skip
from jvm import jvm_or_skip


def main():
    lw, src = setup("usage: kotlin-facade.py LASTWORDS SOURCE_ROOT")
    jvm = jvm_or_skip()
    kotlinc = shutil.which("kotlinc")
    stdlib = sorted(glob.glob("/usr/share/java/kotlin-stdlib.jar"))
    if not kotlinc or not stdlib:
        skip("no kotlinc and kotlin-stdlib.jar (Debian's kotlin): .ci/install-deps --tests")
    tmp = tempfile.TemporaryDirectory(prefix="lw-kotlin-")
    out = os.path.join(tmp.name, "classes")
    c = subprocess.run([kotlinc, os.path.join(src, "tests", "kotlin", "ProbeConfig.kt"),
                        "-cp", jvm.jar, "-d", out], capture_output=True, text=True, timeout=50)
    errors = [x for x in c.stderr.splitlines() if ": error: " in x or x.startswith("error:")]
    if not check(c.returncode == 0 and not errors, "kotlinc compiles ProbeConfig.kt against "
                 "lastwords.jar: exit %d\n%s" % (c.returncode, "\n".join(errors or
                                                                    c.stderr.splitlines()[-20:]))):
        return finish("Kotlin did not compile")
    files = os.path.join(tmp.name, "files")
    os.mkdir(files)
    cmd = [jvm.java, "-cp", ":".join([out, jvm.jar, stdlib[0]]),
           "-Djava.library.path=" + jvm.lib_path, "ProbeConfigKt", files]
    p = subprocess.run(cmd, env=jvm.env(), capture_output=True, text=True, timeout=30)
    for line in p.stdout.splitlines():
        if line.startswith("FAIL: "):
            fail("ProbeConfig.kt: " + line[6:])
    check(p.returncode == 0, "ProbeConfigKt exits %d: %s" % (p.returncode, p.stderr[-2000:]))
    rings = [x.split(" ", 1)[1] for x in p.stdout.splitlines() if x.startswith("ring ")]
    if not check(len(rings) == 1 and os.path.exists(rings[0]),
                 "ProbeConfigKt names its ring: %r" % p.stdout[-500:]):
        return finish("no ring")
    d = lastwords(lw, ["dump", "--json", rings[0]])
    check(d.returncode == 0, "dump --json exits %d: %s" % (d.returncode, d.stderr))
    lines = [json.loads(x) for x in d.stdout.splitlines() if x.strip()]
    head, recs = (lines[0], lines[1:]) if lines else ({}, [])
    check(head.get("process") == "com.example.kt:inference" and head.get("app_version") == 312
          and head.get("memory_budget_kb") == 512 * 1024,
          "the ring holds the Config's process, version and budget: %r"
          % {k: head.get(k) for k in ("process", "app_version", "memory_budget_kb")})
    check(any(r.get("flags", 0) & 1 for r in recs),  # LW_SLOT_F_RSS_SAMPLED
          "the Config's sampler period started the sampler: no record's RSS is sampled")
    stages = [(r["type"], r["stage"]) for r in recs if r["type"] in ("stage_begin", "stage_end")]
    check(stages == [("stage_begin", "load"), ("stage_end", "load"),
                     ("stage_begin", "inference"), ("stage_end", "inference")],
          "the ring holds Kotlin's stages: %r" % stages)
    check(head.get("outcome") == "clean", "the run ended cleanly: %r" % head.get("outcome"))
    ok = [x for x in p.stdout.splitlines() if x.startswith("ok ")]
    return finish("Probe.Config from Kotlin (%s)" % (ok[0] if ok else "no summary"))


if __name__ == "__main__":
    sys.exit(main())
