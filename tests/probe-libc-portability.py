#!/usr/bin/env python3
"""Check that liblastwords.so, or the JNI library over it
(liblastwords_jni.so), imports only what Android's bionic libc has.

usage: probe-libc-portability.py LIB.so ALLOWLIST [B_SANITIZE]

Every undefined dynamic symbol (nm -D --undefined-only), with its version
suffix (@GLIBC_2.2.5) stripped, must be on ALLOWLIST
(tests/bionic-libc.allow), but for the probe's own functions that the JNI
library imports from liblastwords.so (version LASTWORDS_*). When the build is sanitized (B_SANITIZE is not
"none"), the sanitizer runtime's symbols are ignored. A symbol that only
glibc has is rejected, or the test itself is broken.

Environment: NM overrides the tool. Exit 0 pass, 77 skip, 1 fail.
"""
import os
import shutil
import subprocess
import sys

from helpers import fatal, skip
from symbols import SANITIZER_PREFIXES, read_allow, rejected

GLIBC_ONLY = "argp_parse"  # GNU argp: not in bionic




def read_bionic_allow(path):
    allow = read_allow(path)
    if GLIBC_ONLY in allow:
        fatal("%s lists %s, which bionic does not have" % (path, GLIBC_ONLY))
    return allow


def parse_nm(text):
    """(name, kind) of each undefined symbol, version suffix stripped; the
    probe's own (@LASTWORDS_*) are left out."""
    syms = []
    for line in text.splitlines():
        words = line.split()
        if len(words) < 2 or "@LASTWORDS_" in words[-1]:
            continue
        kind, name = words[-2], words[-1]
        syms.append((name.split("@")[0], kind))
    return syms




def main():
    if len(sys.argv) not in (3, 4):
        fatal(__doc__.strip().splitlines()[2])
    lib, allow_path = sys.argv[1], sys.argv[2]
    sanitize = sys.argv[3] if len(sys.argv) == 4 else "none"
    sanitized = sanitize not in ("", "none", "[]")
    nm = os.environ.get("NM") or shutil.which("nm")
    if not nm:
        skip("no 'nm'")
    allow = read_bionic_allow(allow_path)
    if sanitized:
        print("sanitized build (b_sanitize=%s): ignoring symbols starting with %s"
              % (sanitize, ", ".join(SANITIZER_PREFIXES)))

    res = subprocess.run([nm, "-D", "--undefined-only", lib], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True)
    if res.returncode != 0:
        fatal("nm -D %s: %s" % (lib, res.stderr.strip()))
    syms = parse_nm(res.stdout)
    names = {n for n, _ in syms}
    client = "@LASTWORDS_" in res.stdout
    if "sigaction" not in names or not client and "mmap64" not in names and "mmap" not in names:
        fatal("%s does not import sigaction, and mmap or the probe's functions: is it "
              "liblastwords.so or liblastwords_jni.so?" % lib)

    # The check must be able to fail.
    probe = parse_nm("                 U %s@GLIBC_2.2.5\n" % GLIBC_ONLY)
    if rejected([n for n, _ in probe], allow, sanitized) != [GLIBC_ONLY]:
        fatal("the check accepted %s, which bionic lacks" % GLIBC_ONLY)

    bad = rejected([n for n, _ in syms], allow, sanitized)
    if bad:
        for name in bad:
            print("not known to be in bionic (not in %s): %s"
                  % (os.path.basename(allow_path), name), file=sys.stderr)
        fatal("%s imports %d symbol(s) off the bionic allow-list" % (os.path.basename(lib),
                                                                    len(bad)))
    print("%s: %d undefined dynamic symbols, all in bionic's libc"
          % (os.path.basename(lib), len(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
