#!/usr/bin/env python3
"""The Java facade's vocabulary enums, committed in probe/java/dev/lastwords/
for Gradle, are what include/lastwords/vocab.h gives: probe/java/enums.py
--check, with the build's C compiler, finds none that differs. And the
check would see a change: in a copy of the files it reads, with one value
of vocab.h's stage list changed, it exits 1 naming Stage.java and no
other, and --write then makes the copy pass again.

usage: java-enums.py CC SOURCE_ROOT
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from helpers import check, finish


def enums(cc, root, mode):
    return subprocess.run([sys.executable, os.path.join(root, "probe", "java", "enums.py"),
                           mode, cc, root], capture_output=True, text=True, timeout=50)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: java-enums.py CC SOURCE_ROOT")
    cc, src = sys.argv[1:]
    p = enums(cc, src, "--check")
    check(p.returncode == 0, "the committed enums are vocab.h's (enums.py --check exits %d):\n%s%s"
          % (p.returncode, p.stdout, p.stderr))

    with tempfile.TemporaryDirectory(prefix="lw-java-enums-") as tmp:
        for d in ("include/lastwords", "probe/java/dev/lastwords"):
            shutil.copytree(os.path.join(src, d), os.path.join(tmp, d))
        for f in ("probe/java/enums.py", "probe/java/enum.java.in"):
            shutil.copy(os.path.join(src, f), os.path.join(tmp, f))
        vocab = os.path.join(tmp, "include", "lastwords", "vocab.h")
        with open(vocab) as f:
            text = f.read()
        changed = re.sub(r"X\(LOAD, load, 2\)", "X(LOAD, load, 12)", text, count=1)
        check(changed != text, "vocab.h's stage list holds X(LOAD, load, 2)")
        with open(vocab, "w") as f:
            f.write(changed)
        p = enums(cc, tmp, "--check")
        named = re.findall(r"^(\S+\.java): differs", p.stdout, re.M)
        check(p.returncode == 1 and named == ["probe/java/dev/lastwords/Stage.java"],
              "with LOAD = 12 in vocab.h, --check exits 1 naming Stage.java only: exit %d, %r\n%s"
              % (p.returncode, named, p.stderr))
        w = enums(cc, tmp, "--write")
        p = enums(cc, tmp, "--check")
        with open(os.path.join(tmp, "probe/java/dev/lastwords/Stage.java")) as f:
            stage = f.read()
        check(w.returncode == 0 and p.returncode == 0 and 'LOAD("load", 12),' in stage,
              "--write makes them vocab.h's again: exit %d then %d" % (w.returncode, p.returncode))
    return finish("the committed Java enums are vocab.h's")


if __name__ == "__main__":
    sys.exit(main())
