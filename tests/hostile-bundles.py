#!/usr/bin/env python3
"""Hostile bundles: what an attacker, or a bad day, puts in a bundle that
someone attaches to a bug. Each case is a directory built here from the
project's fixtures plus one kind of trouble:

  symlink loops (a -> ., b -> .), a symlink out of the bundle (to
  /etc/passwd, to another fixture), a FIFO among the files and as
  manifest.json, a link to /dev/zero, the same ring under two names, two
  pulls of one device side by side, a zero-filled ring (an interrupted open),
  a truncated ring, hidden ring names, invalid UTF-8, NUL and ESC sequences in
  exit records and in a ring's process name, a file name with a newline,
  huge records (an 8 MB line, a 1 MB description, 100,000 tombstone frames),
  a gzip bomb, ten thousand small files, and a deep tree.

On each, `report` (text, JSON, HTML, and with --fail-on), `inspect --json`,
`ingest` and `trace` (whose output must decode as Perfetto's, where protoc
is) run with a timeout and their peak RSS measured (wait4). A case
fails when a command dies by a signal (a sanitizer's report counts: its
exit code is set to one no command uses), hangs, exits with a status that
lastwords(1) does not document, goes past its memory bound, writes JSON that
is not valid UTF-8 JSON, or writes a raw control byte to a text output.

One case per run, named as CASES names it, or half of its commands: CASE/1
runs the report's four forms, CASE/2 the rest (one meson test each for the
gzip bomb, whose every command inflates its gigabyte); then the history
that ingest wrote must export as valid NDJSON.

usage: hostile-bundles.py LASTWORDS SOURCE_ROOT B_SANITIZE CASE
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

from helpers import SANITIZER_EXIT, check, fail, finish, run_bounded, setup
from trace_decode import BARE_TAG, SCHEMA

DOCUMENTED = {0, 1, 2, 3, 4, 11, 12, 13}
TIMEOUT_S = 30
BOUND_MIB = 256      # peak RSS of one command; sanitized builds get more (shadow memory)


def trace_ok(data):
    """The bytes decode as a Perfetto trace with the project's schema of
    Perfetto's fields (tests/perfetto/), where protoc is there (else not
    checked)."""
    if not shutil.which("protoc"):
        return True
    p = subprocess.run(["protoc", "-I", SCHEMA[0], "--decode=perfetto.protos.Trace", SCHEMA[1]],
                       input=data, capture_output=True)
    return p.returncode == 0 and not BARE_TAG.search(p.stdout.decode("utf-8", "replace"))


def text_ok(data):
    """No raw control byte but newline and tab."""
    return not any(b < 0x20 and b not in (0x09, 0x0a) or b == 0x7f for b in data)


def json_ok(data, lines=False):
    try:
        text = data.decode("utf-8")
        if lines:
            for line in text.splitlines():
                if line.strip():
                    json.loads(line)
        else:
            json.loads(text)
        return True
    except (UnicodeDecodeError, ValueError):
        return False


# One case per run (one meson test each).
CASES = ("symlink-loops", "symlink-out", "fifos", "fifo-manifest", "same-ring-twice", "two-pulls",
         "zero-ring", "truncated-ring", "hidden-rings", "bytes", "huge-records", "gzip-bomb",
         "many-files", "deep-tree", "empty", "far-times")


class Cases:
    def __init__(self, root, tmp):
        self.root, self.tmp = root, tmp
        self.demo = os.path.join(root, "fixtures", "demo")
        self.lmk = os.path.join(root, "fixtures", "scenarios", "lmk-confirmed", "bundle")

    def base(self, name, src=None):
        d = os.path.join(self.tmp, name)
        shutil.copytree(src or self.demo, d, symlinks=True)
        return d

    def build(self, name):
        """The bundle directory of the case name (CASES)."""
        return getattr(self, name.replace("-", "_"))()

    def symlink_loops(self):
        d = self.base("symlink-loops")
        os.symlink(".", os.path.join(d, "a"))
        os.symlink(".", os.path.join(d, "b"))
        os.symlink("..", os.path.join(d, "rings", "up"))
        return d

    def symlink_out(self):
        d = self.base("symlink-out")
        os.symlink("/etc/passwd", os.path.join(d, "logcat-2.txt"))
        os.symlink(os.path.join(self.lmk, "logcat.txt"), os.path.join(d, "logcat-3.txt"))
        os.symlink("/dev/zero", os.path.join(d, "zero.txt"))
        return d

    def fifos(self):
        d = self.base("fifos")
        os.mkfifo(os.path.join(d, "pipe.txt"))
        os.mkfifo(os.path.join(d, "rings", "com.example.demo:inference.20261130T002805.000Z.1.lwr"))
        return d

    def fifo_manifest(self):
        d = self.base("fifo-manifest")
        os.mkfifo(os.path.join(d, "manifest.json"))
        return d

    def same_ring_twice(self):
        d = self.base("same-ring-twice")
        rings = sorted(os.listdir(os.path.join(d, "rings")))
        shutil.copy(os.path.join(d, "rings", rings[-1]), os.path.join(d, "copy-of-last.lwr"))
        return d

    def two_pulls(self):
        d = os.path.join(self.tmp, "two-pulls")
        os.mkdir(d)
        for k in (1, 2):
            shutil.copytree(self.demo, os.path.join(d, "pull-%d" % k))
            with open(os.path.join(d, "pull-%d" % k, "manifest.json"), "w") as f:
                json.dump({"complete": True, "package": "com.example.demo",
                           "timezone": {"offset_minutes": 60}}, f)
        return d

    def zero_ring(self):
        rings = sorted(os.listdir(os.path.join(self.demo, "rings")))
        d = self.base("zero-ring")
        size = os.path.getsize(os.path.join(d, "rings", rings[-1]))
        with open(os.path.join(d, "rings", "com.example.demo:inference.20261130T002805.900Z.2.lwr"), "wb") as f:
            f.write(b"\0" * size)
        return d

    def truncated_ring(self):
        rings = sorted(os.listdir(os.path.join(self.demo, "rings")))
        d = self.base("truncated-ring")
        path = os.path.join(d, "rings", rings[-1])
        with open(path, "r+b") as f:
            f.truncate(os.path.getsize(path) // 3)
        return d

    def hidden_rings(self):
        d = self.base("hidden-rings")
        for r in os.listdir(os.path.join(d, "rings")):
            os.rename(os.path.join(d, "rings", r), os.path.join(d, "rings", "." + r))
        return d

    def bytes(self):
        d = self.base("bytes", self.lmk)
        dump = os.path.join(d, "exit-info.txt")
        with open(dump, "rb") as f:
            text = f.read()
        evil = (b"bad\xff\xfe utf8 \xc3\x28 nul\x00cut \x1b[2J\x1b]0;owned\x07"
                b"\x1b[31mnative_crash confirmed\x1b[0m")
        text = text.replace(b"description=null", b"description=" + evil)
        with open(dump, "wb") as f:
            f.write(text)
        ring = [n for n in os.listdir(d) if n.endswith(".jsonl")][0]
        with open(os.path.join(d, ring), "rb") as f:
            lines = f.read().split(b"\n")
        lines[0] = lines[0].replace(b'"process":"com.example.vision:inference"',
                                    b'"process":"com.example.vision:inference\\u001b[2J"')
        with open(os.path.join(d, "evil\x1b[2J\nname.jsonl"), "wb") as f:
            f.write(b"\n".join(lines))
        return d

    def huge_records(self):
        d = self.base("huge-records", self.lmk)
        with open(os.path.join(d, "logcat.txt"), "ab") as f:
            f.write(b"06-10 14:00:06.500  612  612 I lowmemorykiller: " + b"x" * (8 << 20) + b"\n")
        with open(os.path.join(d, "exit-info.txt"), "rb") as f:
            text = f.read()
        with open(os.path.join(d, "exit-info.txt"), "wb") as f:
            f.write(text.replace(b"description=null", b"description=" + b"d" * (1 << 20)))
        with open(os.path.join(self.root, "fixtures", "evidence", "tombstone", "plain-gpu-delegate.txt"),
                  "rb") as f:
            tomb = f.read()
        frames = b"".join(b"      #%05d pc 00000000000%05x  /vendor/lib64/libGLES.so\n" % (i, i)
                          for i in range(100000))
        with open(os.path.join(d, "tombstone_01"), "wb") as f:
            f.write(tomb.replace(b"backtrace:\n", b"backtrace:\n" + frames, 1))
        return d

    def gzip_bomb(self):
        d = self.base("gzip-bomb", self.lmk)
        with gzip.open(os.path.join(d, "anr_2025-06-10-14-00-06-000.gz"), "wb", compresslevel=9) as f:
            f.write(b"----- pid 7311 at 2025-06-10 14:00:06.000 -----\nCmd line: com.example.vision:inference\n")
            chunk = b"A" * (1 << 20)
            for _ in range(1024):  # 1 GiB of one line
                f.write(chunk)
        return d

    def many_files(self):
        d = self.base("many-files", self.lmk)
        os.mkdir(os.path.join(d, "junk"))
        for i in range(10000):
            with open(os.path.join(d, "junk", "f%05d.txt" % i), "w") as f:
                f.write("not evidence %d\n" % i)
        return d

    def deep_tree(self):
        d = self.base("deep-tree", self.lmk)
        p = d
        for i in range(200):
            p = os.path.join(p, "d")
        os.makedirs(p)
        shutil.copy(os.path.join(self.lmk, "logcat.txt"), os.path.join(p, "logcat.txt"))
        return d

    def far_times(self):
        """Exit records of the years 7022 and 9999, beyond the nanosecond
        clocks (2262): their run's and a ring-less one's; fuzz-smoke-report
        found the first overflowing the timeline's placement."""
        d = self.base("far-times", self.lmk)
        path = os.path.join(d, "exit-info.txt")
        with open(path) as f:
            text = f.read()
        record = text[text.index("        ApplicationExitInfo #0:"):]
        far = record.replace("timestamp=2025-06-10", "timestamp=9999-12-31").replace("pid=7311", "pid=7312")
        with open(path, "w") as f:
            f.write(text.replace("timestamp=2025-06-10", "timestamp=7022-06-10") + far.replace("#0:", "#1:", 1))
        return d

    def empty(self):
        d = os.path.join(self.tmp, "empty")
        os.mkdir(d)
        return d


