#!/usr/bin/env python3
"""Text for people never carries the evidence's control bytes to the
terminal: an escape sequence (clear the screen, set the title, a fake red
verdict) or a newline in a ring's process name, an exit record's
description or a file's name is shown escaped (\\x1b, \\n, \\x00), so it
can neither drive the terminal nor add a line. Checked on the output of
dump, verify, inspect, report (text and HTML), ingest, history, digest,
and the error messages that name such a file or quote such an argument:
each must be valid UTF-8 with no control character but the line ends, and
no line may start as the injected one does.

usage: output-control.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, ring_edit, setup

EVIL = b"\x1b[2J\x1b]0;pwned\x07\x1b[31m\nverdict    forged, confirmed\x9b\xc2\x9b\x7f"
INJECTED = "verdict    forged, confirmed"


def clean(data, what):
    """Check data (bytes) as text for a terminal; returns it decoded."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: not valid UTF-8: %s" % (what, e))
        return ""
    bad = sorted(set("%02x" % ord(c) for c in text
                     if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f))
    check(not bad, "%s: control characters reach the terminal: %s" % (what, bad))
    check(not any(line.startswith(INJECTED) for line in text.split("\n")),
          "%s: an injected line starts with %r" % (what, INJECTED))
    return text


def both(p, what):
    """stdout and stderr of p, each checked; returns them joined."""
    return clean(p.stdout, what + " (stdout)") + clean(p.stderr, what + " (stderr)")


def main():
    lw, root = setup("usage: output-control.py LASTWORDS SOURCE_ROOT")
    with tempfile.TemporaryDirectory() as tmp:
        bundle = os.path.join(tmp, "demo")
        shutil.copytree("fixtures/demo", bundle)
        rings = os.path.join(bundle, "rings")
        name = sorted(os.listdir(rings))[-1]
        ring = os.path.join(rings, name)
        ring_edit(ring, ring, process=b"com.example.demo:inference" + EVIL[:30])
        path = os.path.join(bundle, "dumpsys-exit-info.txt")
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data.replace(b"description=crash state",
                                 b"description=" + EVIL.replace(b"\n", b"\0") + b" state", 1))
        # A file whose name holds a newline and an escape sequence.
        odd = os.path.join(tmp, "odd\n" + INJECTED + "\x1b[31m.lwr")
        with open(odd, "wb") as f:
            f.write(b"not a ring\n")
        missing = os.path.join(tmp, "gone\n" + INJECTED + ".lwr")

        runs = [
            (["dump", ring], "dump"), (["verify", ring], "verify"), (["inspect", ring], "inspect ring"),
            (["inspect", path], "inspect exit-info"),
            (["report", "--tz", "+01:00", bundle], "report"),
            (["report", "--tz", "+01:00", "--format", "html", bundle], "report html"),
            (["dump", odd], "dump odd name"), (["verify", missing], "verify missing name"),
            (["inspect", odd, missing], "inspect odd names"), (["report", odd, missing], "report odd names"),
            (["digest", "model\n" + INJECTED + "\x1b[31m"], "digest"),
            (["report", "--format", "x\n" + INJECTED + "\x1b[31m", bundle], "usage error"),
            (["verify", "--" + INJECTED + "\x1b[31m", ring], "unknown option"),
            (["history", "--db", missing], "history missing database"),
        ]
        for args, what in runs:
            p = lastwords(lw, args, text=False)
            out = both(p, what)
            if what == "dump":
                check("\\x1b[2J" in out, "dump shows the escape sequence escaped: %r" % out[:300])
            if what == "report":
                check("\\x1b]0;pwned\\x07" in out and "\\x00" in out,
                      "report shows the description escaped, its NUL as \\x00")
            if "odd" in what or "missing" in what:
                check("odd\\n" in out or "gone\\n" in out, "%s: the name is escaped: %r" % (what, out))

        db = os.path.join(tmp, "history.db")
        p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", bundle, odd], text=False)
        both(p, "ingest")
        p = lastwords(lw, ["history", "--db", db, "--by", "process"], text=False)
        out = both(p, "history --by process")
        check("inference\\x1b[2J" in out, "history shows the process name escaped: %r" % out[:400])
    return finish("output-control: %d commands with control bytes in their input" % (len(runs) + 2))


sys.exit(main())
