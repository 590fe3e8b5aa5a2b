#!/usr/bin/env python3
"""The source tree's layers hold (DESIGN.md, "Folders"; man/guide.md,
"Where things are"), checked on every #include "..." and every call that prints:

- src/ includes only src/ (and the public headers): it is shared by the
  probe and the analyzer;
- probe/ includes only probe/ and src/: the probe never sees the analyzer;
- analyzer/evidence/ includes only itself and src/: bytes to records,
  depending on nothing above it;
- analyzer/seed/ and analyzer/device/ (the phone: adb, bug report zips,
  pull) include only themselves, src/ and evidence/;
- analyzer/runs/ (rings into runs) includes only itself, src/, evidence/
  and the leaves;
- the leaves, analyzer/format.h and analyzer/tz.h (formatting for people,
  time zones), include only src/ and evidence/, so that every layer from
  runs/ up may use them;
- the pipeline (the other files of analyzer/: bundle, correlate, classify,
  the report model) includes src/, evidence/, seed/ and runs/, never
  output/, history/, device/ nor the commands;
- history/ may include the pipeline (it stores reports) but not the gate
  (analyzer/gate.h: the gate reads the history, so it sits above it),
  never output/ nor the commands;
- output/ (every writer) may include the pipeline, the report model and
  history/ (whose rows it writes), never the commands;
- the commands (main.c, cmd-*.c, commands.h) may include every layer;
- no analyzer module prints: printf, puts, perror, putchar and stdout or
  stderr appear only in main.c and the cmd-*.c files (the report's text
  writer writes to the stream it is given).

The check must be able to fail: an include that breaks a rule, and a
printf in a module, are fed to it and must be reported.

usage: tree-layers.py LASTWORDS SOURCE_ROOT
"""
import os
import re

from helpers import check, fail, finish, setup

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRINTS = re.compile(r"\b(printf|puts|perror|putchar)\s*\(|\bstd(out|err)\b")
COMMANDS = re.compile(r"^analyzer/(main\.c|cmd-[^/]*\.c|commands\.h)$")

# The leaves: files of analyzer/ that include only src/ and evidence/, and
# that every layer from runs/ up may include.
LEAVES = ["analyzer/format.h", "analyzer/tz.h"]
LEAF_SOURCES = re.compile(r"^analyzer/(format|tz)\.[ch]$")
# folder -> the folders (or leaf files) its includes may reach (besides itself)
MAY_INCLUDE = {
    "src": [],
    "probe": ["src"],
    "analyzer/evidence": ["src"],
    "analyzer/seed": ["src", "analyzer/evidence"],
    "analyzer/device": ["src", "analyzer/evidence"],
    "analyzer/runs": ["src", "analyzer/evidence"] + LEAVES,
    "analyzer": ["src", "analyzer/evidence", "analyzer/seed", "analyzer/runs"],
    "analyzer/history": ["src", "analyzer/evidence", "analyzer/runs", "analyzer"],
    "analyzer/output": ["src", "analyzer/evidence", "analyzer/seed", "analyzer/runs", "analyzer",
                        "analyzer/history"],
}
# folder -> files of the folders it may include that sit above it all the same
MAY_NOT_INCLUDE = {
    "analyzer/history": ["analyzer/gate.h"],
}
# The commands (main.c, cmd-*.c, commands.h) may include every layer.
COMMANDS_MAY_INCLUDE = sorted(MAY_INCLUDE)

