#!/usr/bin/env python3
"""A ring whose 64-byte process name has no NUL (the writer always leaves
one; a hostile or damaged file need not): the report reads the name within
its field, 63 bytes of it, and never past it into the header's next fields.
dump shows all 64.

usage: report-process-name.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import struct
import sys
import tempfile

from helpers import check, crc32c, finish, lastwords, setup

RING = "fixtures/rings/killed-inference.lwr"


def main():
    lw, _ = setup(__doc__)
    name = b"com.example.app:" + b"x" * 48   # 64 bytes, no NUL
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "long.lwr")
        data = bytearray(open(RING, "rb").read())
        data[112:176] = name
        struct.pack_into("<I", data, 252, crc32c(bytes(data[0:252])))
        with open(path, "wb") as f:
            f.write(data)
        p = lastwords(lw, ["report", "--format", "json", path])
        check(p.returncode == 0, "report exits %d: %s" % (p.returncode, p.stderr))
        if p.returncode == 0:
            got = json.loads(p.stdout)["runs"][0]["process"]
            check(got == name[:63].decode(), "the report's process is %r" % got)
        p = lastwords(lw, ["report", path])
        check(("== %s  pid" % name[:63].decode()) in p.stdout, "the text's run line: %r"
              % p.stdout[:200])
        p = lastwords(lw, ["dump", path])
        check(name.decode() in p.stdout, "dump shows the whole field")
    return finish("report-process-name")


if __name__ == "__main__":
    sys.exit(main())
