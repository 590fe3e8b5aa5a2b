#!/usr/bin/env python3
"""pull tells a device directory that is empty from one that the device
shell may enter but not list, through the real adb client and server,
against a device daemon (tests/fake-adbd.py) whose shell is Android's:
mksh with toybox's tools, run as nobody (Android's shell user is not root;
root lists anything, so without that the test proves nothing).

  - /data/anr with mode 0771, root's (as on a phone: system's), holding a
    trace: the shell may cd into it, and `*` matches nothing there. The
    manifest's "missing" names the ANR traces with why (the device shell
    may enter the directory but not list it), pull says so on stderr, the
    report's JSON carries it in pull.missing. Before, the traces came back
    as an empty directory with no word in the manifest.
  - /data/anr empty (mode 0775): no ANR traces, and nothing missing;
  - /data/tombstones readable all along: its tombstones are pulled.

Skipped (77) without adb, mksh or toybox (Debian: apt install adb mksh
toybox; .ci/install-deps --tests installs them).

usage: pull-unlistable.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

import fake_device
from helpers import check, finish, run, setup, skip
from pull_scenario import PKG, Lab, demo_device, manifest

UNLISTABLE = "the device shell may enter the directory but not list it"


def anr_missing(out):
    return [x for x in manifest(out).get("missing", []) if x["what"] == "ANR traces"]


def main():
    lw, root = setup(__doc__)
    adb = shutil.which("adb")
    if not adb:
        skip("no adb client (Debian: apt install adb)")
    if not fake_device.android_shell():
        skip("no mksh or toybox for a device shell as Android's (Debian: apt install mksh "
             "toybox)")
    trace = os.path.join(root, "fixtures", "evidence", "anr", "classic-main-blocked.txt")
    tmp = tempfile.mkdtemp(prefix="lw-unlistable-")
    lab = Lab(lw, root, tmp, adb)
    try:
        lab.start()
        locked_dev = demo_device(root, "locked-anr")
        locked_dev["dirs"]["/data/anr"] = {"anr_2026-11-30-00-28-04-562": trace}
        locked_dev["modes"] = {"/data/anr": "0771"}
        locked = lab.device(locked_dev)
        p, out = lab.pull(["--package", PKG, "--serial", locked])
        check(p.returncode == 0, "0771: exit %d: %s" % (p.returncode, p.stderr))
        missing = anr_missing(out)
        check(len(missing) == 1 and UNLISTABLE in missing[0]["reason"] and
              not missing[0]["required"],
              "0771: the manifest does not say the ANR traces could not be listed: %s"
              % manifest(out).get("missing"))
        check("lastwords: no ANR traces (optional): " + UNLISTABLE in p.stderr,
              "0771: stderr does not say so: %r" % p.stderr)
        check(sorted(os.listdir(os.path.join(out, "tombstones"))) == ["tombstone_00"],
              "0771: the readable tombstones are pulled all the same")
        r = run([lw, "report", "--format", "json", out])
        rep = json.loads(r.stdout) if r.returncode == 0 else {}
        check([x["what"] for x in rep.get("pull", {}).get("missing", [])
               if UNLISTABLE in x["reason"]] == ["ANR traces"],
              "0771: the report's pull.missing does not name the ANR traces: exit %d %s"
              % (r.returncode, rep.get("pull")))

        empty_dev = demo_device(root, "empty-anr")
        empty_dev["dirs"]["/data/anr"] = {}
        empty_dev["modes"] = {"/data/anr": "0775"}
        empty = lab.device(empty_dev)
        p, out = lab.pull(["--package", PKG, "--serial", empty])
        check(p.returncode == 0 and anr_missing(out) == [],
              "empty: exit %d, ANR traces missing: %s %s" % (p.returncode, anr_missing(out),
                                                             p.stderr))
        anr = os.path.join(out, "anr")
        check(not os.path.isdir(anr) or os.listdir(anr) == [], "empty: no ANR trace pulled")
    finally:
        lab.stop()
        shutil.rmtree(tmp)
    return finish("pull-unlistable: a 0771 /data/anr said as not listable, an empty one as "
                  "empty, on a device shell of mksh and toybox run as nobody")


if __name__ == "__main__":
    sys.exit(main())
