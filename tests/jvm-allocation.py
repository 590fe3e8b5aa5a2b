#!/usr/bin/env python3
"""The facade's event calls (begin, end, the session calls, mark, payload, cache,
receipt, candidate, peerDied, memoryGraphics, memoryPressure, sampleMemory)
allocate nothing on the Java heap, on an open probe or a closed one
(tests/java/JvmAlloc.java counts this thread's allocated bytes over a
million calls of each). Run three ways, so that no allocation hides: with
the JIT, with the JIT but no escape analysis (which can remove an
allocation HotSpot sees does not escape, where ART might not), and
interpreted (-Xint: every allocation made). One way per run, on the open
probe or the closed one (STATE), one meson test each. Skips (77) without a
JDK.

usage: jvm-allocation.py LASTWORDS SOURCE_ROOT MODE STATE (and the environment of tests/jvm.py)
"""
import sys
import tempfile

from helpers import check, finish, setup
from jvm import jvm_or_skip

# mode -> (its name, the JVM's options, the calls of each kind)
MODES = {
    "jit": ("JIT", [], 1000000),
    "jit-no-escape-analysis": ("JIT without escape analysis", ["-XX:-DoEscapeAnalysis"], 1000000),
    "interpreted": ("interpreted", ["-Xint"], 200000),
}


def main():
    _, _, mode, state = setup(__doc__, extra=2)
    if mode not in MODES or state not in ("open", "closed"):
        print(__doc__, file=sys.stderr)
        return 2
    jvm = jvm_or_skip()
    lines = 0
    for name, options, calls in [MODES[mode]]:
        tmp = tempfile.TemporaryDirectory(prefix="lw-jvm-alloc-")
        p = jvm.run("JvmAlloc", [tmp.name, calls, state], vm_options=options, timeout=55)
        if p is None:
            continue
        for line in p.stdout.splitlines():
            print("%s: %s" % (name, line))
            lines += 1
            check(line.split(": ")[1].startswith("0 bytes"), "%s: %s" % (name, line))
        check(p.returncode == 0, "JvmAlloc %s exits %d: %s" % (name, p.returncode,
                                                                p.stderr[-2000:]))
        check(p.stdout.count("bytes over") == 9, "JvmAlloc %s measured every call" % name)
        check(p.stdout.count("(closed)") == (9 if state == "closed" else 0),
              "JvmAlloc %s measured on the %s probe" % (name, state))
    return finish("%d measurements of the event calls' allocations" % lines)


if __name__ == "__main__":
    sys.exit(main())
