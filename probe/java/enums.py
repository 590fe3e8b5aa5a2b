#!/usr/bin/env python3
"""The Java facade's vocabulary enums (dev.lastwords.Stage, ...), made from
the X-macro lists of include/lastwords/vocab.h, the one table of the
vocabulary, and the template probe/java/enum.java.in. The C preprocessor
expands each list (so the values are the compiler's, as C sees them);
this program only lays the constants out. The files are committed in
probe/java/dev/lastwords/, so that a Gradle build, which compiles the
sources as they stand, has them.

usage: enums.py --write CC ROOT    write them (after a change to vocab.h)
       enums.py --check CC ROOT    exit 1, naming each file that differs
                                   from what vocab.h gives (test java-enums)
CC is a C compiler command (one word, e.g. cc); ROOT the top of the tree.
Exit status: 0 written or the same, 1 different, 2 usage or a failed
preprocessor.
"""
import os
import re
import subprocess
import sys

# Java enum name: the X-macro list of vocab.h it is made from.
ENUMS = {
    "Stage": "LW_STAGES",
    "ErrorClass": "LW_ERRORS",
    "Mark": "LW_MARKS",
    "Delegate": "LW_DELEGATES",
    "Action": "LW_ACTIONS",
    "AdviceKind": "LW_ADVICES",
    "PayloadClass": "LW_PAYLOAD_CLASSES",
    "CacheOp": "LW_CACHE_OPS",
    "Scenario": "LW_SCENARIOS",
    "PressureSource": "LW_PRESSURE_SOURCES",
}

ENTRY = re.compile(r"@@\s*(\w+)\s+(\w+)\s+\((.*?)\)\s*@@")


def entries(cc, vocab_h, macro):
    """The (UP, name, value) triples of list macro, as cc expands it."""
    snippet = "#define X(up, name, val) @@ up name (val) @@\n%s(X)\n" % macro
    p = subprocess.run([cc, "-std=c11", "-undef", "-E", "-P", "-x", "c", "-imacros", vocab_h,
                        "-"], input=snippet, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("enums.py: %s -E of %s in %s failed: %s" % (cc, macro, vocab_h,
                                                             p.stderr.strip()))
    out = []
    for up, name, val in ENTRY.findall(p.stdout):
        try:
            out.append((up, name, int(val.strip().rstrip("uUlL"), 0)))
        except ValueError:
            sys.exit("enums.py: %s: %s's value %r for %s is not a number" % (vocab_h, macro,
                                                                             val, up))
    if not out:
        sys.exit("enums.py: %s: %s gives no constants" % (vocab_h, macro))
    return out


def render(template, name, constants):
    lines = "\n".join('\t%s("%s", %d),' % c for c in constants)
    return template.replace("@ENUM@", name).replace("@CONSTANTS@", lines)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("--write", "--check"):
        sys.stderr.write(__doc__)
        return 2
    mode, cc, root = argv[1:]
    vocab_h = os.path.join(root, "include", "lastwords", "vocab.h")
    with open(os.path.join(root, "probe", "java", "enum.java.in")) as f:
        template = f.read()
    outdir = os.path.join(root, "probe", "java", "dev", "lastwords")
    differ = []
    for name, macro in ENUMS.items():
        text = render(template, name, entries(cc, vocab_h, macro))
        path = os.path.join(outdir, name + ".java")
        try:
            with open(path) as f:
                old = f.read()
        except FileNotFoundError:
            old = None
        if old == text:
            continue
        if mode == "--write":
            with open(path + ".tmp", "w") as f:
                f.write(text)
            os.replace(path + ".tmp", path)
            print("wrote %s" % os.path.relpath(path, root))
        else:
            differ.append(os.path.relpath(path, root))
    for path in differ:
        print("%s: differs from what include/lastwords/vocab.h's %s gives%s"
              % (path, ENUMS[os.path.basename(path)[:-5]],
                 "" if os.path.exists(os.path.join(root, path)) else " (missing)"))
    if differ:
        print("run `probe/java/enums.py --write cc .` at the top of the tree, and commit")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
