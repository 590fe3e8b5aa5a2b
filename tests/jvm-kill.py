#!/usr/bin/env python3
"""A Java program on a real JVM (HotSpot) opens the probe through the facade
(lastwords.jar, liblastwords_jni.so), runs the stages of a model, and is
killed with SIGKILL mid-inference. `lastwords dump` reads its ring: the run
died in inference, with the candidate's digest, the stages and the marks
Java recorded. With the system's witnesses of that pid written beside it in
their real formats (a dumpsys exit-info record of REASON_LOW_MEMORY and an
lmkd kill line in logcat), `lastwords report` gives a confirmed low_memory
verdict in inference. Skips (77) without a JDK.

usage: jvm-kill.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

from helpers import check, fatal, finish, lastwords, report_json, setup
from jvm import jvm_or_skip

PACKAGE = "com.example.jvm"
PROCESS = PACKAGE + ":inference"
UID = 10231


def dumpsys_time(t):
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % (t % 1 * 1000)


def logcat_time(t):
    return time.strftime("%m-%d %H:%M:%S", time.gmtime(t)) + ".%03d" % (t % 1 * 1000)


def witnesses(folder, pid, killed_at):
    """The exit record and the lmkd line of the kill, as a device prints
    them (fixtures/scenarios/lmk-confirmed), in UTC; the summary's 32 bytes
    are the run id that the app hands to setProcessStateSummary()."""
    with open(os.path.join(folder, "exit-info.txt"), "w") as f:
        f.write("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
                "Last Timestamp of Persistence Into Persistent Storage: %s\n"
                "  package: %s\n"
                "    Historical Process Exit for uid=%d\n"
                "        ApplicationExitInfo #0:\n"
                "          timestamp=%s pid=%d realUid=%d packageUid=%d definingUid=%d user=0\n"
                "          process=%s reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) status=0\n"
                "          importance=125 pss=0.00 rss=96MB description=null state=32 bytes "
                "trace=null\n"
                % (dumpsys_time(killed_at - 3600), PACKAGE, UID, dumpsys_time(killed_at + 0.04),
                   pid, UID, UID, UID, PROCESS))
    with open(os.path.join(folder, "logcat.txt"), "w") as f:
        f.write("--------- beginning of main\n"
                "%s   612   612 I lowmemorykiller: Kill '%s' (%d), uid %d, oom_score_adj 125 "
                "to free 98304kB rss, 0kB swap; reason: min watermark is breached\n"
                "%s  1580  1612 I ActivityManager: Process %s (pid %d) has died: fg  FGS\n"
                % (logcat_time(killed_at + 0.02), PROCESS, pid, UID,
                   logcat_time(killed_at + 0.03), PROCESS, pid))


def main():
    lw, _ = setup("usage: jvm-kill.py LASTWORDS SOURCE_ROOT")
    jvm = jvm_or_skip()
    tmp = tempfile.TemporaryDirectory(prefix="lw-jvm-kill-")
    bundle = tmp.name
    rings = os.path.join(bundle, "rings")
    os.mkdir(rings)

    child = subprocess.Popen(jvm.command("JvmKill", [rings, PROCESS]), env=jvm.env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([child.stdout], [], [], 60)
    line = child.stdout.readline() if ready else ""
    if not line.startswith("ready "):
        child.kill()
        fatal("JvmKill did not start: %r %r" % (line, child.communicate()[1][-2000:]))
    _, pid, path, run_id = line.split()
    pid = int(pid)
    check(pid == child.pid, "the JVM's pid is %d, the launcher's %d" % (pid, child.pid))
    check(len(run_id) == 32 and all(c in "0123456789abcdef" for c in run_id),
          "runId() is 32 hex digits: %r" % run_id)
    check(os.path.dirname(path) == rings and path.endswith(".%d.lwr" % pid),
          "path() is the ring in the dir given: %r" % path)
    time.sleep(0.3)  # queue depth marks, inside the inference
    killed_at = time.time()
    os.kill(pid, signal.SIGKILL)
    child.communicate()
    check(child.returncode == -signal.SIGKILL, "the JVM died by SIGKILL: %d" % child.returncode)

    p = lastwords(lw, ["dump", path])
    check(p.returncode == 0, "dump exits %d: %s" % (p.returncode, p.stderr))
    digest = lastwords(lw, ["digest", "model-v7-int8"]).stdout.split()[0]
    for want in ("died without a clean exit or crash record", "inference was open",
                 "begin load", "end runtime_prepare", "mark delegate", "gpu",
                 "begin inference", "end inference", "mark queue_depth", digest):
        check(want in p.stdout, "dump says %r:\n%s" % (want, p.stdout[-3000:]))
    check(p.stdout.count("mark queue_depth") >= 3, "dump has the marks made until the kill")

    witnesses(bundle, pid, killed_at)
    rep, _ = report_json(lw, ["--tz", "+00:00", bundle])
    runs = [r for r in (rep or {}).get("runs", []) if r.get("pid") == pid]
    if check(len(runs) == 1, "report has the JVM's run: %r" % (rep or {}).get("runs")):
        r = runs[0]
        check((r["classification"], r["evidence_level"]) == ("low_memory", "confirmed"),
              "the verdict is confirmed low_memory: %s %s, rules %s, missing %s"
              % (r["classification"], r["evidence_level"], r.get("rules"), r.get("missing")))
        check(r["last_stage"] == "inference", "the report's stage is inference: %r"
              % r["last_stage"])
        check(r["process"] == PROCESS, "the report's process: %r" % r["process"])
    p = lastwords(lw, ["report", "--tz", "+00:00", bundle])
    check(p.returncode == 0 and "confirmed" in p.stdout and "low_memory" in p.stdout,
          "the text report says confirmed low_memory: %d\n%s" % (p.returncode, p.stdout[-3000:]))
    return finish("a JVM killed mid-inference (pid %d): its ring read, confirmed low_memory"
                  % pid)


if __name__ == "__main__":
    sys.exit(main())
