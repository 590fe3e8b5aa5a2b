#!/usr/bin/env python3
"""The man pages are correct: they lint, their C examples build and run, and
their shell examples exit as documented.

  (a) `mandoc -Tlint -Wwarning` is clean on every page in man/; every public
      function of include/lastwords/probe.h has a page (a file, or a symlink
      that man/meson.build installs) whose SYNOPSIS gives the same prototype;
      every function page has CALLING CONTEXT, RETURN VALUES, ERRORS and
      EXAMPLES sections.
  (b) every EXAMPLES block that holds a whole C program (liblastwords.3,
      lw_open.3) is compiled against the static liblastwords and run with a
      fresh directory as argv[1]; it must exit 0 and leave a ring file there
      that ended cleanly.
  (c) every `$ command` line in the EXAMPLES of lastwords.1 and
      lastwords-ring.5 is run from the source root, with `lastwords` replaced
      by the built binary, and must exit with the status that the preceding
      `# exits N` line documents, and print the output lines shown after it
      (a line `...` stands for any number of lines; paths under /tmp/lw-example/
      are put in one fresh temporary directory). An example is skipped,
      with a message, when the binary or one of its fixture files does not
      exist yet; once they exist, a different exit status fails.
  (e) every EXAMPLES block that holds a whole Java program (lastwords-java.3)
      is compiled against lastwords.jar (an Android one, which imports
      dev.lastwords.android, against lastwords-android.jar and the stand-in
      android.* classes too, and only compiled) and run on the JVM with a fresh
      directory as args[0], when a JDK built the jar (--jar); it must exit
      0 and leave a ring file there that ended cleanly.
  (d) the header and slot tables of lastwords-ring.5 give the same fields,
      offsets and sizes as schemas/ring-format.md (tests/docs-format.c checks
      that document against the structs).

Exit status: 0 pass, 1 fail, 77 when nothing at all could be checked.
"""

import argparse
import os
import re
import shlex
import struct
import subprocess
import sys
import tempfile

from helpers import SKIP, fail, failures

RING_MAGIC = b"\x89LWR\r\n\x1a\n"
STATE_CLEAN_EXIT = 2

skips = []
checked = 0


def skip(msg):
    skips.append(msg)
    print("SKIP: " + msg)


def ok(msg):
    global checked
    checked += 1
    print("ok: " + msg)


def unescape(line):
    """The roff escapes used in literal blocks, back to plain text."""
    for esc, plain in (("\\e", "\\"), ("\\&", ""), ("\\(aq", "'"), ("\\(dq", '"'),
                       ("\\-", "-"), ("\\(ti", "~"), ("\\(ha", "^")):
        line = line.replace(esc, plain)
    return line


def sections(text):
    """{section name: [lines]} of an mdoc page."""
    out, cur = {}, None
    for line in text.splitlines():
        if line.startswith(".Sh "):
            cur = line[4:].strip().strip('"')
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def literal_blocks(lines):
    """The .Bd -literal ... .Ed blocks in lines, unescaped, with the line
    number (within lines) where each starts."""
    blocks, cur, start = [], None, 0
    for i, line in enumerate(lines):
        if cur is None and line.startswith(".Bd") and "-literal" in line:
            cur, start = [], i + 1
        elif cur is not None and line.startswith(".Ed"):
            blocks.append((start, cur))
            cur = None
        elif cur is not None:
            cur.append(unescape(line))
    return blocks


def pages(man_dir):
    return sorted(f for f in os.listdir(man_dir) if re.search(r"\.[1-9]$", f))


# --- (a) lint, prototypes, sections ---------------------------------------

def header_prototypes(probe_h):
    """{name: normalized prototype} of the LW_API functions."""
    text = open(probe_h).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    protos = {}
    for m in re.finditer(r"LW_API\s+([^;]*?)\b(lw_\w+)\s*\(([^)]*)\)\s*;", text, re.S):
        ret, name, args = m.group(1), m.group(2), m.group(3)
        protos[name] = normalize(ret, name, [a for a in args.split(",")])
    return protos


def normalize(ret, name, args):
    ret = " ".join(ret.split()).replace(" *", "*").replace("* ", "*")
    args = [" ".join(a.split()).replace(" *", "*").replace("* ", "*") for a in args]
    return "%s %s(%s)" % (ret, name, ", ".join(args))


def page_prototypes(text):
    """{name: normalized prototype} from the .Ft/.Fn pairs of SYNOPSIS."""
    syn = sections(text).get("SYNOPSIS", [])
    protos, ret = {}, None
    for line in syn:
        if line.startswith(".Ft "):
            ret = line[4:].strip().strip('"')
        elif line.startswith(".Fn ") and ret is not None:
            words = shlex.split(line[4:])
            protos[words[0]] = normalize(ret, words[0], words[1:])
            ret = None
    return protos


