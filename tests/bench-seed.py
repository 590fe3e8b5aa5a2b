#!/usr/bin/env python3
"""Benchmark: `lastwords report --format seed` against the seed script
(../shared/seeds/lifecycle_probe.py) on the same 1M-event JSON, in one run.

usage: bench-seed.py LASTWORDS SOURCE_ROOT [EVENTS]

Each program runs in its own child process; its wall time is taken around
it and its peak memory is GNU time's maximum resident set size (or the
child's ru_maxrss from wait4() without /usr/bin/time). The best
wall time and the largest peak of a few runs are printed, with the ratios
and whether the target (at least 5x faster, at most a fifth of the script's
peak memory) is met. The outputs must be identical, else the figures would
mean nothing: that is the only way this fails. Timing never fails it.
Exit status: 0, 1 when the outputs differ, 77 when the script is absent.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

from helpers import skip

STAGES = ["download", "load", "runtime_prepare", "delegate_prepare",
          "inference", "cache", "exit"]
REASONS = ["none", "low_memory", "anr", "native_crash", "java_crash",
           "system_reclaim", "unknown"]


def write_events(path, n):
    """A valid events file of n events, about 1 in 50 over budget."""
    rng = random.Random(4)
    t = 1_700_000_000_000
    with open(path, "w", encoding="utf-8") as f:
        f.write("[\n")
        for i in range(n):
            t += rng.randint(0, 40)
            budget = rng.choice((512, 768, 1024, 1536))
            rss = rng.randint(budget // 4, budget + budget // 40)
            reason = ""
            if i == n - 1:
                reason = ', "exit_reason": "low_memory"'
            elif rng.random() < 0.05:
                reason = f', "exit_reason": "{rng.choice(REASONS)}"'
            f.write(f'  {{"time_ms": {t}, "stage": "{rng.choice(STAGES)}", "rss_mb": {rss}, '
                    f'"budget_mb": {budget}, "sessions": {rng.randint(0, 4)}{reason}}}'
                    f'{"," if i < n - 1 else ""}\n')
        f.write("]\n")


TIME = "/usr/bin/time"


def measure(cmd, out_path, tmp):
    """Wall seconds, peak RSS in KiB, exit status, stderr; stdout goes to
    out_path. The peak is GNU time's %M when /usr/bin/time is there, else
    the child's ru_maxrss from wait4(), which also counts what the child
    had before exec, a copy of this script's pages (about 15 MiB)."""
    use_time = os.access(TIME, os.X_OK)
    time_out = os.path.join(tmp, "time.out")
    if use_time:
        cmd = [TIME, "-f", "%M", "-o", time_out] + cmd
    with open(out_path, "wb") as out:
        start = time.monotonic()
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
        err = p.stderr.read()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - start
        p.stderr.close()
    peak = usage.ru_maxrss
    if use_time:
        with open(time_out) as f:
            peak = int(f.read().split()[-1])
    return wall, peak, os.waitstatus_to_exitcode(status), err


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: bench-seed.py LASTWORDS SOURCE_ROOT [EVENTS]", file=sys.stderr)
        return 2
    lastwords = os.path.abspath(sys.argv[1])
    oracle = os.path.normpath(os.path.join(sys.argv[2], "..", "shared", "seeds",
                                           "lifecycle_probe.py"))
    n = int(sys.argv[3]) if len(sys.argv) == 4 else 1_000_000
    if not os.path.isfile(oracle):
        skip(f"the seed script {oracle} is absent")
    tmp = tempfile.mkdtemp(prefix="bench-seed-")
    try:
        events = os.path.join(tmp, "events.json")
        t0 = time.monotonic()
        write_events(events, n)
        size = os.path.getsize(events)
        print(f"bench-seed: {n} events, {size / 1e6:.1f} MB of JSON "
              f"(written in {time.monotonic() - t0:.1f} s)")
        runs = {"script": ([sys.executable, oracle, events], 2),
                "lastwords": ([lastwords, "report", "--format", "seed", events], 3)}
        figures = {}
        outputs = {}
        for name, (cmd, times) in runs.items():
            best, peak = None, 0
            for k in range(times):
                out_path = os.path.join(tmp, f"{name}.out")
                wall, rss, rc, err = measure(cmd, out_path, tmp)
                if rc != 0:
                    print(f"bench-seed: {name} failed with status {rc}: "
                          f"{err.decode(errors='replace').strip()[-300:]}")
                    return 1
                best = wall if best is None else min(best, wall)
                peak = max(peak, rss)
            with open(out_path, "rb") as f:
                outputs[name] = f.read()
            figures[name] = (best, peak)
        if outputs["script"] != outputs["lastwords"]:
            print("bench-seed: the outputs differ; the figures mean nothing")
            return 1
        over = outputs["script"].count(b'"index"')
        print(f"outputs identical ({len(outputs['script'])} bytes, {over} over budget)")
        how = "GNU time %M" if os.access(TIME, os.X_OK) else "wait4 ru_maxrss"
        print(f"best wall time and largest peak RSS ({how}) of 2 script runs and 3 lastwords runs")
        print()
        print(f"{'program':<22}{'wall (s)':>10}{'peak RSS (MiB)':>16}")
        for name, label in (("script", "lifecycle_probe.py"), ("lastwords", "lastwords --format seed")):
            wall, rss = figures[name]
            print(f"{label:<22}{wall:>10.3f}{rss / 1024:>16.1f}")
        sw, sm = figures["script"]
        lw, lm = figures["lastwords"]
        speed = sw / lw if lw > 0 else float("inf")
        mem = lm / sm if sm > 0 else float("inf")
        print()
        print(f"speed-up:      {speed:.1f}x   (target >= 5x)   {'met' if speed >= 5 else 'not met'}")
        print(f"memory ratio:  {mem:.3f}    (target <= 0.2)  {'met' if mem <= 0.2 else 'not met'}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
