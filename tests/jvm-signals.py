#!/usr/bin/env python3
"""The probe's crash handler under HotSpot, whose own handler takes SIGSEGV
for its implicit null checks (tests/java/JvmSignals.java):

  - With libjsig.so preloaded (HotSpot's signal chaining), a hot loop of
    caught NullPointerExceptions, JIT-compiled, writes no crash record: the
    JVM's handler runs first and the probe's only gets the signals the JVM
    does not handle. A real native crash in a JNI call writes exactly one,
    and the JVM still dies as it does without the probe (HotSpot writes
    hs_err_pid*.log, naming the SIGSEGV, then aborts) and writes its
    hs_err file.
  - Without libjsig, installCrashHandler() refuses with an
    IllegalStateException that names libjsig.so, and the loop then writes
    no crash record. The same loop with the handler installed anyway
    (lw_crash_install() directly) writes a bogus crash record and silences
    the probe: the check is what keeps that from happening.

Skips (77) without a JDK.

usage: jvm-signals.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import glob
import json
import os
import signal
import sys
import tempfile

from helpers import check, finish, lastwords, setup
from jvm import jvm_or_skip

ROUNDS = 200000


def ring_records(lw, folder):
    """(the ring's header line, its records) from `lastwords dump --json`."""
    rings = glob.glob(os.path.join(folder, "*.lwr"))
    if not check(len(rings) == 1, "one ring in %s: %r" % (folder, rings)):
        return {}, []
    p = lastwords(lw, ["dump", "--json", rings[0]])
    check(p.returncode == 0, "dump --json exits %d: %s" % (p.returncode, p.stderr))
    lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
    return lines[0], lines[1:]


def crashes(records):
    return [r for r in records if r["type"] == "crash"]


def run(jvm, lw, tmp, name, mode, jsig):
    """Run JvmSignals MODE in a fresh folder; (process, ring header, records)."""
    folder = os.path.join(tmp, name)
    os.mkdir(folder)
    # The JIT's log goes to stderr: on stdout, HotSpot writes a compilation
    # line in pieces, and the program's own line could land inside one
    # (seen in a stress run: the "refused: " line did not start a line).
    p = jvm.run("JvmSignals", [folder, mode], jsig=jsig, cwd=folder,
                vm_options=["-XX:+PrintCompilation", "-XX:+DisplayVMOutputToStderr",
                            "-XX:ErrorFile=" + os.path.join(folder, "hs_err_pid%p.log")])
    if p is None:
        return None, {}, []
    head, records = ring_records(lw, folder)
    return p, head, records


def npe_loop(jvm, lw, tmp):
    # With libjsig: the handler installs, the JIT-compiled loop writes no crash.
    p, head, records = run(jvm, lw, tmp, "npe-jsig", "npe", jsig=True)
    if p:
        check(p.returncode == 0, "npe with libjsig exits %d: %s" % (p.returncode, p.stderr[-2000:]))
        check("installed" in p.stdout.splitlines(), "installCrashHandler() with libjsig: %r"
              % p.stdout[:300])
        check("caught %d" % (ROUNDS // 2) in p.stdout, "the loop caught its NPEs")
        check("JvmSignals::touch" in p.stderr, "the loop's method was JIT-compiled")
        check(not crashes(records), "no crash record with libjsig: %r" % crashes(records))
        check(head.get("outcome") == "clean", "the run ended cleanly: %r" % head.get("outcome"))

    # Without: refused, and then no crash record either.
    p, head, records = run(jvm, lw, tmp, "npe-bare", "npe", jsig=False)
    if p:
        check(p.returncode == 0, "npe without libjsig exits %d: %s"
              % (p.returncode, p.stderr[-2000:]))
        refused = [x for x in p.stdout.splitlines() if x.startswith("refused: ")]
        check(refused and "libjsig.so" in refused[0] and "LD_PRELOAD=" in refused[0],
              "installCrashHandler() without libjsig refuses, naming libjsig.so: %r"
              % p.stdout[:500])
        check(not crashes(records), "no crash record when refused: %r" % crashes(records))
        check(head.get("outcome") == "clean", "the run ended cleanly: %r" % head.get("outcome"))

    # What the refusal prevents: installed in front of the JVM's handler,
    # the probe takes the first null check for a crash and stops writing.
    p, head, records = run(jvm, lw, tmp, "npe-forced", "npe-forced", jsig=False)
    if p:
        check(p.returncode == 0 and "forced 0" in p.stdout,
              "npe-forced exits %d: %r" % (p.returncode, p.stdout[:300]))
        check(len(crashes(records)) == 1 and head.get("outcome") == "crashed",
              "the unchecked handler records the JVM's own SIGSEGV as a crash: %r %r"
              % (head.get("outcome"), crashes(records)))


def hs_err(folder, pid):
    path = os.path.join(folder, "hs_err_pid%d.log" % pid)
    if not check(os.path.exists(path), "the JVM wrote %s: %r" % (path, os.listdir(folder))):
        return ""
    with open(path, errors="replace") as f:
        return f.read()


def native_crash(jvm, lw, tmp):
    # The death without the probe's handler, to compare with.
    bare, head, records = run(jvm, lw, tmp, "native-bare", "native-bare", jsig=True)
    if not bare:
        return
    check(bare.returncode < 0, "the JVM dies by a signal: %d" % bare.returncode)
    check(not crashes(records), "no crash record without the handler")

    p, head, records = run(jvm, lw, tmp, "native", "native", jsig=True)
    if not p:
        return
    check("installed" in p.stdout.splitlines(), "installCrashHandler() with libjsig: %r"
          % p.stdout[:300])
    check("survived" not in p.stdout, "the native crash did not return")
    check(p.returncode == bare.returncode,
          "the JVM dies as without the probe: by signal %d, bare %d"
          % (-p.returncode, -bare.returncode))
    c = crashes(records)
    if check(len(c) == 1, "exactly one crash record: %r" % c):
        check((c[0]["signo"], c[0]["si_code_name"], c[0]["fault_addr"], c[0]["stage"])
              == (signal.SIGSEGV, "SEGV_MAPERR", "0x10", "delegate_prepare"),
              "the crash record is the JNI call's SIGSEGV at 0x10 in delegate_prepare: %r" % c[0])
    check(head.get("outcome") == "crashed" and head.get("signal") == "SIGSEGV",
          "the ring says crashed by SIGSEGV: %r %r" % (head.get("outcome"), head.get("signal")))
    text = hs_err(os.path.join(tmp, "native"), head.get("pid", 0))
    check("SIGSEGV" in text and "si_addr: 0x0000000000000010" in text,
          "hs_err names the SIGSEGV at 0x10")
    check("lastwords_jnitest" in text, "hs_err names the crashing library")


def main():
    lw, _ = setup("usage: jvm-signals.py LASTWORDS SOURCE_ROOT")
    jvm = jvm_or_skip()
    tmp = tempfile.TemporaryDirectory(prefix="lw-jvm-signals-")
    npe_loop(jvm, lw, tmp.name)
    native_crash(jvm, lw, tmp.name)
    return finish("HotSpot's own SIGSEGVs: no crash record (libjsig) or refused (without); "
                  "a JNI crash: one record, hs_err, the JVM's own death")


if __name__ == "__main__":
    sys.exit(main())