def check_pages(args):
    man_dir = args.man_dir
    names = pages(man_dir)
    if not args.mandoc:
        skip("mandoc not found: the pages are not linted")
    else:
        for page in names:
            r = subprocess.run([args.mandoc, "-Tlint", "-Wwarning", page], cwd=man_dir,
                               capture_output=True, text=True)
            out = (r.stdout + r.stderr).strip()
            if r.returncode != 0 or out:
                fail("mandoc -Tlint -Wwarning %s (exit %d):\n%s" % (page, r.returncode, out))
            else:
                ok("mandoc -Tlint %s" % page)

    # Each page installed under another name: from man/meson.build.
    meson_build = open(os.path.join(man_dir, "meson.build")).read()
    aliases = dict(re.findall(r"'(\w+\.3)'\s*:\s*'(\w+\.3)'", meson_build))
    for page in names:
        if "'%s'" % page not in meson_build:
            fail("man/meson.build does not install %s" % page)
    for alias, target in aliases.items():
        if target not in names:
            fail("man/meson.build links %s to %s, which does not exist" % (alias, target))

    want = header_prototypes(os.path.join(args.include, "lastwords", "probe.h"))
    documented = {}
    for page in names:
        if not page.endswith(".3"):
            continue
        text = open(os.path.join(man_dir, page)).read()
        secs = sections(text)
        if page != "liblastwords.3":
            for s in ("CALLING CONTEXT", "RETURN VALUES", "ERRORS", "EXAMPLES"):
                if s not in secs:
                    fail("%s has no %s section" % (page, s))
        for name, proto in page_prototypes(text).items():
            documented[name] = page
            if name not in want:
                fail("%s documents %s, which probe.h does not declare" % (page, name))
            elif proto != want[name]:
                fail("%s: SYNOPSIS gives '%s', probe.h declares '%s'" % (page, proto, want[name]))
    for name in sorted(want):
        page = documented.get(name)
        if page is None:
            fail("%s has no man page" % name)
        elif name + ".3" != page and aliases.get(name + ".3") != page:
            fail("%s is documented in %s, but no %s.3 is installed" % (name, page, name))
    ok("%d functions of probe.h have a page with their prototype" % len(documented))


# --- (b) the C programs ------------------------------------------------------

def check_programs(args):
    if not args.cc or not args.lib:
        skip("no compiler or library given: the C examples are not built")
        return
    if not os.path.exists(args.lib):
        fail("the static library %s does not exist" % args.lib)
        return
    for page in pages(args.man_dir):
        text = open(os.path.join(args.man_dir, page)).read()
        for start, block in literal_blocks(sections(text).get("EXAMPLES", [])):
            src = "\n".join(block) + "\n"
            if not re.search(r"^main\(", src, re.M):
                continue
            run_program(args, page, src)


def run_program(args, page, src):
    with tempfile.TemporaryDirectory(prefix="lw-docs-") as tmp:
        c_file = os.path.join(tmp, "example.c")
        exe = os.path.join(tmp, "example")
        ring_dir = os.path.join(tmp, "rings")
        os.mkdir(ring_dir)
        with open(c_file, "w") as f:
            f.write(src)
        cmd = list(args.cc) + ["-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror",
                               "-I" + args.include, c_file, args.lib, "-o", exe]
        if args.sanitize and args.sanitize != "none":
            cmd.insert(len(args.cc), "-fsanitize=" + args.sanitize)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail("%s: the EXAMPLES program does not build:\n%s\n%s" %
                 (page, " ".join(cmd), r.stdout + r.stderr))
            return
        r = subprocess.run([exe, ring_dir], capture_output=True, text=True, timeout=60)
        check_run(page, r, ring_dir)


def check_run(page, r, ring_dir):
    """The EXAMPLES program of page ran as r: it exited 0 and left one ring
    in ring_dir, which ended cleanly."""
    if r.returncode != 0:
        fail("%s: the EXAMPLES program exited %d:\n%s" % (page, r.returncode,
                                                           r.stdout + r.stderr))
        return
    rings = [f for f in os.listdir(ring_dir) if f.endswith(".lwr")]
    if len(rings) != 1:
        fail("%s: the EXAMPLES program left %d ring files, not 1: %s" %
             (page, len(rings), rings))
        return
    with open(os.path.join(ring_dir, rings[0]), "rb") as f:
        head = f.read(512)
    if len(head) < 512 or head[:8] != RING_MAGIC:
        fail("%s: %s is not a ring" % (page, rings[0]))
        return
    state = struct.unpack_from("<I", head, 320)[0]
    if state != STATE_CLEAN_EXIT:
        fail("%s: %s has state %d, not CLEAN_EXIT" % (page, rings[0], state))
        return
    ok("%s: the EXAMPLES program builds, runs and leaves %s" % (page, rings[0]))


