#!/usr/bin/env python3
"""Files that are not regular files never make the reader wait or read
what they are not (issue 10, item 2): a FIFO given as an input to dump,
verify, inspect or report is refused at once with exit 4 and a message
naming it.

Before the fix, every one of these opened the FIFO for reading, which
blocks until a writer comes: each command hit the test's timeout.

usage: report-nonregular.py LASTWORDS SOURCE_ROOT
"""
import os
import sys
import tempfile

from helpers import check, finish, lastwords_within, setup

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
    return finish("FIFOs given by name")


if __name__ == "__main__":
    sys.exit(main())