# Includes planted in a file (path, what it includes, whether a layer rule
# refuses it, who does it): each rule once, and what the rules allow.
PLANTED = [
    ("analyzer/evidence/logcat.c", "../runs/run.h", True, "evidence/"),
    ("analyzer/evidence/logcat.c", "../device/adb.h", True, "evidence/"),
    ("probe/events.c", "../analyzer/report.h", True, "probe/"),
    ("analyzer/history/history-db.c", "../commands.h", True, "history/"),
    ("analyzer/history/history-store.c", "../output/html.h", True, "history/"),
    ("analyzer/history/history-store.c", "../gate.h", True, "history/"),
    ("analyzer/history/history-store.c", "../bundle.h", False, "history/"),
    ("analyzer/report.c", "history/history-db.h", True, "the pipeline"),
    ("analyzer/report.c", "output/html.h", True, "the pipeline"),
    ("analyzer/correlate.c", "device/adb.h", True, "the pipeline"),
    ("analyzer/output/report-html.c", "../commands.h", True, "output/"),
    ("analyzer/output/report-html.c", "../report.h", False, "output/"),
    ("analyzer/device/adb.c", "../runs/run.h", True, "device/"),
    ("analyzer/device/adb.c", "../bundle.h", True, "device/"),
    ("analyzer/device/adb.c", "../evidence/text.h", False, "device/"),
    ("analyzer/runs/run.c", "../bundle.h", True, "runs/"),
    ("analyzer/runs/run.c", "../format.h", False, "runs/"),
    ("analyzer/format.c", "runs/run.h", True, "the leaf format.c"),
    ("analyzer/cmd-ingest.c", "history/history-db.h", False, "a command"),
]


def folder_of(path):
    return os.path.dirname(path)


def strip_comments(src):
    """C source without its comments and string literals' contents."""
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', src)


def include_problems(path, src):
    """What path's includes break, as messages."""
    out = []
    here = folder_of(path)
    if COMMANDS.match(path):
        allowed = COMMANDS_MAY_INCLUDE
    elif LEAF_SOURCES.match(path):
        allowed = LEAVES + MAY_INCLUDE["analyzer/evidence"] + ["analyzer/evidence"]
    else:
        allowed = [here] + MAY_INCLUDE.get(here, [])
    for target in INCLUDE.findall(src):
        resolved = os.path.normpath(os.path.join(here, target))
        where = folder_of(resolved)
        if resolved in MAY_NOT_INCLUDE.get(here, []):
            out.append("%s includes %s (%s sits above %s)" % (path, resolved, resolved, here))
        elif where not in allowed and resolved not in allowed:
            out.append("%s includes %s (%s may include only %s)"
                       % (path, resolved, here, ", ".join(allowed)))
        elif here != "analyzer" and COMMANDS.match(resolved):
            out.append("%s includes the command layer's %s" % (path, resolved))
    return out


def print_problems(path, src):
    if not path.startswith("analyzer/") or COMMANDS.match(path):
        return []
    code = strip_comments(src)
    return ["%s line %d prints (%s): only main.c and the commands print"
            % (path, code[:m.start()].count("\n") + 1, m.group(0).strip("( "))
            for m in PRINTS.finditer(code)]


def sources():
    for top in MAY_INCLUDE:
        for name in sorted(os.listdir(top)):
            if name.endswith((".c", ".h")):
                yield os.path.join(top, name)


def main():
    setup(__doc__)
    n = 0
    for path in sources():
        with open(path, errors="replace") as f:
            src = f.read()
        for msg in include_problems(path, src) + print_problems(path, src):
            fail(msg)
        n += 1
    check(n > 80, "only %d source files found" % n)

    # The check itself must refuse what it is there to refuse, and let
    # through what the layers allow.
    for path, include, refused, what in PLANTED:
        problems = include_problems(path, '#include "%s"\n' % include)
        check(bool(problems) == refused, "%s including %s is %s" % (
            what, include, "not reported" if refused else "reported: %s" % problems))
    check(print_problems("analyzer/report.c", 'int f(void) { return printf("x"); }\n'),
          "a printf in a module is not reported")
    check(not print_problems("analyzer/report.c", '/* printf */ const char *s = "stdout";\n'),
          "a comment or a string is taken for printing")
    return finish("tree-layers: %d source files" % n)


if __name__ == "__main__":
    raise SystemExit(main())