# --- (e) the Java programs ---------------------------------------------------

def check_java_programs(args):
    if not args.jar:
        skip("no JDK: lastwords.jar was not built, the Java examples are not run")
        return
    from jvm import Jvm
    for page in pages(args.man_dir):
        text = open(os.path.join(args.man_dir, page)).read()
        for start, block in literal_blocks(sections(text).get("EXAMPLES", [])):
            src = "\n".join(block) + "\n"
            m = re.search(r"^public class (\w+)", src, re.M)
            android = "import dev.lastwords.android." in src
            if not m or ("public static void main(" not in src and not android):
                continue
            if android and not args.android_cp:
                fail("%s: an Android example, and no --android-cp to compile it" % page)
                continue
            with tempfile.TemporaryDirectory(prefix="lw-docs-java-") as tmp:
                ring_dir = os.path.join(tmp, "rings")
                os.mkdir(ring_dir)
                jvm = Jvm(args.jar, args.javac, args.jni_path, tmp)
                with open(os.path.join(tmp, m.group(1) + ".java"), "w") as f:
                    f.write(src)
                cp = args.jar + (":" + args.android_cp if android else "")
                cmd = [jvm.javac, "--release", "8", "-Xlint:all,-options", "-Werror",
                       "-cp", cp, "-d", tmp, os.path.join(tmp, m.group(1) + ".java")]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode != 0:
                    fail("%s: the EXAMPLES program does not build:\n%s\n%s" %
                         (page, " ".join(cmd), r.stdout + r.stderr))
                    continue
                if android:  # compiled only: its android.* classes are stand-ins
                    continue
                r = jvm.run(m.group(1), [ring_dir], jsig=True, timeout=60)
                if r is not None:
                    check_run(page, r, ring_dir)


# --- (c) the command lines ---------------------------------------------------

def lastwords_usable(args):
    """None when the built lastwords can run the examples, else why not."""
    if not args.lastwords:
        return "the lastwords command is not built (-Danalyzer=false)"
    if not os.path.exists(args.lastwords):
        return "%s does not exist yet" % args.lastwords
    r = subprocess.run([args.lastwords, "--version"], capture_output=True, text=True,
                       timeout=30)
    if r.returncode == 0 and not (r.stdout + r.stderr).strip():
        # The placeholder main() of a tree where analyzer/ is still being
        # written: it exits 0 and prints nothing, even for --version.
        return "%s --version prints nothing: the command is not implemented yet" % \
            args.lastwords
    return None


def check_commands(args):
    why_not = lastwords_usable(args)
    for page in ("lastwords.1", "lastwords-ring.5"):
        path = os.path.join(args.man_dir, page)
        if not os.path.exists(path):
            fail("%s is missing" % page)
            continue
        text = open(path).read()
        examples = sections(text).get("EXAMPLES")
        if examples is None:
            fail("%s has no EXAMPLES section" % page)
            continue
        n = 0
        for _, block in literal_blocks(examples):
            for command, expect, output in commands_of(block):
                n += 1
                if expect is None:
                    fail("%s: '%s' has no '# exits N' line before it" % (page, command))
                    continue
                run_command(args, page, command, expect, output, why_not)
        if n == 0:
            fail("%s: EXAMPLES has no '$ ' command lines" % page)


def commands_of(block):
    """(command, exit status or None, [output lines]) for each '$ ' line of
    a literal block. '# exits N' before a command gives its status; the
    lines after it, up to the next '#' or '$ ' line, are its output."""
    out, expect, cur = [], None, None
    for line in block:
        m = re.match(r"#\s*exits\s+(\d+)\s*$", line)
        if m or line.startswith("$ ") or line.startswith("#"):
            cur = None
        if m:
            expect = int(m.group(1))
        elif line.startswith("$ "):
            cur = (line[2:].strip(), expect, [])
            out.append(cur)
            expect = None
        elif cur is not None:
            cur[2].append(line.rstrip())
    for _, _, lines in out:
        while lines and not lines[-1]:
            lines.pop()
    return out


def output_matches(expected, actual):
    """Line by line; an expected line '...' stands for any number of lines."""
    if not expected:
        return True
    if expected[0] == "...":
        rest = expected[1:]
        return any(output_matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0] == expected[0] and \
        output_matches(expected[1:], actual[1:])


EXAMPLE_DIR = "/tmp/lw-example/"  # the pages' stand-in for a fresh directory
example_tmp = None


def example_paths(words):
    """Put the pages' /tmp/lw-example/ paths in one fresh directory."""
    global example_tmp
    if example_tmp is None:
        example_tmp = tempfile.TemporaryDirectory(prefix="lw-example-")
    return [w.replace(EXAMPLE_DIR, example_tmp.name + "/") for w in words]


