#!/usr/bin/env python3
"""A tombstone in protobuf (tombstone_NN.pb, or the trace of a native crash
that an app exported with getTraceInputStream()) in a bundle is known and
not read: the report exits 0 and names it as left out, while a file of
other bytes is still an unknown kind (exit 4). Bytes that only begin like
a protobuf, or a protobuf without a build fingerprint, are not taken for
one.

usage: report-tombstone-proto.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, report_json, setup
from tombstone_pb import field, tombstone


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    tmp = tempfile.mkdtemp(prefix="lw-tomb-pb-")
    try:
        bundle = os.path.join(tmp, "bundle")
        shutil.copytree(os.path.join(root, "fixtures", "demo"), bundle)
        pb = os.path.join(bundle, "traces", "tombstone.25706.1764458884675.pb")
        os.makedirs(os.path.dirname(pb))
        with open(pb, "wb") as f:
            f.write(tombstone(25706, "com.example.demo:inference"))
        rep, inputs = report_json(lw, ["--tz", "+01:00", bundle])
        if rep:
            x = inputs.get(pb, {})
            check("protobuf" in x.get("skipped", ""),
                  "the protobuf is left out and named: %r" % x)
            check(len(rep["runs"]) == 5, "the demo's runs are all there: %d" % len(rep["runs"]))
        p = lastwords(lw, ["report", "--tz", "+01:00", bundle])
        check(p.returncode == 0 and "a tombstone in protobuf: not read" in p.stdout,
              "the text report names it: %d %s" % (p.returncode, p.stderr))

        for name, data in (("noise.bin", bytes(range(256)) * 8),
                           ("no-fingerprint.pb", field(1, 1) + field(2, "not one") + field(5, 7)),
                           ("out-of-order.pb", field(5, 7) + field(2, tombstone(1, "x")[2:80]))):
            other = os.path.join(tmp, name)
            with open(other, "wb") as f:
                f.write(data)
            p = lastwords(lw, ["report", "--tz", "+01:00", bundle, other])
            check(p.returncode == 4 and "unknown kind" in p.stderr,
                  "%s is still an unknown kind: %d %s" % (name, p.returncode, p.stderr))
    finally:
        shutil.rmtree(tmp)
    return finish("a tombstone protobuf is named and left out; other bytes are still unknown")


if __name__ == "__main__":
    sys.exit(main())
