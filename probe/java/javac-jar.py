#!/usr/bin/env python3
"""Compile Java sources at the Java 8 language level and pack the classes
into a jar (probe/meson.build, tests/meson.build).

usage: javac-jar.py JAVAC JAR OUT.jar WORKDIR [--classpath CP] SOURCE.java...

WORKDIR is emptied and gets the classes. Warnings are errors.
"""
import os
import shutil
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if len(args) < 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    javac, jar, out, work = args[:4]
    rest = args[4:]
    cp = []
    if rest[0] == "--classpath":
        cp, rest = ["-classpath", rest[1]], rest[2:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # -implicit:none: only the sources given; -Xlint:-options: no warning
    # that release 8 is old, on the JDKs that give one.
    rc = subprocess.call([javac, "--release", "8", "-encoding", "UTF-8", "-Xlint:all,-options",
                          "-Werror", "-implicit:none", "-d", work] + cp + rest)
    if rc != 0:
        return rc
    tmp = out + ".tmp"
    rc = subprocess.call([jar, "cf", tmp, "-C", work, "."])
    if rc != 0:
        return rc
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