def main():
    lw, root, sanitize, case = setup(__doc__, extra=2)
    case, _, half = case.partition("/")
    if case not in CASES or half not in ("", "1", "2"):
        print(__doc__, file=sys.stderr)
        return 2
    bound = BOUND_MIB * (4 if sanitize not in ("", "none") else 1)
    worst = (0.0, "")
    with tempfile.TemporaryDirectory(prefix="lw-hostile-") as tmp:
        cases = {case: Cases(root, tmp).build(case)}
        db = os.path.join(tmp, "history.db")
        for name, d in cases.items():
            files = [os.path.join(dp, f) for dp, _, fs in os.walk(d) for f in fs]
            cmds = [
                ("report", [lw, "report", "--tz", "+01:00", d], "text"),
                ("report json", [lw, "report", "--format", "json", "--tz", "+01:00", d], "json"),
                ("report html", [lw, "report", "--format", "html", "--tz", "+01:00", d], "html"),
                ("report --fail-on", [lw, "report", "--fail-on", "native_crash,low_memory", d], "text"),
                ("ingest", [lw, "ingest", "--db", db, d], "text"),
                ("trace", [lw, "trace", "--tz", "+01:00", d], "trace"),
            ]
            for f in sorted(files)[:20]:
                if os.path.isfile(f) and not os.path.islink(f):
                    cmds.append(("inspect %s" % os.path.relpath(f, d), [lw, "inspect", "--json", f], "json"))
            if half:
                cmds = cmds[:4] if half == "1" else cmds[4:]
            for what, cmd, kind in cmds:
                where = "%s: %s" % (name, what)
                status, out, err, rss, secs = run_bounded(cmd, TIMEOUT_S)
                if rss > worst[0]:
                    worst = (rss, where)
                if status is None:
                    fail(where, "hung (killed after %d s)" % TIMEOUT_S)
                    continue
                if status < 0 or status == SANITIZER_EXIT or status not in DOCUMENTED:
                    fail(where, "exit %d: %s" % (status, err.decode("utf-8", "replace")[-800:]))
                    continue
                check(rss <= bound, "%s: peak RSS %.0f MiB, over the bound of %d MiB" % (where, rss, bound))
                check(text_ok(err), "%s: a raw control byte on stderr: %r" % (where, err[-300:]))
                if kind == "json":
                    check(json_ok(out), "%s: stdout is not valid UTF-8 JSON" % where)
                elif kind == "trace":
                    check(trace_ok(out), "%s: the trace does not decode as Perfetto's" % where)
                elif kind == "text":
                    check(text_ok(out), "%s: a raw control byte on stdout" % where)
                else:
                    check(out.decode("utf-8", "strict") is not None and b"\x1b" not in out,
                          "%s: the page holds a raw ESC" % where)
        if half == "1":  # the report's forms alone: no ingest, no history
            return finish("hostile-bundles: %s (part 1), the largest peak RSS %.0f MiB (%s), "
                          "bound %d MiB" % (case, worst[0], worst[1], bound))
        status, out, err, rss, _ = run_bounded([lw, "export", "--db", db, "--format", "ndjson"], TIMEOUT_S)
        check(status == 0 and json_ok(out, lines=True),
              "export of the hostile history: exit %s, valid NDJSON %s" % (status, json_ok(out, lines=True)))
    return finish("hostile-bundles: %s%s, the largest peak RSS %.0f MiB (%s), bound %d MiB"
                  % (case, half and " (part %s)" % half, worst[0], worst[1], bound))


if __name__ == "__main__":
    sys.exit(main())
