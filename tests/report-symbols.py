#!/usr/bin/env python3
"""report --symbols: a real process crashes in a library built with -g
(tests/crashy/crashy.c, run by symbols-crash, which writes its tombstone
from the real fault's pc and the library's mapping as debuggerd prints
them), and its frames are symbolicated by build id:

- from the unstripped library: each frame's function, file and line, and
  poke(), inlined into crashy_leaf(), as the innermost of frame #00, at the
  lines the source marks (LINE: comments); the same from the tombstone's
  protobuf twin;
- from a .build-id/xx/rest.debug tree (objcopy --only-keep-debug) beside a
  stripped copy: the same lines;
- from a stripped copy alone: the dynamic symbol table's functions, no line;
- from a copy of the library's name with another build id: nothing, and
  each frame says why (never by name alone); the same when the tombstone
  writes no build id;
- without --symbols, the frames as written, with no reason given;
- the text report lists the app's frames first, symbolicated, then counts
  the frames outside the app's libraries;
- a --symbols that is no directory is a usage error (2).

usage: report-symbols.py LASTWORDS SOURCE_ROOT SYMBOLS_CRASH LIBCRASHY
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from helpers import check, fail, finish, lastwords, report_json, setup
from tombstone_pb import twin_of_text

PROCESS = "com.example.crashy:inference"
INSTALLED = "/data/app/~~5bN2qg==/com.example.crashy-Xz1q==/lib/x86_64"


def marked_lines(source):
    """LINE: name -> line number in the library's source."""
    out = {}
    with open(source) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"LINE:([\w-]+)", line)
            if m:
                out[m.group(1)] = n
    return out


def crash_frames(rep):
    runs = [r for r in rep["runs"] if r["native_crash"]]
    if not check(len(runs) == 1, "one run with a native crash: %d" % len(runs)):
        return []
    check(runs[0]["classification"] == "native_crash",
          "the run is a native_crash: %s" % runs[0]["classification"])
    return runs[0]["native_crash"]["frames"]


def lines_of(frame):
    return [(l["function"], os.path.basename(l["file"] or ""), l["line"], l["inlined"])
            for l in frame["symbolicated"] or []]


def expect_full(frames, marks, what):
    """The library's three frames with their functions and lines."""
    lib = [f for f in frames if f["library"] and f["library"].endswith("libcrashy.so")]
    if not check(len(lib) == 3, "%s: three frames in libcrashy.so: %d" % (what, len(lib))):
        return
    want = [
        [("poke", "crashy.c", marks["poke"], True),
         ("crashy_leaf", "crashy.c", marks["leaf-calls-poke"], False)],
        [("crashy_middle", "crashy.c", marks["middle-calls-leaf"], False)],
        [("crashy_entry", "crashy.c", marks["entry-calls-middle"], False)],
    ]
    for k, (f, w) in enumerate(zip(lib, want)):
        check(lines_of(f) == w, "%s: frame #%02d is %s, not %s" % (what, k, lines_of(f), w))
        check(f["app"] and f["not_symbolicated"] is None,
              "%s: frame #%02d is the app's, symbolicated: %r" % (what, k, f))
    libc = [f for f in frames if f["library"] and "libc.so" in f["library"]]
    check(libc and all(f["symbolicated"] is None and not f["app"] and
                       f["not_symbolicated"] == "no file of the symbols has its build id"
                       for f in libc),
          "%s: libc's frames are left, not found: %r" % (what, libc))


