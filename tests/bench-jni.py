#!/usr/bin/env python3
"""bench-jni: a stage event through the Java facade (JNI) against the C call
on the same probe, in the same run (tests/java/BenchJni.java), against the
3x target. Prints figures and never fails on timing; exits 1 only when the
program fails, 77 without a JDK. Measure in a release build:
  meson test -C build-rel --suite bench -v bench-jni

usage: bench-jni.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import sys
import tempfile

from helpers import check, finish, setup
from jvm import jvm_or_skip


def main():
    setup("usage: bench-jni.py LASTWORDS SOURCE_ROOT")
    tmp = tempfile.TemporaryDirectory(prefix="lw-bench-jni-")
    p = jvm_or_skip().run("BenchJni", [tmp.name], timeout=300)
    if p:
        print(p.stdout, end="")
        check(p.returncode == 0 and "target:" in p.stdout,
              "BenchJni exits %d: %s" % (p.returncode, p.stderr[-2000:]))
    return finish("bench-jni")


if __name__ == "__main__":
    sys.exit(main())
