#!/usr/bin/env python3
"""lastwords pull --bugreport against the stand-in adb (tests/fake-adb.py):
the device's bugreportz makes the zip, pull shows its progress and copies
it into bugreport/ byte for byte, last, after everything else. Cases: a
complete pull (progress lines in a log, one line rewritten on a terminal);
no --bugreport, no bugreportz; a device without bugreportz (before
Android 7.0); bugreportz 1.0, which has no -p; FAIL:; an OK: line naming a
path that is not copied (.., shell characters, not a zip); a bug report
still being made at the deadline. tests/pull-real-adb.py pulls one through
the real client. On a phone that is not rooted, the report on the bundle
finds the crash's tombstone in the bug report.

usage: pull-bugreport.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import pty
import shutil
import sys
import tempfile
import time

from helpers import check, finish, run, setup
from pull_scenario import (BUGREPORT_NAME as NAME, PKG, Env, bugreport_zip, demo_device,
                           demo_rings, device_commands, manifest, partial_missing, ring_names,
                           same_bytes)

DEVICE_DIR = "/data/user_de/0/com.android.shell/files/bugreports"


def device(root, zip_path, **bugreportz):
    d = demo_device(root, "emulator-5554")
    d["bugreportz"] = dict({"zip": zip_path, "name": NAME}, **bugreportz)
    return d


def commands(cmds):
    """The device commands, without adb_exec()'s wrapping that prints the
    status."""
    out = []
    for c in device_commands(cmds):
        if c.startswith("( ") and ") 2>&1; s=$?; echo; echo LWEXIT $s" in c:
            c = c[2:c.rindex(" ) 2>&1; s=$?; echo; echo LWEXIT $s")]
        out.append(c)
    return out


def progress_lines(p):
    return [ln for ln in p.stderr.splitlines() if ln.startswith("lastwords: bug report: ")]


def bugreport_missing(p, out, what):
    """The required bug report's reason in a partial pull, and the rest of
    the bundle whole."""
    missing = partial_missing(p, out, what)
    reasons = [x["reason"] for x in missing if x["what"] == "bug report" and x["required"]]
    check(len(reasons) == 1, "%s: the bug report is missing, and required: %s" % (what, missing))
    check(ring_names(out + ".partial") == demo_rings(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "%s: the rings are pulled all the same" % what)
    check(not os.path.exists(os.path.join(out + ".partial", "bugreport", NAME)),
          "%s: no zip is left in the bundle" % what)
    return reasons[0] if reasons else ""


def test_complete(e, zip_path):
    p, out, cmds = e.pull([device(e.root, zip_path)], ["--package", PKG, "--bugreport"])
    check(p.returncode == 0, "complete: exit %d: %s" % (p.returncode, p.stderr))
    got = os.path.join(out, "bugreport", NAME)
    check(os.path.isfile(got) and same_bytes(got, zip_path),
          "complete: bugreport/%s is the device's zip byte for byte" % NAME)
    files = {f["path"]: f["bytes"] for f in manifest(out).get("files", [])}
    check(files.get("bugreport/" + NAME) == os.path.getsize(zip_path),
          "complete: the manifest lists the zip with its size: %s" % files)
    check(manifest(out).get("complete") is True, "complete: manifest complete")
    lines = commands(cmds)
    check(lines[-3:] == ["bugreportz -v", "bugreportz -p", "cat '%s/%s'" % (DEVICE_DIR, NAME)],
          "complete: bugreportz -v, -p and the copy come last: %s" % lines[-4:])
    # Four PROGRESS steps: a line at each quarter, in order, in a log.
    progress = progress_lines(p)
    check(progress == ["lastwords: bug report: bugreportz 1.2 is making it on the device; this "
                       "takes minutes",
                       "lastwords: bug report: 25%", "lastwords: bug report: 50%",
                       "lastwords: bug report: 75%", "lastwords: bug report: 100%",
                       "lastwords: bug report: copying " + NAME],
          "complete: the progress lines: %s" % progress)
    check("a bug report" in p.stdout, "complete: the summary says so: %s" % p.stdout)

    # On a terminal: one line, rewritten as it grows, then a newline.
    master, slave = pty.openpty()
    p, out, cmds = e.pull([device(e.root, zip_path, steps=3)], ["--package", PKG, "--bugreport"],
                          stderr=slave)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        tty += chunk
    os.close(master)
    tty = tty.decode()
    check(p.returncode == 0, "terminal: exit %d: %s" % (p.returncode, tty))
    check("\rlastwords: bug report:  33%\rlastwords: bug report:  66%"
          "\rlastwords: bug report: 100%\r\n" in tty,
          "terminal: one progress line rewritten: %r" % tty[-400:])

    # Without --bugreport, no bug report is asked for.
    p, out, cmds = e.pull([device(e.root, zip_path)], ["--package", PKG])
    check(p.returncode == 0 and not any("bugreportz" in c for c in commands(cmds)) and
          not os.path.exists(os.path.join(out, "bugreport")),
          "no --bugreport: no bugreportz, no bugreport/: %d %s" % (p.returncode, p.stderr))


def tombstone_of_crash(e, out):
    """What report on a pulled bundle says of the demo's native crash: its
    tombstone evidence lines and its missing lines that name one."""
    r = run([e.lw, "report", "--format", "json", out])
    check(r.returncode == 0, "report on %s: %d %s" % (out, r.returncode, r.stderr))
    runs = json.loads(r.stdout)["runs"] if r.returncode == 0 else []
    crash = [x for x in runs if x["classification"] == "native_crash"]
    if not check(len(crash) == 1, "one native crash in %s: %s" % (out, runs)):
        return [], []
    return ([x for x in crash[0]["evidence"] if x.startswith("tombstone:")],
            [x for x in crash[0]["missing"] if "tombstone" in x])


def test_unrooted(e, zip_path):
    """A phone that is not rooted: /data/tombstones cannot be read, and the
    bug report is where report finds the crash's tombstone."""
    d = device(e.root, zip_path)
    d["dirs"] = {}
    p, out, cmds = e.pull([d], ["--package", PKG])
    found, missing = tombstone_of_crash(e, out)
    check(not found and missing, "unrooted, no --bugreport: the tombstone is missing: %s %s" %
          (found, missing))
    p, out, cmds = e.pull([d], ["--package", PKG, "--bugreport"])
    check(p.returncode == 0, "unrooted --bugreport: exit %d: %s" % (p.returncode, p.stderr))
    found, missing = tombstone_of_crash(e, out)
    check(found and not missing and "SIGSEGV" in found[0],
          "unrooted --bugreport: the tombstone comes from the bug report: %s %s" % (found, missing))


