#!/usr/bin/env python3
"""Files that are not regular files never make the reader wait or read
what they are not (issue 10, item 2): a FIFO given as an input to dump,
verify, inspect or report, or as a bundle's manifest.json, is refused at
once with exit 4 and a message naming it; a FIFO or a socket found in a
bundle's directory is left out and named in the report's inputs (text and
JSON), and by ingest on stderr, and the rest of the bundle is reported (or
stored) as usual.

Before the fix, every one of these opened the FIFO for reading, which
blocks until a writer comes: each command hit the test's timeout.

usage: report-nonregular.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import socket
import sys
import tempfile

from helpers import check, finish, lastwords_within, report_json, setup

TIMEOUT = 10


def bounded(lw, args):
    """lastwords args, or None (a failure) when it waits on a FIFO."""
    return lastwords_within(lw, args, TIMEOUT)


def main():
    lw, _ = setup(__doc__)
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "pipe.lwr")
        os.mkfifo(fifo)
        for cmd in (["dump"], ["verify"], ["inspect"], ["report"], ["report", "--format", "json"]):
            p = bounded(lw, cmd + [fifo])
            if p:
                check(p.returncode == 4 and fifo in p.stderr and "FIFO" in p.stderr,
                      "%s on a FIFO: exit %d, %r" % (" ".join(cmd), p.returncode, p.stderr))

        # In a bundle: left out and named; the demo's runs are reported.
        bundle = os.path.join(d, "bundle")
        shutil.copytree("fixtures/demo", bundle)
        os.mkfifo(os.path.join(bundle, "logcat-live.txt"))
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(os.path.join(bundle, "rings", "adb.sock"))
        p = bounded(lw, ["report", "--tz", "+01:00", bundle])
        if p:
            check(p.returncode == 0, "bundle with a FIFO and a socket: exit %d, %r"
                  % (p.returncode, p.stderr))
            check("verdict    native_crash, confirmed" in p.stdout,
                  "the demo's runs are still reported: %r" % p.stdout[-400:])
            for name, what in (("logcat-live.txt", "a FIFO"), ("rings/adb.sock", "a socket")):
                check("'%s/%s': not a regular file: %s" % (bundle, name, what) in p.stdout,
                      "the text names the left-out %s: %r" % (name, p.stdout[-600:]))
        rep, inputs = report_json(lw, ["--tz", "+01:00", bundle], TIMEOUT)
        if rep:
            inputs = {os.path.relpath(f, bundle): i for f, i in inputs.items()}
            check(inputs.get("logcat-live.txt", {}).get("skipped") == "not a regular file: a FIFO",
                  "the JSON names the FIFO: %r" % inputs.get("logcat-live.txt"))
            check(inputs.get("rings/adb.sock", {}).get("skipped") == "not a regular file: a socket",
                  "the JSON names the socket: %r" % inputs.get("rings/adb.sock"))
        # ingest names what it left out, as report does (issue 20, 4.13)
        with tempfile.NamedTemporaryFile(suffix=".db") as db:
            p = bounded(lw, ["ingest", "--db", db.name, "--tz", "+01:00", bundle])
            if p:
                check(p.returncode == 0, "ingest of a bundle with a FIFO and a socket: exit %d, %r"
                      % (p.returncode, p.stderr))
                for name, what in (("logcat-live.txt", "a FIFO"), ("rings/adb.sock", "a socket")):
                    check("lastwords: warning: '%s/%s': left out: not a regular file: %s"
                          % (bundle, name, what) in p.stderr,
                          "ingest names the left-out %s: %r" % (name, p.stderr))
        sock.close()

        # A FIFO as the manifest is refused: the manifest says what the
        # pull holds, so the bundle cannot be read without it.
        os.mkfifo(os.path.join(bundle, "manifest.json"))
        p = bounded(lw, ["report", bundle])
        if p:
            check(p.returncode == 4 and "manifest.json': not a regular file: a FIFO" in p.stderr,
                  "a FIFO manifest: exit %d, %r" % (p.returncode, p.stderr))
        with tempfile.NamedTemporaryFile(suffix=".db") as db:
            p = bounded(lw, ["ingest", "--db", db.name, bundle])
            if p:
                check(p.returncode == 4 and "manifest.json" in p.stderr,
                      "ingest of a bundle with a FIFO manifest: exit %d, %r"
                      % (p.returncode, p.stderr))
    return finish("FIFOs, sockets and a FIFO manifest")


if __name__ == "__main__":
    sys.exit(main())
