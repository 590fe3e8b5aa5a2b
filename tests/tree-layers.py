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
- analyzer/symbols/ (native frames by build id, Java stacks by an R8
  mapping, crash signatures) includes only itself, src/ and evidence/: it
  annotates the records evidence/ reads;
- analyzer/runs/ (rings into runs) includes only itself, src/, evidence/
  and the leaves;
- the leaves, analyzer/format.h and analyzer/tz.h (formatting for people,
  time zones), include only src/ and evidence/, so that every layer from
  runs/ up may use them;
- the pipeline (the other files of analyzer/: bundle, correlate, classify,
  the report model) includes src/, evidence/, seed/, runs/ and symbols/, never
  output/, history/, device/ nor the commands;
- history/ may include the pipeline (it stores reports) but not the gate
  (analyzer/gate.h: the gate reads the history, so it sits above it),
  never output/ nor the commands;
- output/ (every writer) may include the pipeline, the report model and
  history/ (whose rows it writes), never the commands;
- no two .c files of one folder call each other: what both need has one
  home below both;
- the commands (main.c, cmd-*.c, commands.h) may include every layer,
  and share only through the layers below them or main.c: no cmd-*.c
  calls a function that another cmd-*.c defines (found by scanning the
  definitions of the cmd-*.c files);
- no analyzer module prints: printf, puts, perror, putchar and stdout or
  stderr appear only in main.c and the cmd-*.c files (the report's text
  writer writes to the stream it is given).

The check must be able to fail: an include that breaks a rule, a printf
in a module, and a command calling another's function are fed to it and
must be reported.

usage: tree-layers.py LASTWORDS SOURCE_ROOT
"""
import os
import re

from helpers import check, fail, finish, setup

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
PRINTS = re.compile(r"\b(printf|puts|perror|putchar)\s*\(|\bstd(out|err)\b")
COMMANDS = re.compile(r"^analyzer/(main\.c|cmd-[^/]*\.c|commands\.h)$")
COMMAND_FILE = re.compile(r"^analyzer/cmd-[^/]*\.c$")
# A function's definition at the start of a line: its type, its name, its
# parameters, its body's brace (static: the file's own, callable from no
# other file).
DEFINITION = re.compile(r"^(static[ \t]+)?(?:[A-Za-z_]\w*[ \t*]+)+([A-Za-z_]\w*)\([^;{}]*\)\s*\{",
                        re.M)

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
    "analyzer/symbols": ["src", "analyzer/evidence"],
    "analyzer": ["src", "analyzer/evidence", "analyzer/seed", "analyzer/runs", "analyzer/symbols"],
    "analyzer/history": ["src", "analyzer/evidence", "analyzer/runs", "analyzer/symbols", "analyzer"],
    "analyzer/output": ["src", "analyzer/evidence", "analyzer/seed", "analyzer/runs", "analyzer/symbols", "analyzer",
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


def command_call_problems(files):
    """What the cmd-*.c files of files ({path: source}) break of "commands
    never call each other": a call of a function defined, not static, in
    another cmd-*.c file (and not in the caller itself), as messages."""
    code = {p: strip_comments(s) for p, s in files.items() if COMMAND_FILE.match(p)}
    defined = {p: {m.group(2): bool(m.group(1)) for m in DEFINITION.finditer(c)}
               for p, c in code.items()}
    out = []
    for path, src in sorted(code.items()):
        for other, names in sorted(defined.items()):
            if other == path:
                continue
            for name, static in sorted(names.items()):
                if static or name in defined[path]:
                    continue
                m = re.search(r"\b%s\s*\(" % re.escape(name), src)
                if m:
                    out.append("%s line %d calls %s(), which %s defines: commands share "
                               "through the layers below them or main.c, never each other"
                               % (path, src[:m.start()].count("\n") + 1, name, other))
    return out


def mutual_call_problems(files):
    """Two .c files of one folder that call each other's (not static)
    functions, as messages: what they share must have one home below both,
    so that each file can be read knowing only what lies under it."""
    code = {p: strip_comments(s) for p, s in files.items() if p.endswith(".c")}
    defined = {p: {m.group(2) for m in DEFINITION.finditer(c) if not m.group(1)}
               for p, c in code.items()}

    def calls(a, b):
        return sorted(n for n in defined[b] - defined[a]
                      if re.search(r"\b%s\s*\(" % re.escape(n), code[a]))
    out = []
    paths = sorted(code)
    for i, a in enumerate(paths):
        for b in paths[i + 1:]:
            if folder_of(a) != folder_of(b):
                continue
            ab, ba = calls(a, b), calls(b, a)
            if ab and ba:
                out.append("%s and %s call each other (%s; %s): give what they share one "
                           "home below both" % (a, b, ", ".join(ab), ", ".join(ba)))
    return out


def sources():
    for top in MAY_INCLUDE:
        for name in sorted(os.listdir(top)):
            if name.endswith((".c", ".h")):
                yield os.path.join(top, name)


def main():
    setup(__doc__)
    n = 0
    files = {}
    for path in sources():
        with open(path, errors="replace") as f:
            src = f.read()
        for msg in include_problems(path, src) + print_problems(path, src):
            fail(msg)
        files[path] = src
        n += 1
    check(n > 80, "only %d source files found" % n)
    for msg in command_call_problems(files) + mutual_call_problems(files):
        fail(msg)
    ncommands = sum(len(DEFINITION.findall(strip_comments(s)))
                    for p, s in files.items() if COMMAND_FILE.match(p))
    check(ncommands > 40, "only %d definitions found in the cmd-*.c files" % ncommands)

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
    # A command calling a function another command defines, planted and
    # refused; a static of the same name, and main.c's, are no such call.
    shared = "int report_status(const struct report *r)\n{\n\treturn 0;\n}\n"
    caller = ("static int build(char **inputs,\n\t\t int *status)\n{\n"
              "\treturn report_status(NULL);\n}\n")
    check(command_call_problems({"analyzer/cmd-report.c": shared, "analyzer/cmd-check.c": caller}),
          "a command calling a function of another command is not reported")
    check(not command_call_problems({"analyzer/cmd-report.c": "static " + shared,
                                     "analyzer/cmd-check.c": caller}),
          "a call of a function another command keeps static is reported")
    check(not command_call_problems({"analyzer/main.c": shared, "analyzer/cmd-check.c": caller}),
          "a command calling main.c's function is reported")
    # Two files of one folder calling each other, planted and refused; a
    # call one way only is no such pair.
    a = "int a_one(void)\n{\n\treturn b_one();\n}\n"
    b = "int b_one(void)\n{\n\treturn 1;\n}\n"
    check(mutual_call_problems({"probe/a.c": a, "probe/b.c": b + "int b_two(void)\n{\n\treturn a_one();\n}\n"}),
          "two files of one folder calling each other are not reported")
    check(not mutual_call_problems({"probe/a.c": a, "probe/b.c": b}),
          "a call one way only is reported as a pair")
    check(not mutual_call_problems({"probe/a.c": a, "src/b.c": b + "int b_two(void)\n{\n\treturn a_one();\n}\n"}),
          "files of two folders are taken for one")
    return finish("tree-layers: %d source files" % n)


if __name__ == "__main__":
    raise SystemExit(main())
