#!/usr/bin/env python3
"""Output that cannot be written is a failure of its own: exit 13 and one
line on stderr, never exit 0 with nothing written (nor 4, which is an
input's failure). Every command that prints results is run with /dev/full
as its stdout; report and history also into a file on a full disk (a
full 4 KiB tmpfs in a mount namespace of its own, where the test may mount
one; else, for report, a file size limit), and export -o and trace -o
into a full disk, where no file and no temporary are left behind.

usage: output-failure.py LASTWORDS SOURCE_ROOT
"""
import os
import resource
import signal
import subprocess
import sys
import tempfile

from helpers import check, demo_history, fail, finish, setup

EXIT_OUTPUT = 13
RING = "fixtures/rings/killed-inference.lwr"


def full_disk(limit):
    """A preexec_fn: files may grow to limit bytes; a write past it fails."""
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def on_full_disk(lw, args, disk, stdout_name=None):
    """lastwords args in a mount namespace of its own, where disk is a
    4 KiB tmpfs filled up: a real full disk. Returns (process, what disk holds
    after), or None where no tmpfs can be mounted (not root)."""
    script = ('mount -t tmpfs -o size=4k lastwords-full "$0" || exit 99\n'
              'head -c 4096 /dev/zero >"$0/.filler"\n' +
              ('"$@" >"$0/%s"\n' % stdout_name if stdout_name else '"$@"\n') +
              's=$?; ls -A "$0" >"$0.list"; exit $s\n')
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, disk, lw] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 99 or not os.path.exists(disk + ".list"):
        return None
    with open(disk + ".list") as f:
        held = [n for n in f.read().split() if n != ".filler"]
    os.unlink(disk + ".list")
    return p, held


def to_full(lw, args, out="/dev/full", **kw):
    """lastwords args with stdout into out; stderr captured."""
    with open(out, "w") as f:
        p = subprocess.run([lw] + args, stdout=f, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode < 0:
        fail("%s killed by signal %d" % (" ".join(args), -p.returncode))
    return p


def expect_failure(p, what):
    check(p.returncode == EXIT_OUTPUT, "%s: exit %d, want %d (stderr %r)"
          % (what, p.returncode, EXIT_OUTPUT, p.stderr))
    check("cannot write" in p.stderr and "\n" == p.stderr[-1:] and p.stderr.count("cannot write") == 1,
          "%s: one 'cannot write' line: %r" % (what, p.stderr))


def main():
    lw, root = setup("usage: output-failure.py LASTWORDS SOURCE_ROOT")
    with tempfile.TemporaryDirectory() as tmp:
        db = demo_history(lw, tmp)
        commands = [
            ["dump", RING], ["dump", "--json", RING], ["verify", RING], ["verify", "--json", RING],
            ["digest", "mobilenet-v3-int8"], ["inspect", "fixtures/demo/logcat.txt"],
            ["inspect", "--json", "fixtures/demo/logcat.txt"], ["rules"], ["help"], ["--version"],
            ["report", "--help"],
            ["report", "fixtures/demo"], ["report", "--format", "json", "fixtures/demo"],
            ["report", "--format", "html", "fixtures/demo"],
            ["report", "--format", "seed", "fixtures/scenarios/seed-ring-less/bundle/events.json"],
            ["check", "fixtures/check/demo-differs.json", "fixtures/demo"],
            ["trace", "fixtures/demo"],
            ["ingest", "--db", os.path.join(tmp, "other.db"), "fixtures/demo"],
            ["history", "--db", db], ["history", "--db", db, "--format", "json"],
            ["export", "--db", db, "--format", "ndjson"], ["export", "--db", db, "--format", "csv"],
        ]
        for args in commands:
            if not os.path.exists(args[-1]) and args[-1].startswith("fixtures/"):
                check(False, "fixture %s is missing" % args[-1])
                continue
            expect_failure(to_full(lw, args), "%s > /dev/full" % " ".join(args))

        # A file on a full disk: a 4 KiB tmpfs where one can be mounted,
        # else (report only: history needs its database's -shm) a file
        # size limit.
        disk = os.path.join(tmp, "disk")
        os.mkdir(disk)
        cases = [["report", "--format", "json", "fixtures/demo"], ["report", "fixtures/demo"],
                 ["history", "--db", db, "--format", "json", "--by", "process"]]
        tmpfs = on_full_disk(lw, cases[0], disk, "out") is not None
        for args in cases:
            if tmpfs:
                p, held = on_full_disk(lw, args, disk, "out")
            elif args[0] == "report":
                p = to_full(lw, args, os.path.join(tmp, "out"), preexec_fn=full_disk(1024))
            else:
                continue
            expect_failure(p, "%s > a full disk" % " ".join(args))
        # export -o leaves neither the file nor a temporary.
        if tmpfs:
            p, held = on_full_disk(lw, ["export", "--db", db, "--format", "ndjson", "-o",
                                        os.path.join(disk, "rows.ndjson")], disk)
            expect_failure(p, "export -o on a full disk")
            check(held == [], "export -o on a full disk leaves nothing: %s" % held)
            # and trace -o neither.
            p, held = on_full_disk(lw, ["trace", "-o", os.path.join(disk, "t.pftrace"),
                                        "fixtures/demo"], disk)
            expect_failure(p, "trace -o on a full disk")
            check(held == [], "trace -o on a full disk leaves nothing: %s" % held)
        else:
            print("note: no tmpfs (not root): history, export -o and trace -o on a full disk "
                  "not tried")
    return finish("output-failure: %d commands to a full output" % (len(commands) + 5))


sys.exit(main())
