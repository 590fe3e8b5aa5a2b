#!/usr/bin/env python3
"""Java stacks deobfuscated with an R8 mapping (--mapping FILE): the
mapping of fixtures/r8/mapping.txt, written in the format R8 documents
(class renames, line ranges, inlining of two and three levels, overloads of
one obfuscated name told apart by line and left ambiguous without one,
Kotlin sourceFile metadata, a synthesized lambda class, R8's residualsignature
and rewriteFrame comments), retraces the FATAL EXCEPTION of
fixtures/r8/java-crash frame by frame, exactly; a frame the mapping does not
cover is left as it is; the am_crash of fixtures/r8/am-crash gets its
exception class; without --mapping the raw stack is kept. A mapping with a
bad line exits 4 naming the file and the line (report, trace, check and
ingest alike), a missing one is a usage error (2). A stack longer than 64
lines keeps 64 and counts the others. A mapping of 60,000 classes is read
and used.

usage: r8-mapping.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup

MAPPING = "fixtures/r8/mapping.txt"
CRASH = "fixtures/r8/java-crash"
TZ = ["--tz", "+00:00"]

# raw frame -> (retraced frames, innermost first, or None; ambiguous)
EXPECTED = [
    ("a.c.a(SourceFile:1)", ["com.example.app.Parser.readHeader(Parser.kt:70)"], False),
    # inlined: Parser.readHeader's lines 70:71 into Loader.parse, called at 44
    ("a.b.b(SourceFile:7)", ["com.example.app.Parser.readHeader(Parser.kt:71)",
                             "com.example.app.Loader.parse(Loader.java:44)"], False),
    # overloads of one name, told apart by the line
    ("a.b.a(SourceFile:4)", ["com.example.app.Loader.checksum(Loader.java:50)"], False),
    # a synthesized lambda class: its run() frame left out
    ("a.e.run(SourceFile:1)", ["com.example.app.Loader.lambda$load$0(Loader.java:35)"], False),
    # three levels, in a class that keeps its name
    ("com.example.app.MainActivity.onCreate(SourceFile:2)",
     ["com.example.app.Loader.parse(Loader.java:41)",
      "com.example.app.Loader.load(Loader.java:33)",
      "com.example.app.MainActivity.onCreate(MainActivity.kt:22)"], False),
    # a line in no range: every method of the name, no line
    ("a.b.a(SourceFile:99)", ["com.example.app.Loader.load(Loader.java)",
                              "com.example.app.Loader.checksum(Loader.java)"], True),
    # overloads without lines (reset(), reset(int)): one name, one answer
    ("a.c.b(SourceFile:3)", ["com.example.app.Parser.reset(Parser.kt:3)"], False),
    # two methods of one obfuscated name and no line: ambiguous
    ("a.c.d(Unknown Source)", ["com.example.app.Parser.close(Parser.kt)",
                               "com.example.app.Parser.flush(Parser.kt)"], True),
    ("android.app.Activity.performCreate(Activity.java:8051)", None, False),
    ("a.z.q(SourceFile:3)", None, False),
    ("Caused by: a.d: short read",
     ["Caused by: com.example.app.BadInputException: short read"], False),
    ("a.b.c(SourceFile:9)", ["com.example.app.Loader.retry(Loader.java:81)"], False),
]


def the_run(rep, what):
    runs = rep["runs"] if rep else []
    if not check(len(runs) == 1, "%s: one run: %d" % (what, len(runs))):
        return {}
    return runs[0]


def check_retraced(lw):
    rep, _ = report_json(lw, TZ + ["--mapping", MAPPING, CRASH])
    r = the_run(rep, "with the mapping")
    check(r.get("classification") == "java_crash", "a java_crash: %r" % r.get("classification"))
    check(r.get("exception") == "a.d: bad header in /data/user/0/com.example.app/files/model.bin",
          "the exception as written: %r" % r.get("exception"))
    check(r.get("exception_retraced") ==
          "com.example.app.BadInputException: bad header in /data/user/0/com.example.app/files/model.bin",
          "the exception retraced: %r" % r.get("exception_retraced"))
    stack = r.get("java_stack", [])
    check(len(stack) == len(EXPECTED), "%d stack lines: %d" % (len(EXPECTED), len(stack)))
    for got, (raw, frames, ambiguous) in zip(stack, EXPECTED):
        check(got.get("raw") == raw, "raw %r: %r" % (raw, got.get("raw")))
        check(got.get("retraced") == frames, "%s retraced %r: %r" % (raw, frames, got.get("retraced")))
        check(got.get("ambiguous", False) == ambiguous,
              "%s ambiguous %r: %r" % (raw, ambiguous, got.get("ambiguous")))

    rep, _ = report_json(lw, TZ + [CRASH])
    r = the_run(rep, "without the mapping")
    stack = r.get("java_stack", [])
    check([f.get("raw") for f in stack] == [e[0] for e in EXPECTED],
          "without --mapping the raw stack: %r" % stack)
    check(all("retraced" not in f for f in stack) and "exception_retraced" not in r,
          "without --mapping nothing retraced: %r" % r)

    rep, _ = report_json(lw, TZ + ["--mapping", MAPPING, "fixtures/r8/am-crash"])
    r = the_run(rep, "am_crash")
    check(r.get("exception") == "a.d: bad header" and
          r.get("exception_retraced") == "com.example.app.BadInputException: bad header",
          "the am_crash's exception class retraced: %r %r"
          % (r.get("exception"), r.get("exception_retraced")))
    check(r.get("java_stack") == [], "an am_crash has no stack: %r" % r.get("java_stack"))

    p = lastwords(lw, ["report"] + TZ + ["--mapping", MAPPING, CRASH])
    check(p.returncode == 0, "text report: exit %d %s" % (p.returncode, p.stderr))
    check("exception  com.example.app.BadInputException: bad header" in p.stdout and
          "stack      com.example.app.Parser.readHeader(Parser.kt:70)\n" in p.stdout and
          "retraced with the mapping" in p.stdout,
          "the text report shows the retraced top frames: %s" % p.stdout)


def check_errors(lw, tmp):
    bad = {
        "bad-range.txt": (open("fixtures/r8/bad-range.txt").read(), 3, "line range"),
        "member-first.txt": ("    void a() -> b\n", 1, "before any class"),
        "no-colon.txt": ("# a comment\ncom.example.A -> a\n", 2, "ends with ':'"),
        "no-arrow.txt": ("com.example.A -> a:\n    void run()\n", 2, "new name"),
        "tail.txt": ("com.example.A -> a:\n    1:2:void run():3:4x -> a\n", 2, "after the"),
        "reversed.txt": ("com.example.A -> a:\n    9:2:void run() -> a\n", 2, "ends before"),
        "garbage.txt": ("com.example.A -> a:\n\nthis is not a mapping\n", 3, "not a class line"),
    }
    for name, (text, line, reason) in bad.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        p = lastwords(lw, ["report"] + TZ + ["--mapping", path, CRASH])
        check(p.returncode == 4 and ("'%s': line %d: " % (path, line)) in p.stderr and
              reason in p.stderr and p.stdout == "",
              "%s: exit 4 naming line %d (%s): %d %r" % (name, line, reason, p.returncode, p.stderr))
    path = os.path.join(tmp, "bad-range.txt")
    out = os.path.join(tmp, "trace.pftrace")
    p = lastwords(lw, ["trace"] + TZ + ["--mapping", path, "-o", out, CRASH])
    check(p.returncode == 4 and "line 3" in p.stderr, "trace: %d %r" % (p.returncode, p.stderr))
    expect = os.path.join(tmp, "expect.json")
    with open(expect, "w") as f:
        json.dump({"runs": [{"process": "com.example.app", "pid": 4321,
                             "classification": "java_crash"}]}, f)
    p = lastwords(lw, ["check"] + TZ + ["--mapping", path, expect, os.path.abspath(CRASH)])
    check(p.returncode == 4 and "line 3" in p.stderr, "check: %d %r" % (p.returncode, p.stderr))
    p = lastwords(lw, ["check"] + TZ + ["--mapping", MAPPING, expect, os.path.abspath(CRASH)])
    check(p.returncode == 0, "check with a good mapping: %d %r %r" % (p.returncode, p.stdout, p.stderr))
    db = os.path.join(tmp, "history.db")
    p = lastwords(lw, ["ingest", "--db", db] + TZ + ["--mapping", path, CRASH])
    check(p.returncode == 4 and "refused" in p.stderr and "line 3" in p.stderr,
          "ingest: %d %r" % (p.returncode, p.stderr))

    for arg in ("fixtures/r8/no-such-mapping.txt", "fixtures/r8"):
        p = lastwords(lw, ["report", "--mapping", arg, CRASH])
        check(p.returncode == 2 and "--mapping" in p.stderr and p.stdout == "",
              "--mapping %s: usage error: %d %r" % (arg, p.returncode, p.stderr))

    # CRLF line ends and a byte order mark read as the same mapping
    crlf = os.path.join(tmp, "crlf.txt")
    with open(MAPPING) as f, open(crlf, "wb") as g:
        g.write(b"\xef\xbb\xbf" + f.read().replace("\n", "\r\n").encode())
    rep, _ = report_json(lw, TZ + ["--mapping", crlf, CRASH])
    r = the_run(rep, "CRLF mapping")
    check([f.get("retraced") for f in r.get("java_stack", [])] == [e[1] for e in EXPECTED],
          "a CRLF mapping retraces alike")


def check_long_stack(lw, tmp):
    """70 frames: 64 kept, 6 counted."""
    bundle = os.path.join(tmp, "long")
    shutil.copytree(CRASH, bundle)
    lines = open(os.path.join(CRASH, "logcat.txt")).read().splitlines(True)
    at = "06-10 14:55:00.226  4321  4321 E AndroidRuntime: \tat a.b.c(SourceFile:%d)\n"
    head = [l for l in lines if "\tat " not in l and "Caused by" not in l and "more" not in l]
    cut = head.index(next(l for l in head if "a.d: bad header" in l)) + 1
    with open(os.path.join(bundle, "logcat.txt"), "w") as f:
        f.writelines(head[:cut] + [at % (8 + i % 3) for i in range(70)] + head[cut:])
    rep, inputs = report_json(lw, TZ + ["--mapping", MAPPING, bundle])
    r = the_run(rep, "long stack")
    stack = r.get("java_stack", [])
    check(len(stack) == 64 and all(s.get("retraced") for s in stack),
          "64 lines kept, all retraced: %d" % len(stack))
    cutnote = inputs.get(os.path.join(bundle, "logcat.txt"), {}).get("cut", "")
    check("6 Java stack lines past a crash's first 64 not kept" in cutnote,
          "the 6 others counted: %r" % cutnote)


def check_big_mapping(lw, tmp):
    """60,000 classes, the crash's at the end."""
    path = os.path.join(tmp, "big.txt")
    with open(path, "w") as f:
        f.write("# compiler: R8\n")
        for i in range(60000):
            f.write("com.example.gen.Class%d -> z%d:\n" % (i, i))
            f.write("# {\"id\":\"sourceFile\",\"fileName\":\"Gen%d.kt\"}\n" % i)
            for k in range(4):
                f.write("    %d:%d:void m%d(int):%d:%d -> a\n" % (k * 10 + 1, k * 10 + 9, k,
                                                                 100 + k * 10, 108 + k * 10))
        f.write(open(MAPPING).read())
    rep, _ = report_json(lw, TZ + ["--mapping", path, CRASH])
    r = the_run(rep, "big mapping")
    check([f.get("retraced") for f in r.get("java_stack", [])] == [e[1] for e in EXPECTED],
          "a mapping of 60,000 classes retraces alike")


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    tmp = tempfile.mkdtemp(prefix="lw-r8-")
    try:
        check_retraced(lw)
        check_errors(lw, tmp)
        check_long_stack(lw, tmp)
        check_big_mapping(lw, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("r8-mapping: Java stacks retraced by an R8 mapping")


if __name__ == "__main__":
    sys.exit(main())