def test_old_devices(e, zip_path):
    d = demo_device(e.root, "emulator-5554")
    p, out, cmds = e.pull([d], ["--package", PKG, "--bugreport"])
    why = bugreport_missing(p, out, "no bugreportz")
    check("bugreportz -v failed" in why and "Android 7.0" in why and "not found" in why,
          "no bugreportz: says why: %s" % why)

    p, out, cmds = e.pull([device(e.root, zip_path, version="1.0")],
                          ["--package", PKG, "--bugreport"])
    check(p.returncode == 0 and same_bytes(os.path.join(out, "bugreport", NAME), zip_path),
          "bugreportz 1.0: exit %d, the zip copied: %s" % (p.returncode, p.stderr))
    check("bugreportz" in commands(cmds) and "tells no progress" in p.stderr and
          not any("%" in ln for ln in progress_lines(p)),
          "bugreportz 1.0: no -p, and says there is no progress: %s %s" % (commands(cmds), p.stderr))


def test_failures(e, zip_path):
    p, out, cmds = e.pull([device(e.root, zip_path, fail="dumpstate failed: no space left")],
                          ["--package", PKG, "--bugreport"])
    why = bugreport_missing(p, out, "FAIL")
    check(why == "bugreportz failed: dumpstate failed: no space left",
          "FAIL: bugreportz's message: %s" % why)

    for ok, problem in (("%s/../../../../etc/passwd.zip" % DEVICE_DIR, "leading dot"),
                        ("%s/x$(reboot).zip" % DEVICE_DIR, "a shell would read"),
                        ("%s/bugreport.txt" % DEVICE_DIR, "not a .zip"),
                        ("bugreport.zip", "not an absolute path")):
        p, out, cmds = e.pull([device(e.root, zip_path, ok=ok)], ["--package", PKG, "--bugreport"])
        why = bugreport_missing(p, out, "OK:%s" % ok)
        check(problem in why and "not copied" in why, "OK:%s: refused: %s" % (ok, why))
        check(not any(c.startswith("cat ") for c in commands(cmds)),
              "OK:%s: nothing is copied" % ok)

    start = time.monotonic()
    p, out, cmds = e.pull([device(e.root, zip_path, steps=20, delay=1)],
                          ["--package", PKG, "--bugreport", "--timeout", "4"])
    took = time.monotonic() - start
    why = bugreport_missing(p, out, "deadline")
    check("still being made at the deadline (4 s)" in why and "--timeout" in why,
          "deadline: says so: %s" % why)
    check(took < 10, "deadline: the pull took %.1f s, past its --timeout of 4 s" % took)


def main():
    lw, root = setup(__doc__)
    tmp = tempfile.mkdtemp(prefix="lw-pull-bugreport-")
    try:
        e = Env(lw, root, tmp)
        zip_path = os.path.join(tmp, NAME)
        bugreport_zip(root, zip_path)
        for t in (test_complete, test_unrooted, test_old_devices, test_failures):
            t(e, zip_path)
    finally:
        shutil.rmtree(tmp)
    return finish("pull-bugreport: a complete pull with its progress in a log and on a terminal, "
                  "an unrooted phone's tombstone from its bug report, no --bugreport, no bugreportz, bugreportz 1.0, FAIL:, unsafe OK: paths, the "
                  "deadline")


if __name__ == "__main__":
    sys.exit(main())
