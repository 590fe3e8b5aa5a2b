#!/usr/bin/env python3
"""lastwords pull through the real adb client and server (Debian's adb,
1.0.41) against device daemons that speak the adb transport on loopback
(tests/fake-adbd.py), playing the demo device of tests/pull-adb.py. The
server is this test's own (its own port and HOME, so it meets no other
server and no real device's keys) and is killed at the end.

Cases: what the real client does with the command of issue 10 (exec-out
quotes each word after the first, so a hand-quoted sh -c lists nothing,
and exits 0) and with shell's status with and without shell_v2; a complete
pull that report reads; a device without shell_v2; an app that is not
debuggable with its rings in getExternalFilesDir(), and one whose
Collector packed bundles there; a ring stream cut in
the middle (the client exits 0) that is pulled again; a device that
vanishes halfway, whose missing items carry the client's own errors; an
unauthorized device; two devices without --serial. Skipped (77) without
adb.

usage: pull-real-adb.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import sys
import tempfile
import time

from helpers import check, finish, setup, skip
from pull_scenario import (BUGREPORT_NAME, EXIT_DEVICES, EXIT_NO_DEVICE, EXIT_PARTIAL, PKG, Lab,
                           bugreport_zip, check_bundles, check_complete, collector_bundles,
                           demo_device, demo_rings, manifest, ring_names, same_bytes)


def test_client(lab, v2, plain):
    """What the real client does, that pull must live with."""
    p = lab.adb_run("-s", v2, "exec-out", "run-as", PKG, "sh", "-c", "'cd files && ls *.lwr'")
    check(p.returncode == 0 and not any(n in p.stdout for n in demo_rings(lab.root)) and
          "not found" in p.stdout,
          "client: exec-out with words quoted by hand lists no ring, and exits 0: %d %r" %
          (p.returncode, p.stdout))
    p = lab.adb_run("-s", v2, "exec-out", "run-as %s sh -c 'cd files && ls *.lwr'" % PKG)
    check(p.returncode == 0 and p.stdout.split() == demo_rings(lab.root),
          "client: one exec-out argument reaches the device shell as it is: %r" % p.stdout)
    p = lab.adb_run("-s", v2, "shell", "false")
    check(p.returncode == 1, "client: shell gives the status with shell_v2: %d" % p.returncode)
    p = lab.adb_run("-s", plain, "shell", "echo out; echo err >&2; false")
    check(p.returncode == 0 and "err" in p.stdout,
          "client: without shell_v2, status 0 and stderr mixed in: %d %r" % (p.returncode, p.stdout))
    p = lab.adb_run("-s", "127.0.0.1:9", "exec-out", "true")
    check(p.returncode == 255 and p.stderr.strip() == "error: device '127.0.0.1:9' not found",
          "client: exec-out's error and status: %d %r" % (p.returncode, p.stderr))


def main():
    lw, root = setup(__doc__)
    adb = shutil.which("adb")
    if not adb:
        skip("no adb client (Debian: apt install adb)")
    tmp = tempfile.mkdtemp(prefix="lw-real-adb-")
    lab = Lab(lw, root, tmp, adb)
    start = time.monotonic()
    try:
        lab.start()
        v2 = lab.device(demo_device(root, "v2"))
        plain_dev = demo_device(root, "plain")
        plain_dev["shell_v2"] = False
        plain = lab.device(plain_dev)
        test_client(lab, v2, plain)

        for serial, what in ((v2, "real adb"), (plain, "real adb, no shell_v2")):
            p, out = lab.pull(["--package", PKG, "--serial", serial])
            check_complete(lw, root, p, out, serial, what)

        # --bugreport: bugreportz through the real client's exec-out, its
        # progress, the zip copied byte for byte.
        br_zip = os.path.join(tmp, BUGREPORT_NAME)
        bugreport_zip(root, br_zip)
        br_dev = demo_device(root, "br")
        br_dev["bugreportz"] = {"zip": br_zip, "name": BUGREPORT_NAME}
        br = lab.device(br_dev)
        p, out = lab.pull(["--package", PKG, "--serial", br, "--bugreport"])
        got = os.path.join(out, "bugreport", BUGREPORT_NAME)
        check(p.returncode == 0 and os.path.isfile(got) and same_bytes(got, br_zip),
              "bug report: exit %d, the zip byte for byte: %s" % (p.returncode, p.stderr))
        check("lastwords: bug report: 50%\nlastwords: bug report: 75%\n" in p.stderr,
              "bug report: the progress through the real client: %s" % p.stderr)

        ext = lab.device(demo_device(root, "ext", debuggable=False, external=True))
        p, out = lab.pull(["--package", PKG, "--serial", ext])
        check(p.returncode == 0 and "not debuggable" in p.stderr,
              "external: exit %d: %s" % (p.returncode, p.stderr))
        check(manifest(out).get("rings_from") == "/sdcard/Android/data/%s/files" % PKG and
              ring_names(out) == demo_rings(root), "external: the rings from getExternalFilesDir()")

        # A release build whose Collector packed bundles: pulled through
        # the real client, each into bundles/NAME/.
        rel_dev = demo_device(root, "release", debuggable=False)
        external, files = collector_bundles(root, os.path.join(tmp, "made"))
        rel_dev["packages"][PKG]["external"] = external
        rel = lab.device(rel_dev)
        p, out = lab.pull(["--package", PKG, "--serial", rel])
        if check(p.returncode == 0, "bundles: exit %d: %s" % (p.returncode, p.stderr)):
            check_bundles(lw, root, out, files, "/sdcard/Android/data/%s/files/lastwords/bundles"
                          % PKG)

        cut_dev = demo_device(root, "cut")
        cut_dev["cut"] = {"when": "run-as", "after": 30000, "times": 1}
        cut = lab.device(cut_dev)
        p, out = lab.pull(["--package", PKG, "--serial", cut])
        check_complete(lw, root, p, out, cut, "cut once")
        check("pulling the rings again" in p.stderr, "cut once: says so: %s" % p.stderr)

        gone_dev = demo_device(root, "gone")
        gone_dev["vanish_after"] = 4
        gone = lab.device(gone_dev)
        p, out = lab.pull(["--package", PKG, "--serial", gone])
        check(p.returncode == EXIT_PARTIAL, "vanished: exit %d: %s" % (p.returncode, p.stderr))
        missing = manifest(out + ".partial").get("missing", [])
        reasons = [x["reason"] for x in missing if x["required"]]
        check(reasons and all(r.startswith("error: ") for r in reasons),
              "vanished: what is missing says what adb said: %s" % missing)

        locked_dev = demo_device(root, "locked")
        locked_dev["auth"] = "refuse"
        locked = lab.device(locked_dev, state="unauthorized")
        p, out = lab.pull(["--package", PKG, "--serial", locked])
        check(p.returncode == EXIT_NO_DEVICE and "unauthorized" in p.stderr,
              "unauthorized: exit %d: %s" % (p.returncode, p.stderr))

        p, out = lab.pull(["--package", PKG])
        check(p.returncode == EXIT_DEVICES and v2 in p.stderr and "--serial" in p.stderr,
              "several devices: exit %d: %s" % (p.returncode, p.stderr))
    finally:
        lab.stop()
        shutil.rmtree(tmp)
    return finish("pull-real-adb: the client's quoting and status, complete pulls with and "
                  "without shell_v2, external, the Collector's bundles, a cut stream, a vanished device, unauthorized, "
                  "several devices, a bug report (%.1f s)" % (time.monotonic() - start))


if __name__ == "__main__":
    sys.exit(main())
