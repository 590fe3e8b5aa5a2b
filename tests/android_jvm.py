"""What the Android helpers' tests share (tests/android-*.py): the stand-in
:inference process, killed mid-inference, and the system's exit records
as tests/java/AndroidHelpers.java reads them."""
import os
import select
import signal
import subprocess
import time

from helpers import check, fatal

PACKAGE = "com.example.app"
PROCESS = PACKAGE + ":inference"


def start_probe(jvm, files, process, sdk=30):
    """Start a process of the app that opens its probe with
    ProcessStateSummary.open() in files and runs until it is killed: the
    child and its "ready" line's words (pid, ring path, run id, summary or
    "-", calls of setProcessStateSummary)."""
    child = subprocess.Popen(jvm.command("AndroidHelpers", ["probe", files, process],
                                         ["-Dandroid.sdk=%d" % sdk]),
                             env=jvm.env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    ready, _, _ = select.select([child.stdout], [], [], 60)
    line = child.stdout.readline() if ready else ""
    if not line.startswith("ready "):
        child.kill()
        fatal("AndroidHelpers probe did not start: %r %r" % (line, child.communicate()[1][-2000:]))
    return child, line.split()[1:]


def killed_run(jvm, files, sdk=30):
    """Run the :inference process (ProcessStateSummary.open() in files) and
    kill it with SIGKILL mid-inference: (pid, ring path, run id, the
    summary the system got or None, calls of setProcessStateSummary, the
    time of the kill)."""
    child, (pid, path, run_id, summary, calls) = start_probe(jvm, files, PROCESS, sdk)
    time.sleep(0.2)
    killed_at = time.time()
    os.kill(int(pid), signal.SIGKILL)
    child.communicate()
    check(child.returncode == -signal.SIGKILL, "the :inference JVM died by SIGKILL: %d"
          % child.returncode)
    return int(pid), path, run_id, None if summary == "-" else summary, int(calls), killed_at


def write_records(path, records):
    """The system's exit records for AndroidHelpers: dicts with pid,
    process, reason, timestamp (ms) and optionally status, importance,
    pss, rss, summary, trace (a file), description."""
    with open(path, "w") as f:
        for r in records:
            f.write("\t".join(str(x) for x in (
                r["pid"], r["process"], r["reason"], r.get("status", 0), r.get("importance", 125),
                r.get("pss", 0), r.get("rss", 0), r["timestamp"], r.get("summary") or "-",
                r.get("trace") or "-", r.get("description") or "-")) + "\n")


def helpers(jvm, args, sdk=30):
    """AndroidHelpers with args at API level sdk: the CompletedProcess."""
    p = jvm.run("AndroidHelpers", args, vm_options=["-Dandroid.sdk=%d" % sdk,
                                                    "-Duser.timezone=Europe/Paris"])
    check(p is not None and p.returncode == 0, "AndroidHelpers %s: %s %s" % (
        " ".join(map(str, args)), p and p.returncode, p and p.stderr[-2000:]))
    return p
