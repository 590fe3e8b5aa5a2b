#!/usr/bin/env python3
"""Check mechanically that the crash path calls only async-signal-safe code.

usage: probe-signal-safety.py LIBLASTWORDS.a ALLOWLIST [B_SANITIZE]

Extracts the objects of probe/crash.c and src/crc32c.c from the static
library, links them into one relocatable object (ld -r, so that calls
between them resolve), and checks every symbol still undefined (nm -u)
against ALLOWLIST (tests/signal-safe.allow). When the build is sanitized
(B_SANITIZE is not "none"), the sanitizer runtime's own symbols are
ignored. The same check must reject setup.c.o, which allocates, or the
test itself is broken.

Environment: AR, LD, NM override the tools. Exit 0 pass, 77 skip, 1 fail.
"""
import os
import shutil
import subprocess
import sys
import tempfile

from helpers import fatal, skip
from symbols import SANITIZER_PREFIXES, read_allow, rejected

CRASH_PATH = ("crash.c.o", "crc32c.c.o")
MUST_REJECT = "setup.c.o"




def tool(name):
    path = os.environ.get(name.upper()) or shutil.which(name)
    if not path:
        skip("no '%s' to inspect objects with" % name)
    return path


def run(cmd, cwd=None):
    res = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True)
    if res.returncode != 0:
        fatal("'%s' failed: %s" % (" ".join(cmd), res.stderr.strip()))
    return res.stdout




def undefined(nm, obj):
    syms = set()
    for line in run([nm, "-u", obj]).splitlines():
        words = line.split()
        if words:
            syms.add(words[-1].split("@")[0])
    return syms




def member(members, suffix):
    found = [m for m in members if m == suffix or m.endswith("/" + suffix) or
             m.endswith("_" + suffix)]
    if len(found) != 1:
        fatal("expected one member named like '%s' in the archive, found %s" % (suffix, found))
    return found[0]


def main():
    if len(sys.argv) not in (3, 4):
        fatal(__doc__.strip().splitlines()[2])
    lib, allow_path = sys.argv[1], sys.argv[2]
    sanitize = sys.argv[3] if len(sys.argv) == 4 else "none"
    sanitized = sanitize not in ("", "none", "[]")
    ar, ld, nm = tool("ar"), tool("ld"), tool("nm")
    allow = read_allow(allow_path)
    if sanitized:
        print("sanitized build (b_sanitize=%s): ignoring symbols starting with %s"
              % (sanitize, ", ".join(SANITIZER_PREFIXES)))

    members = run([ar, "t", lib]).split()
    crash_objs = [member(members, m) for m in CRASH_PATH]
    alloc_obj = member(members, MUST_REJECT)
    with tempfile.TemporaryDirectory(prefix="lw-sigsafe-") as tmp:
        run([ar, "x", os.path.abspath(lib)] + crash_objs + [alloc_obj], cwd=tmp)
        combined = os.path.join(tmp, "crash-path.o")
        run([ld, "-r", "-o", combined] + [os.path.join(tmp, os.path.basename(m))
                                          for m in crash_objs])
        defined = run([nm, "--defined-only", combined])
        if "crash_handler_sigsafe" not in defined or "crc32c_slot" not in defined:
            fatal("the combined object lacks the crash handler or the slot checksum")
        syms = undefined(nm, combined)
        bad = rejected(syms, allow, sanitized)
        if bad:
            for s in bad:
                print("not async-signal-safe (not in %s): %s" % (os.path.basename(allow_path), s),
                      file=sys.stderr)
            fatal("the crash path (%s) references %d symbol(s) off the allow-list"
                 % (" + ".join(CRASH_PATH), len(bad)))
        print("crash path (%s): %d undefined symbols, all allowed: %s"
              % (" + ".join(CRASH_PATH), len(syms), " ".join(sorted(syms))))

        # The check must be able to fail: setup.c allocates.
        alloc_bad = rejected(undefined(nm, os.path.join(tmp, os.path.basename(alloc_obj))),
                             allow, sanitized)
        if not alloc_bad or not ({"malloc", "calloc"} & set(alloc_bad)):
            fatal("the same check accepted %s, which calls malloc/calloc: rejected only %s"
                 % (MUST_REJECT, alloc_bad))
        print("self-check: %s rejected for %s" % (MUST_REJECT,
                                                  ", ".join(s for s in alloc_bad
                                                            if s in ("malloc", "calloc"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