def run_command(args, page, command, expect, output, why_not):
    argv = example_paths(shlex.split(command))
    output = example_paths(output) if output else output
    if argv[0] == "lastwords":
        if why_not:
            skip("%s: '%s': %s" % (page, command, why_not))
            return
        argv[0] = args.lastwords
    missing = [a for a in argv[1:] if a.startswith("fixtures/") and
               not os.path.exists(os.path.join(args.source_root, a))]
    if missing:
        skip("%s: '%s': fixture %s does not exist yet" % (page, command, ", ".join(missing)))
        return
    r = subprocess.run(argv, cwd=args.source_root, capture_output=True, text=True, timeout=60)
    if r.returncode != expect:
        fail("%s: '%s' exited %d, the page says %d\nstdout:\n%s\nstderr:\n%s" %
             (page, command, r.returncode, expect, r.stdout[-2000:], r.stderr[-2000:]))
        return
    if r.returncode < 0:
        fail("%s: '%s' died by signal %d" % (page, command, -r.returncode))
        return
    if output:
        # The pages show output only for commands that write to one stream.
        actual = [l.rstrip() for l in (r.stdout + r.stderr).splitlines()]
        while actual and not actual[-1]:
            actual.pop()
        if not output_matches(output, actual):
            fail("%s: '%s' printed:\n%s\nthe page shows:\n%s" %
                 (page, command, "\n".join(actual[:40]), "\n".join(output)))
            return
    ok("%s: '%s' exits %d%s" % (page, command, expect,
                                 ", with the output shown" if output else ""))


# --- (d) lastwords-ring.5 against schemas/ring-format.md ---------------------

def spec_rows(spec, heading):
    """(offset, size, name) rows of the table under a heading of the spec."""
    rows, inside = [], False
    for line in open(spec):
        if line.startswith("#"):
            inside = line.startswith(heading)
            continue
        if not inside or not line.startswith("|"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) < 3 or not cells[0].isdigit() or not cells[1].isdigit():
            continue
        name = cells[2].strip("`").split("[")[0]
        rows.append((int(cells[0]), int(cells[1]), name))
    return rows


def man_rows(text, column_tag):
    """(offset, size, name) rows of the .Bl -column list that follows the
    subsection column_tag in lastwords-ring.5."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith(".Ss "):
            inside = line[4:].strip() == column_tag
            continue
        if inside and line.startswith(".It ") and " Ta " in line:
            cells = [c.strip() for c in line[4:].split(" Ta ")]
            if cells[0].isdigit() and cells[1].isdigit():
                rows.append((int(cells[0]), int(cells[1]), cells[2].split("[")[0]))
    return rows


def check_ring5(args):
    spec = os.path.join(args.source_root, "schemas", "ring-format.md")
    page = os.path.join(args.man_dir, "lastwords-ring.5")
    if not os.path.exists(spec):
        fail("schemas/ring-format.md is missing")
        return
    text = open(page).read()
    for heading, tag in (("## 5. ", "Header"), ("## 7. ", "Slots")):
        a, b = spec_rows(spec, heading), man_rows(text, tag)
        if not a or a != b:
            fail("lastwords-ring.5 '%s' table differs from ring-format.md:\n  man:  %s\n"
                 "  spec: %s" % (tag, b, a))
        else:
            ok("lastwords-ring.5 %s table matches ring-format.md (%d fields)" % (tag, len(a)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--source-root", required=True)
    p.add_argument("--man-dir", required=True)
    p.add_argument("--include", required=True)
    p.add_argument("--lib", help="the static liblastwords")
    p.add_argument("--mandoc")
    p.add_argument("--lastwords", help="the built lastwords command")
    p.add_argument("--sanitize", default="none", help="b_sanitize of the build")
    p.add_argument("--jar", help="lastwords.jar, when a JDK built it")
    p.add_argument("--javac", help="the javac that built it")
    p.add_argument("--android-cp", help="lastwords-android.jar and the stand-in android.* "
                   "classes, to compile the Android examples against")
    p.add_argument("--jni-path", help="the directory of liblastwords_jni.so")
    p.add_argument("--cc", nargs=argparse.REMAINDER, default=[],
                   help="the C compiler command and its flags; the rest of the line")
    args = p.parse_args()
    # meson gives build targets relative to the build directory, the cwd here;
    # the shell examples run from the source root.
    for attr in ("lib", "lastwords", "mandoc", "jar"):
        if getattr(args, attr):
            setattr(args, attr, os.path.abspath(getattr(args, attr)))

    check_pages(args)
    check_programs(args)
    check_java_programs(args)
    check_commands(args)
    check_ring5(args)

    print("docs-man: %d checked, %d skipped, %d failed" % (checked, len(skips), len(failures)))
    if failures:
        return 1
    if checked == 0:
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main())