def main():
    # the programs are given relative to the build directory, which setup() leaves
    given = [os.path.abspath(a) for a in sys.argv[1:] if not a.startswith("--")]
    lw, root, _, _ = setup(__doc__.strip().splitlines()[-1], 2)
    crash, lib = given[2:4]
    marks = marked_lines(os.path.join(root, "tests", "crashy", "crashy.c"))
    tmp = tempfile.mkdtemp(prefix="lw-symbols-")
    try:
        # The crash, written with the library where the phone installs it.
        installed = os.path.join(tmp, "libcrashy.so")
        shutil.copy(lib, installed)
        bundle = os.path.join(tmp, "bundle")
        os.makedirs(bundle)
        tomb = os.path.join(bundle, "tombstone_00")
        p = subprocess.run([crash, installed, tomb, PROCESS, INSTALLED], capture_output=True,
                           text=True)
        if not check(p.returncode == 0, "symbols-crash: %d %s" % (p.returncode, p.stderr)):
            return finish("report-symbols")
        with open(tomb) as f:
            text = f.read()
        m = re.search(r"libcrashy\.so .*\(BuildId: ([0-9a-f]+)\)", text)
        if not check(m, "the tombstone writes the library's build id:\n" + text):
            return finish("report-symbols")
        build_id = m.group(1)
        base = ["--package", "com.example.crashy"]

        # 1. the unstripped library
        unstripped = os.path.join(tmp, "unstripped")
        os.makedirs(unstripped)
        shutil.copy(lib, unstripped)
        rep, _ = report_json(lw, base + ["--symbols", unstripped, bundle])
        if rep:
            expect_full(crash_frames(rep), marks, "unstripped")

        # ... from the protobuf twin, alone in its bundle
        pb_bundle = os.path.join(tmp, "pb-bundle")
        os.makedirs(pb_bundle)
        with open(os.path.join(pb_bundle, "tombstone_00.pb"), "wb") as f:
            f.write(twin_of_text(text))
        rep, _ = report_json(lw, base + ["--symbols", unstripped, pb_bundle])
        if rep:
            runs = [r for r in rep["runs"] if r["native_crash"]]
            check(runs and runs[0]["native_crash"]["protobuf"], "the protobuf was read")
            expect_full(crash_frames(rep), marks, "protobuf")

        # 2. a stripped copy and a .build-id tree of its debug info
        tree = os.path.join(tmp, "tree")
        debug = os.path.join(tree, ".build-id", build_id[:2], build_id[2:] + ".debug")
        os.makedirs(os.path.dirname(debug))
        subprocess.run(["objcopy", "--only-keep-debug", lib, debug], check=True)
        stripped = os.path.join(tmp, "stripped")
        os.makedirs(stripped)
        subprocess.run(["strip", "--strip-all", "-o", os.path.join(stripped, "libcrashy.so"), lib],
                       check=True)
        rep, _ = report_json(lw, base + ["--symbols", stripped, "--symbols", tree, bundle])
        if rep:
            expect_full(crash_frames(rep), marks, ".build-id tree")

        # 3. the stripped copy alone: .dynsym's functions, no lines
        rep, _ = report_json(lw, base + ["--symbols", stripped, bundle])
        if rep:
            lib_frames = [f for f in crash_frames(rep)
                          if f["library"] and f["library"].endswith("libcrashy.so")]
            got = [lines_of(f) for f in lib_frames]
            check(got == [[("crashy_leaf", "", None, False)], [("crashy_middle", "", None, False)],
                          [("crashy_entry", "", None, False)]],
                  "stripped: functions from the symbol table alone: %s" % got)

        # 4. another build of the library's name: never used
        other = os.path.join(tmp, "other")
        os.makedirs(other)
        data = bytearray(open(lib, "rb").read())
        at = data.find(bytes.fromhex(build_id))
        check(at > 0, "the build id is in the library's bytes")
        data[at] ^= 0xff
        with open(os.path.join(other, "libcrashy.so"), "wb") as f:
            f.write(data)
        rep, _ = report_json(lw, base + ["--symbols", other, bundle])
        if rep:
            lib_frames = [f for f in crash_frames(rep)
                          if f["library"] and f["library"].endswith("libcrashy.so")]
            check(lib_frames and all(
                f["symbolicated"] is None and "another build id" in (f["not_symbolicated"] or "")
                for f in lib_frames), "mismatch: left, saying why: %r" % lib_frames)
            check(all(f["symbol"] and f["symbol"].startswith("crashy_") for f in lib_frames),
                  "mismatch: the tombstone's own symbols are kept: %r" % lib_frames)

        # ... a tombstone without build ids: not by name either
        nobid = os.path.join(tmp, "nobid")
        os.makedirs(nobid)
        with open(os.path.join(nobid, "tombstone_00"), "w") as f:
            f.write(re.sub(r" \(BuildId: [0-9a-f]+\)", "", text))
        rep, _ = report_json(lw, base + ["--symbols", unstripped, nobid])
        if rep:
            frames = crash_frames(rep)
            check(frames and all(f["symbolicated"] is None and f["not_symbolicated"] ==
                                 "the tombstone writes no build id for its library" for f in frames),
                  "no build id: nothing symbolicated by name: %r" % frames)

        # 5. without --symbols
        rep, _ = report_json(lw, base + [bundle])
        if rep:
            frames = crash_frames(rep)
            check(frames and all(f["symbolicated"] is None and f["not_symbolicated"] is None
                                 for f in frames), "without --symbols: frames as written")
            check(frames and frames[0]["build_id"] == build_id and frames[0]["pc"].startswith("0x"),
                  "the raw frame keeps its build id and pc: %r" % frames[:1])

        # 6. the text report: the app's frames first, symbolicated
        p = lastwords(lw, ["report"] + base + ["--symbols", unstripped, bundle])
        out = p.stdout
        first = re.search(r"^frames +#00 (.*)$", out, re.M)
        # the file as the debug info names it: relative to where it was compiled
        src = r"\S*tests/crashy/crashy\.c"
        check(p.returncode == 0 and first and
              re.match(r"poke \(%s:%d\), inlined in crashy_leaf \(%s:%d\)  libcrashy\.so$"
                       % (src, marks["poke"], src, marks["leaf-calls-poke"]), first.group(1)),
              "text: frame #00 symbolicated first:\n" + out)
        check(re.search(r"#02 crashy_entry \(%s:%d\)  libcrashy\.so" % (src, marks["entry-calls-middle"]),
                        out),
              "text: #02 crashy_entry with its line:\n" + out)
        # the driver's own frame and libc's are not the app's (absolute paths
        # outside /data/app): counted after the app's, the first named
        check(re.search(r"^ +and 2 frames outside the app's libraries, the first #03 symbols-crash "
                        r"\+0x[0-9a-f]+$", out, re.M),
              "text: the frames outside the app are counted:\n" + out)
        check("libc.so" not in out, "text: libc's frame is counted, not listed")

        # ... and the trace's tombstone event names the top app frame, symbolicated
        trace = os.path.join(tmp, "crash.pftrace")
        p = lastwords(lw, ["trace", "-o", trace] + base + ["--symbols", unstripped, bundle])
        with open(trace, "rb") as f:
            data = f.read()
        check(p.returncode == 0 and b"top app frame" in data and
              re.search(rb"#00 poke \(\S*crashy\.c:%d\), inlined in crashy_leaf" % marks["poke"], data),
              "trace: the tombstone's top app frame, symbolicated: %d %s" % (p.returncode, p.stderr))

        # 7. bad --symbols
        p = lastwords(lw, ["report", "--symbols", tomb, bundle])
        check(p.returncode == 2 and "not one" in p.stderr,
              "--symbols FILE: usage error: %d %s" % (p.returncode, p.stderr))
        p = lastwords(lw, ["report", "--symbols", os.path.join(tmp, "nowhere"), bundle])
        check(p.returncode == 2 and "nowhere" in p.stderr,
              "--symbols missing: usage error: %d %s" % (p.returncode, p.stderr))
    finally:
        shutil.rmtree(tmp)
    return finish("report-symbols: a real crash symbolicated by build id")


if __name__ == "__main__":
    sys.exit(main())
