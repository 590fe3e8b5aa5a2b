#!/usr/bin/env python3
"""The stress run: every test of the `stress` suite (tests/meson.build says
which qualify: each test that forks a process and kills it, crashes it or
has it die by a signal), ROUNDS times each in the build BUILD (the
sanitizer build, as CI's), two at a time, as meson test runs them (the same
command, environment, working directory and timeout). Every run is made
whatever an earlier one gave (meson test --repeat stops at the first
failure), so the figures say how often a test fails or hangs.

A run that outlives its timeout is a hang: before it is killed, gdb prints
the stacks of every thread of each of its processes (where gdb is
installed) into BUILD/meson-logs/stress-hangs.txt. A failed run's output
goes to stress-failures.txt. BUILD/meson-logs/stress.json has one line per
run, {"name", "result", "duration"} with meson's result names (OK, SKIP,
FAIL, TIMEOUT): what .ci/run counts. Exits 1 if any run failed or hung.

usage: tests/stress.py BUILD ROUNDS [TEST...]
"""
import collections
import concurrent.futures
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time


def stress_tests(build, names):
    with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
        tests = [t for t in json.load(f) if any(s.endswith(":stress") for s in t["suite"])]
    if names:
        tests = [t for t in tests if t["name"] in names]
    return tests


def pids_of_group(pgid):
    """The processes of a process group (from /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid:
                    out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return sorted(out)


def stacks(pgid):
    """gdb's backtrace of every thread of each process of the group."""
    if not shutil.which("gdb"):
        return "(no gdb: no stacks)\n"
    text = []
    for pid in pids_of_group(pgid):
        try:
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            p = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt"],
                               capture_output=True, text=True, timeout=60)
            text.append("--- pid %d: %s\n%s" % (pid, cmd, p.stdout[-20000:]))
        except (OSError, subprocess.TimeoutExpired) as e:
            text.append("--- pid %d: %s\n" % (pid, e))
    return "".join(text)


class Runner:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.logs = os.path.join(self.build, "meson-logs")
        self.lock = threading.Lock()
        self.results = collections.defaultdict(collections.Counter)
        os.makedirs(self.logs, exist_ok=True)
        self.out = {}
        for name in ("stress.json", "stress-failures.txt", "stress-hangs.txt"):
            self.out[name] = open(os.path.join(self.logs, name), "w")

    def run(self, test, k):
        env = dict(os.environ, **test["env"])
        env["MALLOC_PERTURB_"] = str(random.randint(1, 255))
        start = time.monotonic()
        p = subprocess.Popen(test["cmd"], env=env, cwd=test["workdir"] or self.build,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, start_new_session=True)
        hung = ""
        try:
            out, _ = p.communicate(timeout=test["timeout"])
        except subprocess.TimeoutExpired:
            hung = stacks(p.pid)
            os.killpg(p.pid, signal.SIGKILL)
            out, _ = p.communicate()
        secs = time.monotonic() - start
        if hung:
            result = "TIMEOUT"
        elif p.returncode == 0:
            result = "OK"
        elif p.returncode == 77:
            result = "SKIP"
        else:
            result = "FAIL"
        try:
            os.killpg(p.pid, signal.SIGKILL)  # what it left behind
        except ProcessLookupError:
            pass
        with self.lock:
            self.results[test["name"]][result] += 1
            self.out["stress.json"].write(json.dumps(
                {"name": test["name"], "round": k, "result": result, "duration": round(secs, 2)}) + "\n")
            self.out["stress.json"].flush()
            if result in ("FAIL", "TIMEOUT"):
                print("stress: %s, round %d: %s after %.1f s" % (test["name"], k, result, secs),
                      flush=True)
                f = self.out["stress-hangs.txt" if hung else "stress-failures.txt"]
                f.write("=== %s, round %d: %s after %.1f s (exit %s)\n%s%s\n"
                        % (test["name"], k, result, secs, p.returncode,
                           out.decode(errors="replace")[-20000:], hung))
                f.flush()


def main():
    if len(sys.argv) < 3 or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1:
        print(__doc__.rsplit("usage: ", 1)[1].strip(), file=sys.stderr)
        return 2
    build, rounds = sys.argv[1], int(sys.argv[2])
    tests = stress_tests(build, sys.argv[3:])
    if not tests:
        print("stress: no test of the stress suite in %s" % build, file=sys.stderr)
        return 1
    r = Runner(build)
    start = time.monotonic()
    # Round by round, so that a run of a test is beside other tests' runs;
    # two at a time, as .ci/run's meson test.
    jobs = [(t, k) for k in range(1, rounds + 1) for t in tests]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for f in [pool.submit(r.run, t, k) for t, k in jobs]:
            f.result()
    bad = hangs = 0
    for name in sorted(r.results):
        c = r.results[name]
        n = c["FAIL"] + c["TIMEOUT"]
        bad += n
        hangs += c["TIMEOUT"]
        if n:
            print("stress: %s: %d of %d runs failed, %d of them hangs"
                  % (name, n, sum(c.values()), c["TIMEOUT"]))
    print("stress: %d tests, %d rounds, %d runs in %.0f s: %d failed, %d of them hangs (timeouts)"
          % (len(tests), rounds, len(jobs), time.monotonic() - start, bad, hangs))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
