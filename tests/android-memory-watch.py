#!/usr/bin/env python3
"""MemoryWatch on a JVM against the stand-in android.* classes
(tests/java/AndroidMemory.java): a real probe ring, the trim callbacks it
registers recorded level by level (onLowMemory as 80), its samples bounded
in rate (50 stage ends within 200 ms make one or two samples, never more
than one per interval since the first request; one more after the
interval makes one more), each sample's graphics and memory_info records
carrying the stand-ins' figures, none for a garbage summary.graphics,
none below API 23; close() unregisters and stops its thread; the
caller's side (stageEnded() and the callbacks) allocates nothing. The ring is
read through the analyzer's reader (TestNative.records()). Skips (77)
without a JDK.

usage: android-memory-watch.py LASTWORDS SOURCE_ROOT
"""
import shutil
import sys
import tempfile

from helpers import check, finish, setup
from jvm import jvm_or_skip


def main():
    setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    said = []
    for sdk, args in ((34, []), (22, ["below-23"]), (34, ["allocation"])):
        tmp = tempfile.mkdtemp(prefix="lw-android-memory-")
        try:
            p = jvm.run("AndroidMemory", [tmp] + args, vm_options=["-Dandroid.sdk=%d" % sdk])
            ok = p is not None and p.returncode == 0 and p.stdout.startswith("ok ")
            check(ok, "AndroidMemory at API %d: %s\n%s%s" % (
                sdk, p and p.returncode, p and p.stdout, p and p.stderr[-2000:]))
            if ok:
                said.append(p.stdout.strip()[3:])
        finally:
            shutil.rmtree(tmp)
    return finish("MemoryWatch: " + "; ".join(said))


if __name__ == "__main__":
    sys.exit(main())
