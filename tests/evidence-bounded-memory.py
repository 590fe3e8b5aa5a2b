#!/usr/bin/env python3
"""An input of any size is read in the same memory: inputs are streamed
through a buffer of a fixed size, gzip data inflated as it is read.

`inspect --json` reads a logcat of 160 MiB and a gzip'd ANR trace of two
members that inflates to 256 MiB, each with a peak RSS (wait4) far below its
size, and finds every record wherever it falls: lmkd kills all through the
logcat, across the reader's buffer boundaries, some wrapped onto a second
line (read ahead, then joined), and the record of the second gzip member.
Before, inspect held the whole file, and for gzip the inflated bytes too:
its peak RSS was above the file's size.

usage: evidence-bounded-memory.py LASTWORDS SOURCE_ROOT B_SANITIZE
"""
import gzip
import json
import os
import sys
import tempfile

from helpers import check, finish, run_bounded, setup

BOUND_MIB = 48          # peak RSS of one inspect; sanitized builds get 3 times it
LOGCAT_MIB = 160
ANR_MEMBER_MIB = 128
KILL_EVERY = 997         # ordinary lines between two lmkd kills
WRAP_EVERY = 5           # every fifth kill is wrapped onto two lines


def ordinary_block(k):
    """KILL_EVERY ordinary lines; their lengths vary with k, so that kills
    fall at every offset of the reader's buffer."""
    lines = []
    for i in range(KILL_EVERY):
        n = (i * 37 + k * 11) % 300
        lines.append("06-10 14:00:05.%03d  %5d  %5d I ExampleTag: work item %d %s\n"
                     % (i % 1000, 2000 + i, 2000 + i, i, "x" * n))
    return "".join(lines).encode()


def kill_line(pid):
    return ("06-10 14:00:06.500   612   612 I lowmemorykiller: Kill 'com.example.app' (%d), "
            "uid 10001, oom_score_adj 900 to free 1000kB rss, 0kB swap; reason: low watermark "
            "is breached\n" % pid).encode()


def write_logcat(path):
    """(lines written, pids of the kills)."""
    blocks = [ordinary_block(k) for k in range(7)]
    lines, pids, k, size = 0, [], 0, 0
    with open(path, "wb") as f:
        while size < LOGCAT_MIB << 20:
            b = blocks[k % len(blocks)]
            pid = 10000 + k
            kill = kill_line(pid)
            if k % WRAP_EVERY == 0:
                # cut mid-token, as a paste wraps it: joined with no space
                cut = kill.index(b"oom_sc") + 6
                kill = kill[:cut] + b"\n" + kill[cut:]
                lines += 1
            f.write(b)
            f.write(kill)
            size += len(b) + len(kill)
            lines += KILL_EVERY + 1
            pids.append(pid)
            k += 1
    return lines, pids


def write_anr(path):
    """Two gzip members, one process each, with a large section between."""
    filler = b"  | stats line of the runtime, read and not kept " + b"." * 970 + b"\n"
    chunk = filler * 1024  # 1 MiB
    with open(path, "wb") as raw:
        for pid, cmd in ((7311, b"com.example.vision:inference"), (7312, b"com.example.other")):
            with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as f:
                f.write(b"----- pid %d at 2025-06-10 14:00:06.000 -----\nCmd line: %s\n" % (pid, cmd))
                for _ in range(ANR_MEMBER_MIB):
                    f.write(chunk)
                f.write(b"----- end %d -----\n" % pid)


def inspect(lw, path, bound, what):
    status, out, err, rss, secs = run_bounded([lw, "inspect", "--json", path], timeout=300)
    size = os.path.getsize(path) / 1048576.0
    print("%s: %.0f MiB on disk, inspect %.1f s, peak RSS %.0f MiB" % (what, size, secs, rss))
    if not check(status == 0, "%s: inspect exits %s: %s" % (what, status, err[-400:])):
        return None
    check(rss <= bound, "%s: peak RSS %.0f MiB, over the bound of %d MiB" % (what, rss, bound))
    return json.loads(out)[0]


def main():
    lw, root, sanitize = setup(__doc__, extra=1)
    bound = BOUND_MIB * (3 if sanitize not in ("", "none") else 1)
    with tempfile.TemporaryDirectory(prefix="lw-bounded-") as tmp:
        logcat = os.path.join(tmp, "logcat.txt")
        lines, pids = write_logcat(logcat)
        f = inspect(lw, logcat, bound, "logcat")
        if f:
            got = sorted(r["pid"] for r in f["records"] if r["event"] == "lmkd_kill")
            check(f["kind"] == "logcat" and f["lines"] == lines and f["skipped"] == 0,
                  "logcat: kind %s, %d lines (%d skipped), written %d"
                  % (f["kind"], f["lines"], f["skipped"], lines))
            check(got == pids, "logcat: %d lmkd kills found, %d written; first missing: %s"
                  % (len(got), len(pids), sorted(set(pids) - set(got))[:5]))
        os.unlink(logcat)

        anr = os.path.join(tmp, "anr_2025-06-10-14-00-06-000.gz")
        write_anr(anr)
        f = inspect(lw, anr, bound, "gzip'd ANR trace")
        if f:
            got = [(r["pid"], r["cmdline"]) for r in f["records"]]
            check(f["gzipped"] and got == [(7311, "com.example.vision:inference"),
                                           (7312, "com.example.other")],
                  "ANR trace: records %s, both members' expected" % got)
    return finish("evidence-bounded-memory: a %d MiB logcat and %d MiB of gzip'd trace, bound %d MiB"
                  % (LOGCAT_MIB, 2 * ANR_MEMBER_MIB, bound))


if __name__ == "__main__":
    sys.exit(main())
