#!/usr/bin/env python3
"""A bug report zip is untrusted input (issue 11, part 2): every hostile
archive gets a clear reason naming the archive or the entry, a documented
exit status, and nothing is ever written:

- entries named with '..' or absolutely (and one that climbs out of
  FS/data/tombstones) are named and never read, let alone written: no
  file appears where they point, and their records are not in the report;
  the report goes on with the rest (exit 0);
- zip bombs are capped and named, exit 4: an entry that declares more than
  1 GiB, entries that together declare more than 2 GiB, an entry that
  inflates past the size it declares;
- a bad CRC, a truncated archive, an encrypted entry: exit 4, each with
  its reason;
- a zip that holds no bug report, or whose main_entry.txt names a path
  outside it: exit 4, said;
- two entries of one name are named; main_entry.txt is read up to 64 KiB,
  and a larger one is refused with that limit;
- a main text that cannot be read exits 4 zipped (a bad CRC) and unzipped
  alike (a FIFO, a directory, a link out of the bug report);
- an unknown section layout (lines outside any section, a section of a
  title nobody knows) is counted and skipped, never fatal (exit 0).

Exit 4 is LW_EXIT_INPUT (analyzer/commands.h, lastwords(1)): an input could
not be read; the others were processed.

usage: hostile-zips.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import struct
import tempfile
import zipfile

from bugreports import BugReport, section
from helpers import check, finish, lastwords_within, setup

PACKAGE = "com.example.vision"  # the lmkd kill's, judged
TOMBSTONE = "fixtures/evidence/tombstone/plain-gpu-delegate.txt"


def base(root, taken="2025-06-10 23:59:00"):
    """A small bug report with one lmkd kill in its SYSTEM LOG."""
    br = BugReport(taken, "Europe/Berlin", 120)
    br.add("logcat", "logcat", "06-10 14:00:06.410   612   612 I lowmemorykiller: Kill "
           "'com.example.vision:inference' (7311), uid 10231, oom_score_adj 200 to free 262144kB "
           "rss, 18432kB swap; reason: low watermark is breached and thrashing (41%)\n")
    return br


def central(data):
    """{name: (local header offset, central header offset)} of a zip."""
    eocd = data.rfind(b"PK\x05\x06")
    n, size, off = struct.unpack_from("<HII", data, eocd + 10)
    out = {}
    p = off
    for _ in range(n):
        nlen, xlen, clen = struct.unpack_from("<HHH", data, p + 28)
        local = struct.unpack_from("<I", data, p + 42)[0]
        out[data[p + 46:p + 46 + nlen].decode()] = (local, p)
        p += 46 + nlen + xlen + clen
    return out


def patch(path, name, usize=None, flag=None):
    """Rewrite an entry's declared plain size or its flags, in its local
    header and its central directory entry alike (so the archive stays
    consistent)."""
    with open(path, "rb") as f:
        data = bytearray(f.read())
    local, cent = central(bytes(data))[name]
    if usize is not None:
        struct.pack_into("<I", data, local + 22, usize)
        struct.pack_into("<I", data, cent + 24, usize)
    if flag is not None:
        struct.pack_into("<H", data, local + 6, flag)
        struct.pack_into("<H", data, cent + 8, flag)
    with open(path, "wb") as f:
        f.write(data)


def run(lw, args, cwd=None):
    p = lastwords_within(lw, args, 60, cwd=cwd)
    return p if p else type("P", (), {"returncode": -1, "stdout": "", "stderr": "timeout"})()


def refused(lw, what, path, entry, reason):
    """report exits 4 and names entry (None: the archive) with reason; so
    does inspect."""
    name = path if entry is None else "%s:%s" % (path, entry)
    for cmd in (["report"], ["inspect"]):
        p = run(lw, cmd + [path])
        check(p.returncode == 4 and ("'%s'" % name) in p.stderr and reason in p.stderr,
              "%s: %s exits 4 naming '%s' and why (%s): exit %d, %r"
              % (what, cmd[0], name, reason, p.returncode, p.stderr))


def names_outside(lw, root, tmp):
    """Entries named to climb out are never read nor written."""
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    target = os.path.join(tmp, "escaped-abs")
    br = base(root)
    tomb = open(os.path.join(root, TOMBSTONE)).read()
    bad = ["../escaped-dotdot", target, "FS/data/tombstones/../../../escaped-inside",
           "FS/data/anr/..\\..\\escaped-backslash"]
    br.extra_entries = [(n, tomb.encode()) for n in bad]
    br.write_zip(os.path.join(work, "outside.zip"))
    before = sorted(os.listdir(tmp)), sorted(os.listdir(work))
    p = run(lw, ["report", "--format", "json", "--package", PACKAGE, "outside.zip"], cwd=work)
    check(p.returncode == 0, "names that climb out: the rest is read, exit 0: %d %r"
          % (p.returncode, p.stderr))
    check((sorted(os.listdir(tmp)), sorted(os.listdir(work))) == before and
          not os.path.exists(target) and not os.path.exists(os.path.join(tmp, "escaped-dotdot")),
          "nothing was written where the names point")
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        rep = {"inputs": [], "runs": []}
    skipped = {i["file"]: i.get("skipped", "") for i in rep["inputs"]}
    for n in bad:
        why = skipped.get("outside.zip:" + n, "")
        check("never read" in why and ("'..'" in why or "absolute" in why or "backslash" in why),
              "'%s' is named and never read: %r" % (n, why))
    check(all(r["classification"] != "native_crash" for r in rep["runs"]),
          "the tombstone under those names was not read: %s"
          % [(r["pid"], r["classification"]) for r in rep["runs"]])
    check(any(r["pid"] == 7311 for r in rep["runs"]), "the rest of the bug report was read")
    p = run(lw, ["inspect", "outside.zip"], cwd=work)
    check(p.returncode == 0 and "outside.zip:../escaped-dotdot: left out: an entry with a name "
          "that climbs out with '..': never read" in p.stdout,
          "inspect names them too: %d %r" % (p.returncode, p.stdout[-300:]))


def bombs(lw, root, tmp):
    br = base(root)
    main = br.main_name()
    # declares 3 GiB
    z = br.write_zip(os.path.join(tmp, "declares.zip"))
    patch(z, main, usize=3 << 30)
    refused(lw, "an entry that declares 3 GiB", z, main, "a zip bomb: it declares 3221225472 bytes")
    # inflates past what it declares: 10 MB of a line said to be 4096 bytes
    br2 = base(root)
    br2.extra_sections = [section("FILLER", "cat /dev/zero", ("0" * 1000 + "\n") * 10000)]
    z = br2.write_zip(os.path.join(tmp, "inflates.zip"))
    patch(z, br2.main_name(), usize=4096)
    refused(lw, "an entry that inflates past its size", z, br2.main_name(),
            "a zip bomb: it inflates past the 4096 bytes its directory entry declares")
    # together more than 2 GiB: three tombstones said to be 900 MB each
    br3 = base(root)
    tomb = open(os.path.join(root, TOMBSTONE)).read()
    for _ in range(3):
        br3.add("tombstone", "t", tomb)
    z = br3.write_zip(os.path.join(tmp, "together.zip"))
    for k in range(3):
        patch(z, "FS/data/tombstones/tombstone_%02d" % k, usize=900 << 20)
    refused(lw, "entries that together declare more than 2 GiB", z,
            "FS/data/tombstones/tombstone_02", "more than the 2 GiB they may inflate to together")


def damaged(lw, root, tmp):
    br = base(root)
    main = br.main_name()
    # a bad CRC: a stored entry with one byte changed
    z = br.write_zip(os.path.join(tmp, "crc.zip"), method=zipfile.ZIP_STORED)
    with open(z, "rb") as f:
        data = bytearray(f.read())
    local = central(bytes(data))[main][0]
    nlen, xlen = struct.unpack_from("<HH", data, local + 26)
    at = local + 30 + nlen + xlen + 200
    data[at] ^= 0x20
    with open(z, "wb") as f:
        f.write(data)
    refused(lw, "a bad CRC", z, main, "its CRC does not match its bytes")
    # truncated: the second half gone
    z = br.write_zip(os.path.join(tmp, "truncated.zip"))
    with open(z, "rb") as f:
        data = f.read()
    with open(z, "wb") as f:
        f.write(data[:len(data) // 2])
    refused(lw, "a truncated archive", z, None, "not a whole zip archive")
    # encrypted: the main text's flag says so
    z = br.write_zip(os.path.join(tmp, "encrypted.zip"))
    patch(z, main, flag=1)
    refused(lw, "an encrypted entry", z, main, "encrypted")
    # no bug report in it
    z = os.path.join(tmp, "other.zip")
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("readme.txt", "hello\n")
    refused(lw, "a zip that holds no bug report", z, None, "a zip archive that holds no bug report")
    # main_entry.txt names a path out of it
    br.main_entry = False
    br.extra_entries = [("main_entry.txt", b"../../etc/passwd")]
    z = br.write_zip(os.path.join(tmp, "main-out.zip"))
    refused(lw, "main_entry.txt naming a path out of it", z, None,
            "main_entry.txt names no file of the bug report")


def messages(lw, root, tmp):
    """What is wrong is said in the input's terms, with the real limits
    (issue 20, 4.7): two entries of one name are named, not "File already
    exists"; main_entry.txt is read up to 64 KiB (a zip entry's name has at
    most 65535 bytes), so a 5 KB one is read, and a larger one is refused
    with its limit in a unit that fits, not "larger than 0 MiB"."""
    tomb = open(os.path.join(root, TOMBSTONE)).read().encode()
    br = base(root)
    dup = "FS/data/tombstones/tombstone_00"
    br.extra_entries = [(dup, tomb), (dup, tomb)]
    z = os.path.join(tmp, "duplicate.zip")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
        br.write_zip(z)
    refused(lw, "two entries of one name", z, None,
            "two entries named '%s': which one is meant is not known" % dup)
    p = run(lw, ["report", z])
    check("already exists" not in p.stderr, "no libzip words: %r" % p.stderr)
    # a main_entry.txt of 5 KB: its name, then blank lines
    br = base(root)
    br.main_entry = False
    br.extra_entries = [("main_entry.txt", br.main_name().encode() + b"\n" * 5000)]
    z = br.write_zip(os.path.join(tmp, "main-5k.zip"))
    p = run(lw, ["report", "--format", "json", "--package", PACKAGE, z])
    try:
        pids = [r["pid"] for r in json.loads(p.stdout)["runs"]]
    except ValueError:
        pids = []
    check(p.returncode == 0 and pids == [7311],
          "a 5 KB main_entry.txt is read: exit %d, %s, %r" % (p.returncode, pids, p.stderr))
    # a compression method nobody reads
    br2 = base(root)
    z = br2.write_zip(os.path.join(tmp, "method.zip"))
    with open(z, "rb") as f:
        data = bytearray(f.read())
    local, cent = central(bytes(data))[br2.main_name()]
    struct.pack_into("<H", data, local + 8, 77)
    struct.pack_into("<H", data, cent + 10, 77)
    with open(z, "wb") as f:
        f.write(data)
    refused(lw, "an unknown compression method", z, br2.main_name(),
            "compressed by method 77, which this build of libzip does not read")
    # one past its limit
    br.extra_entries = [("main_entry.txt", br.main_name().encode() + b" " * (64 << 10))]
    z = br.write_zip(os.path.join(tmp, "main-big.zip"))
    refused(lw, "a main_entry.txt over its limit", z, None,
            "main_entry.txt cannot be read: larger than 64 KiB, the most that is read of "
            "main_entry.txt (a zip entry's name has at most 65535 bytes)")


def unreadable_main(lw, root, tmp):
    """A bug report whose main text cannot be read fails alike zipped and
    unzipped (issue 20, 4.9): exit 4, naming the text and why. Zipped, a
    main entry that fails its CRC; unzipped, a main text that is a FIFO
    (never waited on), a directory or a link out of the bug report."""
    br = base(root)
    main = br.main_name()
    z = br.write_zip(os.path.join(tmp, "crc.zip"), method=zipfile.ZIP_STORED)
    with open(z, "rb") as f:
        data = bytearray(f.read())
    local = central(bytes(data))[main][0]
    nlen, xlen = struct.unpack_from("<HH", data, local + 26)
    data[local + 30 + nlen + xlen + 200] ^= 0x20
    with open(z, "wb") as f:
        f.write(data)
    refused(lw, "zipped, a main text that fails its CRC", z, main, "its CRC does not match")
    for what, make, reason in (
            ("a FIFO", os.mkfifo, "not a regular file: a FIFO"),
            ("a directory", os.mkdir, "a directory, not a text"),
            ("a link out of it", lambda p: os.symlink("/etc/passwd", p),
             "a symbolic link out of the input: not read")):
        d = os.path.join(tmp, "dir-" + what.split()[-1])
        br.write_dir(d)
        text = os.path.join(d, main)
        os.remove(text)
        make(text)
        p = run(lw, ["report", d])
        check(p.returncode == 4 and ("'%s'" % text) in p.stderr and
              ("the bug report's main text cannot be read: " + reason) in p.stderr,
              "unzipped, a main text that is %s: exit 4 naming it: exit %d, %r"
              % (what, p.returncode, p.stderr))


def unknown_layout(lw, root, tmp):
    """Lines of no known layout between sections, and a section nobody
    knows, are counted and skipped."""
    br = base(root)
    br.extra_sections = ["##### VENDOR BLOCK 7 #####\nfoo=1\nbar=2\n",
                         section("VENDOR XYZ STATE", "/vendor/bin/xyz --dump", "state=ok\n")]
    z = br.write_zip(os.path.join(tmp, "layout.zip"))
    text = "%s:%s" % (z, br.main_name())
    p = run(lw, ["report", "--format", "json", "--package", PACKAGE, z])
    check(p.returncode == 0, "an unknown layout is not fatal: exit %d %r" % (p.returncode, p.stderr))
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        return
    lines = br.text().splitlines()
    first = lines.index("##### VENDOR BLOCK 7 #####") + 1
    nu = {i["file"]: i.get("not_understood") for i in rep["inputs"]}
    check(nu.get(text) == {"lines": 3, "first_line": first},
          "its 3 lines are counted, from line %d: %s" % (first, nu.get(text)))
    check([(r["pid"], r["classification"]) for r in rep["runs"]] == [(7311, "low_memory")],
          "the rest is read: %s" % [(r["pid"], r["classification"]) for r in rep["runs"]])
    p = run(lw, ["inspect", z])
    check(p.returncode == 0 and "VENDOR XYZ STATE: holds no evidence, skipped" in p.stdout and
          "3 not understood, first at line %d" % first in p.stdout,
          "inspect lists the unknown section and counts the lines: %r" % p.stdout)


def main():
    lw, root = setup(__doc__)
    with tempfile.TemporaryDirectory() as tmp:
        for case in (names_outside, bombs, damaged, messages, unreadable_main, unknown_layout):
            d = os.path.join(tmp, case.__name__)
            os.makedirs(d)
            case(lw, root, d)
    return finish("hostile bug report zips")


if __name__ == "__main__":
    raise SystemExit(main())
