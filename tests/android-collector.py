#!/usr/bin/env python3
"""The Collector on a JVM against the stand-in android.* classes, at the
next start: the files directory holds a run killed mid-inference, the live
ring of a process that still runs, a probe's temporary, a link and a file
named like runs, and other files. The bundle under
getExternalFilesDir(null)/lastwords/bundles/<UTC time>/ holds the dead
run's ring alone (byte for byte), the exit records and the manifest of
lastwords pull (device, zone and offset, files, missing, complete), which
`lastwords report BUNDLE` reads as it reads a pull: its zone from the
manifest, the run joined by its run id. A second start with nothing new
makes no bundle. A collector killed halfway (blocked on a trace that is a
FIFO) leaves only its hidden temporary, which the next one removes. Old
bundles past the cap are pruned, oldest first. Skips (77) without a JDK.

usage: android-collector.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from android_jvm import PACKAGE, PROCESS, helpers, killed_run, start_probe, write_records
from helpers import check, finish, report_json, setup
from jvm import jvm_or_skip

MAX_BUNDLES = 8
NAME = re.compile(r"\d{8}T\d{6}\.\d{3}Z$")


def live_probe(jvm, files):
    """The main process, still running: its ring is live."""
    child, words = start_probe(jvm, files, PACKAGE)
    return child, words[1]


def bundles(ext):
    d = os.path.join(ext, "lastwords", "bundles")
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    tmp = tempfile.mkdtemp(prefix="lw-android-collect-")
    live = None
    try:
        files = os.path.join(tmp, "files")
        ext = os.path.join(tmp, "external")
        os.mkdir(files)
        pid, ring, run_id, summary, _, killed_at = killed_run(jvm, files)
        live, live_ring = live_probe(jvm, files)
        dead = os.path.basename(ring)
        # What is not a run over: a temporary, a link and a FIFO named as
        # runs, notes.
        open(os.path.join(files, "." + PROCESS + ".20261130T002804.000Z.1.lwr.tmp"), "w").close()
        os.symlink(ring, os.path.join(files, PROCESS + ".20261130T002805.000Z.2.lwr"))
        os.mkfifo(os.path.join(files, PROCESS + ".20261130T002806.000Z.3.lwr"))
        with open(os.path.join(files, "notes.lwr"), "w") as f:
            f.write("not a run\n")
        records = os.path.join(tmp, "records.tsv")
        write_records(records, [{"pid": pid, "process": PROCESS, "reason": 2, "status": 9,
                                 "importance": 200, "timestamp": int(killed_at * 1000) + 40,
                                 "summary": summary}])

        p = helpers(jvm, ["collect", files, ext, records])
        bundle = p.stdout.split()[-1] if p.stdout.startswith("bundle ") else "-"
        check(bundle != "-" and NAME.match(os.path.basename(bundle)) and
              os.path.dirname(bundle) == os.path.join(ext, "lastwords", "bundles"),
              "a bundle named by its UTC time: %r" % p.stdout)
        if bundle == "-":
            return finish("collector")
        got = sorted(os.listdir(os.path.join(bundle, "rings")))
        check(got == [dead], "only the dead run's ring, not the live %s: %s" %
              (os.path.basename(live_ring), got))
        with open(ring, "rb") as a, open(os.path.join(bundle, "rings", dead), "rb") as b:
            check(a.read() == b.read(), "the ring is copied byte for byte")
        check(os.path.isfile(ring), "the ring stays in the files directory (the probe's advice)")
        with open(os.path.join(bundle, "manifest.json")) as f:
            m = json.load(f)
        check(m.get("kind") == "lastwords-pull" and m.get("version") == 1 and
              m.get("package") == PACKAGE and m.get("process") is None and
              re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", m.get("pulled_at", "")) and
              m.get("complete") is True and m.get("rings_from") == files,
              "the manifest's head: %r" % {k: v for k, v in m.items() if k not in ("files",)})
        dev = m.get("device", {})
        check(dev.get("model") == "Pixel 7" and dev.get("android_version") == "11" and
              dev.get("sdk") == "30" and dev.get("manufacturer") == "Google" and
              dev.get("fingerprint", "").startswith("google/"), "the device: %r" % dev)
        check(m.get("timezone") == "Europe/Paris" and m.get("tz_offset") in ("+0100", "+0200"),
              "the zone and its offset: %r %r" % (m.get("timezone"), m.get("tz_offset")))
        listed = sorted((x["path"], x["bytes"]) for x in m.get("files", []))
        on_disk = sorted((os.path.relpath(os.path.join(d, n), bundle),
                          os.path.getsize(os.path.join(d, n)))
                         for d, _, ns in os.walk(bundle) for n in ns if n != "manifest.json")
        check(listed == on_disk, "the manifest lists the files: %s, on disk %s" % (listed, on_disk))

        rep, _ = report_json(lw, [bundle])
        if rep:
            tz = rep.get("timezone", {})
            check(tz.get("source") == "manifest" and tz.get("name") == "Europe/Paris",
                  "report BUNDLE takes the zone from its manifest: %r" % tz)
            r = [x for x in rep["runs"] if x.get("run_id") == run_id]
            check(r and [e.get("joined_by") for e in r[0].get("exit_records", [])] == ["run id"],
                  "the run and its exit record, joined by the run id: %r" % r)

        p = helpers(jvm, ["collect", files, ext, records])
        check(p.stdout.strip() == "bundle -" and len(bundles(ext)) == 1,
              "nothing new: no second bundle: %r %s" % (p.stdout, bundles(ext)))
        live.kill()
        live.communicate()
        live = None

        # Killed halfway: blocked opening a trace that is a FIFO. The live
        # ring is over now: it is new for this collector.
        fifo = os.path.join(tmp, "trace-fifo")
        os.mkfifo(fifo)
        write_records(records, [{"pid": pid + 1, "process": PROCESS, "reason": 6,
                                 "timestamp": int(time.time() * 1000), "trace": fifo}])
        child = subprocess.Popen(jvm.command("AndroidHelpers", ["collect", files, ext, records],
                                             ["-Dandroid.sdk=30"]), env=jvm.env(),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(n.endswith(".tmp") for n in bundles(ext)):
            time.sleep(0.05)
        half = bundles(ext)
        child.send_signal(signal.SIGKILL)
        child.communicate()
        check(len(half) == 2 and half[0].startswith(".") and half[0].endswith(".tmp"),
              "a collector killed halfway leaves its temporary alone, hidden: %s" % half)
        os.unlink(fifo)
        write_records(records, [])
        p = helpers(jvm, ["collect", files, ext, records])
        now = bundles(ext)
        check(len(now) == 2 and not any(n.startswith(".") for n in now),
              "the next collector removes it and makes its bundle: %s %r" % (now, p.stdout))

        # Pruning: with older bundles past the cap, the oldest go.
        base = os.path.join(ext, "lastwords", "bundles")
        for i in range(MAX_BUNDLES):
            os.makedirs(os.path.join(base, "20200101T0000%02d.000Z" % i))
        live, _ = live_probe(jvm, files)  # a new run over is something new
        live.kill()
        live.communicate()
        live = None
        p = helpers(jvm, ["collect", files, ext, records])
        now = bundles(ext)
        newest = p.stdout.split()[-1]
        check(len(now) == MAX_BUNDLES and os.path.basename(newest) in now and
              now[0] == "20200101T000003.000Z",
              "pruned to %d, the oldest first, the new one kept: %s" % (MAX_BUNDLES, now))
    finally:
        if live:
            live.kill()
            live.communicate()
        shutil.rmtree(tmp)
    return finish("Collector: the live ring skipped, the manifest of a pull, atomic, pruned")


if __name__ == "__main__":
    sys.exit(main())
