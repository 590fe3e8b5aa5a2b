#!/usr/bin/env python3
"""The Java enums (Stage, ErrorClass, Mark, Delegate, Action, AdviceKind,
PayloadClass, CacheOp, Scenario, PressureSource),
generated at build time from include/lastwords/vocab.h, hold exactly its
values as the C compiler reads them (tests/java/JvmVocab.java). Skips (77)
without a JDK.

usage: jvm-vocab.py LASTWORDS SOURCE_ROOT (and the environment of tests/jvm.py)
"""
import sys

from helpers import check, finish, setup
from jvm import jvm_or_skip


def main():
    setup("usage: jvm-vocab.py LASTWORDS SOURCE_ROOT")
    p = jvm_or_skip().run("JvmVocab", [])
    if p:
        print(p.stdout, end="")
        check(p.returncode == 0, "the Java enums differ from vocab.h's lists (exit %d): %s"
              % (p.returncode, p.stderr[-2000:]))
    return finish("the Java enums against vocab.h")


if __name__ == "__main__":
    sys.exit(main())
