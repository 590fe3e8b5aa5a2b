#!/usr/bin/env python3
"""bench-symbols: `lastwords report --symbols` on a tombstone of 64
threads and 10,000 frames against a library of about 50 MB of DWARF
(generated C, 19 compilation units built with -g -O0, about three minutes
of compiling on two cores), and the same report without --symbols in the
same run, the anchor. Prints the median and the spread of 5 runs of each,
and the target (issue 24: under a second with --symbols). Checks that the
frames were symbolicated (every frame in the library, with its function's
name); never fails on timing.

usage: bench-symbols.py LASTWORDS SOURCE_ROOT
"""
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from helpers import check, finish, lastwords, setup

UNITS = 19
FUNCTIONS = 6000          # per unit
THREADS = 64
FRAMES = 10000
TARGET_S = 1.0
RUNS = 5
PROCESS = "com.example.bench:inference"


def unit_source(u):
    out = ["volatile int sink%d;" % u]
    for i in range(FUNCTIONS):
        n = "%d_%d" % (u, i)
        out.append("struct s%s { int a; long b; double c[4]; struct s%s *next; char name[16]; };"
                   % (n, n))
        out.append("static inline __attribute__((always_inline)) int helper%s(struct s%s *p, int v)"
                   " { int t = p->a + v; p->b += t; return t * 3; }" % (n, n))
        out.append("int fn%s(struct s%s *p, int v) { int r = 0; for (int k = 0; k < v; k++) {"
                   " r += helper%s(p, k); if (r > 1000) r -= p->name[k & 15]; } sink%d = r;"
                   " return r + (int)p->c[v & 3]; }" % (n, n, n, u))
    return "\n".join(out) + "\n"


def build_library(tmp):
    objs = []

    def compile_unit(u):
        src = os.path.join(tmp, "unit%d.c" % u)
        obj = os.path.join(tmp, "unit%d.o" % u)
        with open(src, "w") as f:
            f.write(unit_source(u))
        subprocess.run(["gcc", "-g", "-O0", "-fPIC", "-c", src, "-o", obj], check=True)
        return obj

    with ThreadPoolExecutor(max_workers=2) as pool:
        objs = list(pool.map(compile_unit, range(UNITS)))
    lib = os.path.join(tmp, "symbols", "libbench.so")
    os.makedirs(os.path.dirname(lib))
    subprocess.run(["gcc", "-shared", "-Wl,--build-id", "-o", lib] + objs, check=True)
    return lib


def debug_bytes(lib):
    out = subprocess.run(["readelf", "-S", "-W", lib], capture_output=True, text=True).stdout
    total = 0
    for line in out.splitlines():
        words = line.replace("[ ", "[").split()
        if len(words) > 6 and words[1].startswith(".debug_"):
            total += int(words[5], 16)
    return total


def functions(lib):
    out = subprocess.run(["nm", "--defined-only", "-S", lib], capture_output=True,
                         text=True).stdout
    fns = []
    for line in out.splitlines():
        w = line.split()
        if len(w) == 4 and w[2] in "Tt" and w[3].startswith("fn"):
            fns.append((w[3], int(w[0], 16), int(w[1], 16)))
    return fns


def build_id(lib):
    out = subprocess.run(["readelf", "-n", lib], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split()[-1]
    return None


def tombstone(path, fns, bid):
    rnd = random.Random(24)
    per = FRAMES // THREADS
    extra = FRAMES - per * THREADS
    lines = ["*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***",
             "Build fingerprint: 'google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys'",
             "Revision: '0'", "ABI: 'x86_64'", "Timestamp: 2026-11-30 00:28:04.675+0100",
             "Cmdline: " + PROCESS]
    for t in range(THREADS):
        tid = 4000 + t
        n = per + (1 if t < extra else 0)
        if t == 0:
            lines += ["pid: 4000, tid: 4000, name: inference  >>> %s <<<" % PROCESS, "uid: 10231",
                      "signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0000000000000018",
                      "", "backtrace:"]
        else:
            lines += ["--- --- --- --- --- --- --- --- --- --- --- --- --- --- --- ---",
                      "pid: 4000, tid: %d, name: worker%d  >>> %s <<<" % (tid, t, PROCESS), "",
                      "backtrace:"]
        for k in range(n):
            if k % 10 == 9:
                lines.append("      #%02d pc %016x  /apex/com.android.runtime/lib64/bionic/libc.so "
                             "(BuildId: 0123456789abcdef0123456789abcdef01234567)"
                             % (k, 0x5d000 + k))
                continue
            name, addr, size = fns[rnd.randrange(len(fns))]
            off = rnd.randrange(max(1, size))
            lines.append("      #%02d pc %016x  /data/app/~~x/com.example.bench/lib/x86_64/"
                         "libbench.so (%s+%d) (BuildId: %s)" % (k, addr + off, name, off, bid))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def timed(lw, args, runs=RUNS):
    times = []
    for _ in range(runs):
        t = time.monotonic()
        p = lastwords(lw, args)
        times.append(time.monotonic() - t)
        if p.returncode != 0:
            check(False, "report %s: exit %d %s" % (args, p.returncode, p.stderr[-500:]))
            return None, times
    return p, times


def show(what, times):
    print("  %-40s median %.3f s, spread %.3f-%.3f s over %d runs"
          % (what, statistics.median(times), min(times), max(times), len(times)))


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    tmp = tempfile.mkdtemp(prefix="lw-bench-symbols-")
    try:
        t = time.monotonic()
        lib = build_library(tmp)
        built = time.monotonic() - t
        fns = functions(lib)
        bid = build_id(lib)
        bundle = os.path.join(tmp, "bundle")
        os.makedirs(bundle)
        tombstone(os.path.join(bundle, "tombstone_00"), fns, bid)
        print("bench-symbols: %d functions, %.1f MB of DWARF in %s (built in %.0f s); a tombstone "
              "of %d threads and %d frames" % (len(fns), debug_bytes(lib) / 1e6,
                                                os.path.basename(lib), built, THREADS, FRAMES))
        base = ["report", "--format", "json", "--package", "com.example.bench"]
        plain, t_plain = timed(lw, base + [bundle])
        sym, t_sym = timed(lw, base + ["--symbols", os.path.dirname(lib), bundle])
        if plain and sym:
            import json
            rep = json.loads(sym.stdout)
            crash = [r["native_crash"] for r in rep["runs"] if r["native_crash"]]
            frames = [f for c in crash for f in c["frames"]] + \
                     [f for c in crash for th in c["other_threads"] for f in th["frames"]]
            mine = [f for f in frames if f["library"] and f["library"].endswith("libbench.so")]
            good = [f for f in mine if f["symbolicated"] and
                    f["symbolicated"][-1]["function"] == f["symbol"].split("+")[0]]
            check(len(frames) == FRAMES, "every frame is in the report: %d" % len(frames))
            check(mine and len(good) == len(mine),
                  "every frame in libbench.so symbolicated to its function: %d of %d"
                  % (len(good), len(mine)))
            show("report, no --symbols (the anchor)", t_plain)
            show("report --symbols (%d frames)" % len(mine), t_sym)
            med = statistics.median(t_sym)
            print("  target: under %.1f s with --symbols: %s (%.2fx the anchor)"
                  % (TARGET_S, "met" if med < TARGET_S else "NOT met",
                     med / statistics.median(t_plain)))
    finally:
        shutil.rmtree(tmp)
    return finish("bench-symbols")


if __name__ == "__main__":
    sys.exit(main())
