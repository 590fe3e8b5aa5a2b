#!/usr/bin/env python3
"""lastwords pull against a stand-in adb (tests/fake-adb.py) that quotes
and fails as the real client does and plays devices (tests/fake_device.py)
from scenarios built on fixtures/demo: the commands pull gives (each with
the device's -s, each device command one exec-out argument, a directory's
files in one call) and the bundle it writes. Cases: a complete pull that
lastwords report reads; --process; an app that is not debuggable (rings
missing and explained, DIR.partial, never complete) and one that copied
its rings to getExternalFilesDir(), and one whose Collector packed bundles
there; the odd devices: 1,000 rings, a name
listed twice, endless getprop output, a stream cut once or every time, a
ring shorter than its header, a device that goes offline, one that hangs
or is slow (one deadline for the whole pull); adb missing; no device, an
unauthorized one and one without permissions; two devices with and without
--serial; an unknown package; existing output directories; usage errors.
tests/pull-real-adb.py runs the real adb client and server.

usage: pull-adb.py LASTWORDS SOURCE_ROOT PART (PARTS: one meson test each)
"""
import json
import os
import shutil
import sys
import tempfile
import time

from helpers import check, fail, finish, run, setup
from pull_scenario import (BUNDLES, EXIT_DEVICES, EXIT_NO_ADB, EXIT_NO_DEVICE, EXIT_OUTPUT,
                           EXIT_PACKAGE, EXIT_PARTIAL, PKG, Env, check_bundles, check_complete,
                           collector_bundles, demo_device, demo_rings, device_commands, manifest,
                           partial_missing, ring_names)

SERIAL = "emulator-5554"


def device(root, serial=SERIAL, **kw):
    return demo_device(root, serial, **kw)


def test_stand_in(e):
    """The stand-in quotes as the real client does, so the command of
    issue 10 lists no ring here either: exec-out single-quotes every word
    after the first, and the device runs sh -c on one quoted word."""
    case, scen, log = e.case([device(e.root)])
    old = [e.adb, "-s", SERIAL, "exec-out", "run-as", PKG, "sh", "-c", "'cd files && ls *.lwr'"]
    p = run(old, env=e.env(scen, log))
    check(p.returncode == 0 and not any(n in p.stdout for n in demo_rings(e.root)) and
          "not found" in p.stdout,
          "stand-in: exec-out with words quoted by hand lists nothing and exits 0: %d %r" %
          (p.returncode, p.stdout))
    p = run([e.adb, "-s", SERIAL, "exec-out", "run-as " + PKG + " sh -c 'cd files && ls *.lwr'"],
            env=e.env(scen, log))
    check(p.returncode == 0 and p.stdout.split() == demo_rings(e.root),
          "stand-in: one exec-out argument reaches the device shell as it is: %r" % p.stdout)
    p = run([e.adb, "-s", SERIAL, "shell", "false"], env=e.env(scen, log))
    check(p.returncode == 1, "stand-in: shell gives the status with shell_v2: %d" % p.returncode)
    p = run([e.adb, "-s", "nope", "exec-out", "true"], env=e.env(scen, log))
    check(p.returncode == 255 and p.stderr == "error: device 'nope' not found\n",
          "stand-in: exec-out's error and status: %d %r" % (p.returncode, p.stderr))


def test_complete(e):
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG])
    if not check_complete(e.lw, e.root, p, out, SERIAL, "complete"):
        return
    # The commands: adb devices, then one call each on -s SERIAL: a
    # directory's files in one call.
    check(cmds and cmds[0] == ["devices"], "complete: first command is adb devices")
    lines = device_commands(cmds)
    check(len(lines) == 9, "complete: 9 device commands, not %d: %s" % (len(lines), lines))
    for want in ("pm path " + PKG, "getprop", "date +%z", "run-as %s sh -c " % PKG,
                 "dumpsys activity exit-info " + PKG,
                 "logcat -d -b main,system,crash -v threadtime -v UTC -v year",
                 "logcat -d -b events -v threadtime -v UTC -v year", "cd '/data/tombstones'",
                 "cd '/data/anr'"):
        check(any(want in c for c in lines), "complete: a command with %r" % want)
    check(not any("notes.txt" in " ".join(c) for c in cmds), "complete: only *.lwr pulled")

    # What was pulled is what the report reads: every file but the
    # manifest loads; the demo's verdicts come out (its stale record a
    # ring-less run).
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(out) for f in fs if f != "manifest.json"]
    r = run([e.lw, "report", "--tz", "+01:00", "--format", "json"] + sorted(files))
    check(r.returncode == 0, "complete: report on the pulled files exits %d: %s" %
          (r.returncode, r.stderr))
    if r.returncode == 0:
        runs = json.loads(r.stdout)["runs"]
        classes = sorted(str(x.get("classification")) for x in runs)
        check(classes == ["None", "None", "low_memory", "native_crash", "system_reclaim"],
              "complete: report verdicts %s" % classes)
    # And into the history: the device (maker and model) comes from the manifest.
    db = os.path.join(e.tmp, "history.db")
    r = run([e.lw, "ingest", "--db", db, out])
    check(r.returncode == 0 and "5 runs: 5 new" in r.stdout,
          "complete: ingest DIR: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    r = run([e.lw, "history", "--db", db, "--by", "device", "--format", "json"])
    if check(r.returncode == 0, "complete: history after ingest: %s" % r.stderr):
        h = json.loads(r.stdout)
        groups = [(g["group"], g["runs"], g["died"], g["classes"]["low_memory"]["confirmed"],
                   g["classes"]["native_crash"]["confirmed"]) for g in h["groups"]]
        check(groups == [("Google Pixel 7", 5, 3, 1, 1)], "complete: history by device: %s" % groups)


def test_process(e):
    proc = PKG + ":inference"
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG, "--process", proc])
    check(p.returncode == 0, "process: exit %d: %s" % (p.returncode, p.stderr))
    got = ring_names(out)
    check(len(got) == 3 and all(n.startswith(proc + ".") for n in got),
          "process: only the rings of %s: %s" % (proc, got))
    check(manifest(out).get("process") == proc,
          "process: in the manifest")
    check(any("-- %s.*.lwr " % proc in c for c in device_commands(cmds)),
          "process: the device lists only that process's rings")


def test_scenario(e):
    """--scenario NAME goes into the manifest, for `lastwords gate`; a name
    outside the vocabulary is a usage error before any device is asked."""
    p, out, _ = e.pull([device(e.root)], ["--package", PKG, "--scenario", "cold_start"])
    check(p.returncode == 0 and manifest(out).get("scenario") == "cold_start",
          "scenario: exit %d, manifest scenario %r" % (p.returncode, manifest(out).get("scenario")))
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG, "--scenario", "warm_start"])
    check(p.returncode == 2 and "'warm_start' is not a scenario (cold_start, first_load" in p.stderr
          and not device_commands(cmds), "scenario: a bad name: exit %d: %s" % (p.returncode, p.stderr))


def test_not_debuggable(e):
    p, out, cmds = e.pull([device(e.root, debuggable=False)], ["--package", PKG])
    check(p.returncode == EXIT_PARTIAL, "not debuggable: exit %d, expected %d" %
          (p.returncode, EXIT_PARTIAL))
    check(not os.path.exists(out), "not debuggable: no DIR that looks complete")
    part = out + ".partial"
    check(os.path.isdir(part), "not debuggable: DIR.partial is kept")
    check("not debuggable" in p.stderr and "getExternalFilesDir" in p.stderr and
          "partial" in p.stderr, "not debuggable: stderr says what to do: %s" % p.stderr)
    if not os.path.isdir(part):
        return
    m = manifest(part)
    check(m.get("complete") is False, "not debuggable: manifest complete is false")
    rings = [x for x in m.get("missing", []) if x["what"] == "rings"]
    check(rings and rings[0]["required"] and "debuggable" in rings[0]["reason"],
          "not debuggable: rings missing with the reason: %s" % rings)
    check(os.path.isfile(os.path.join(part, "exit-info.txt")) and not
          os.path.exists(os.path.join(part, "rings")), "not debuggable: the rest is pulled")
    check(any("cd '/sdcard/Android/data/%s/files'" % PKG in c for c in device_commands(cmds)),
          "not debuggable: the external files directory is tried")
    # A second pull to the same -o refuses to mix with the partial one.
    p2, _, cmds2 = e.pull([device(e.root)], ["--package", PKG], out=out)
    check(p2.returncode == EXIT_OUTPUT and "partial" in p2.stderr and not cmds2,
          "not debuggable: a second pull refuses DIR.partial: %d %s" % (p2.returncode, p2.stderr))


def test_external(e):
    p, out, cmds = e.pull([device(e.root, debuggable=False, external=True)], ["--package", PKG])
    check(p.returncode == 0, "external: exit %d: %s" % (p.returncode, p.stderr))
    if not os.path.isdir(out):
        return
    ext = "/sdcard/Android/data/%s/files" % PKG
    check(manifest(out).get("rings_from") == ext, "external: rings_from")
    check(len(ring_names(out)) == 4, "external: 4 rings")


def test_bundles(e):
    """A release build (run-as refused) whose Collector packed bundles in
    getExternalFilesDir(): each pulled into bundles/NAME/, one call per
    directory, the hidden temporary of a killed Collector left; the pull is
    complete, its manifest says so, and report reads it as the demo."""
    case, _, _ = e.case([])
    d = device(e.root, debuggable=False)
    external, files = collector_bundles(e.root, os.path.join(case, "made"))
    d["packages"][PKG]["external"] = external
    p, out, cmds = e.pull([d], ["--package", PKG])
    ext = "/sdcard/Android/data/%s/files/lastwords/bundles" % PKG
    if not check(p.returncode == 0, "bundles: exit %d: %s" % (p.returncode, p.stderr)):
        return
    check("2 bundles of the app's Collector taken from '%s'" % ext in p.stderr,
          "bundles: said: %s" % p.stderr)
    lines = device_commands(cmds)
    per_dir = [c for c in lines if ext in c]
    check(len(per_dir) == 1 + 3 * len(BUNDLES),
          "bundles: one call to list them and one per directory: %s" % per_dir)
    check_bundles(e.lw, e.root, out, files, ext)


def test_many(e):
    """A device listing 1,000 rings: one adb call takes them all."""
    d = device(e.root)
    wrapped = os.path.join(e.root, "fixtures", "rings", "wrapped.lwr")
    d["packages"][PKG]["files"] = {"com.example.demo.20261130T0028%02d.%03dZ.%d.lwr" %
                                   (i // 1000, i % 1000, 1000 + i): wrapped for i in range(1000)}
    start = time.monotonic()
    p, out, cmds = e.pull([d], ["--package", PKG])
    took = time.monotonic() - start
    check(p.returncode == 0, "1,000 rings: exit %d: %s" % (p.returncode, p.stderr[-400:]))
    got = ring_names(out)
    check(len(got) == 1000, "1,000 rings: %d pulled" % len(got))
    check(len(cmds) == 10, "1,000 rings: %d adb calls, not 10" % len(cmds))
    print("1,000 rings: %d adb calls, %.1f s" % (len(cmds), took))


def test_twice(e):
    """A name the device lists twice is pulled once, not a failure."""
    d = device(e.root)
    name = demo_rings(e.root)[1]
    d["repeat"] = name
    p, out, cmds = e.pull([d], ["--package", PKG])
    if check_complete(e.lw, e.root, p, out, SERIAL, "listed twice"):
        check("listed 'rings/%s' twice" % name in p.stderr, "listed twice: said: %s" % p.stderr)


def test_getprop_flood(e):
    """getprop printing 300 MB: stopped at its cap, in bounded memory."""
    d = device(e.root)
    d["getprop_bytes"] = 300 << 20
    p, out, cmds = e.pull([d], ["--package", PKG])
    missing = partial_missing(p, out, "getprop flood")
    props = [x for x in missing if x["what"] == "device properties"]
    check(props and "more than 1048576 bytes" in props[0]["reason"],
          "getprop flood: the properties are missing, over their cap: %s" % missing)
    check(p.maxrss_kb < 64 * 1024, "getprop flood: peak memory %d KiB, not under 64 MiB" %
          p.maxrss_kb)
    print("getprop flood: peak memory %d KiB" % p.maxrss_kb)


def test_hostile_props(e):
    """A device whose properties hold bytes that are not UTF-8, NUL-free
    control bytes and an ESC sequence: the manifest is still valid UTF-8
    JSON, and nothing raw reaches the terminal."""
    d = device(e.root)
    props = os.path.join(e.tmp, "hostile-props")
    with open(props, "wb") as f:
        f.write(b"[ro.product.model]: [Pixel \xff\xfe\x1b[2J\x1b]0;owned\x07]\n"
                b"[ro.build.version.release]: [14]\n"
                b"[ro.build.fingerprint]: [google/\xc3\x28/x:14/AP2A/1:user/release-keys]\n"
                b"[persist.sys.timezone]: [Europe/Paris]\n")
    d["props_file"] = props
    d.pop("props", None)
    p, out, _ = e.pull([d], ["--package", PKG])
    check(p.returncode == 0, "hostile props: pull exits %d: %s" % (p.returncode, p.stderr))
    try:
        with open(os.path.join(out, "manifest.json"), "rb") as f:
            m = json.loads(f.read().decode("utf-8"))
        check("\ufffd" in m["device"]["model"] and "\x1b" in m["device"]["model"],
              "hostile props: the model is kept, its bad bytes as U+FFFD: %r" % m["device"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError) as err:
        fail("hostile props: manifest.json is not valid UTF-8 JSON: %s" % err)
    check("\x1b" not in p.stderr and "\x1b" not in p.stdout,
          "hostile props: a raw ESC reached the terminal: %r" % p.stderr)


def test_cut(e):
    """An exec-out stream cut in the middle of a ring (adb still exits 0)
    is pulled again; cut every time, the rings are missing."""
    d = device(e.root)
    d["cut"] = {"when": "run-as", "after": 30000, "times": 1}
    p, out, cmds = e.pull([d], ["--package", PKG])
    check_complete(e.lw, e.root, p, out, SERIAL, "cut once")
    check("pulling the rings again" in p.stderr, "cut once: says so: %s" % p.stderr)

    d["cut"]["times"] = 2
    p, out, cmds = e.pull([d], ["--package", PKG])
    missing = partial_missing(p, out, "cut twice")
    whats = [x["what"] for x in missing if x["required"]]
    check(whats == ["rings/" + demo_rings(e.root)[1], "rings"],
          "cut twice: the cut ring and what came after it are missing: %s" % missing)
    got = ring_names(out + ".partial")
    check(got == [demo_rings(e.root)[0]], "cut twice: only the whole ring is kept: %s" % got)


def test_short_ring(e):
    """A ring shorter than its header says is pulled again, then missing."""
    d = device(e.root)
    case, _, _ = e.case([])
    short = os.path.join(case, "short.lwr")
    name = demo_rings(e.root)[2]
    with open(os.path.join(e.root, "fixtures", "demo", "rings", name), "rb") as f:
        data = f.read()
    with open(short, "wb") as f:
        f.write(data[:len(data) - 1000])
    d["packages"][PKG]["files"][name] = short
    p, out, cmds = e.pull([d], ["--package", PKG])
    missing = partial_missing(p, out, "short ring")
    check([(x["what"], "truncated" in x["reason"]) for x in missing if x["required"]] ==
          [("rings/" + name, True)], "short ring: missing, with why: %s" % missing)
    check(sum(1 for c in cmds if "run-as" in " ".join(c)) == 2, "short ring: pulled twice")


def test_offline(e):
    """A device that goes offline halfway: each command after it fails with
    the server's own words."""
    d = device(e.root)
    d["offline_after"] = 4
    p, out, cmds = e.pull([d], ["--package", PKG])
    missing = partial_missing(p, out, "offline")
    check(missing and all(x["reason"] == "error: device offline" for x in missing
                          if x["what"] != "lmkd properties"),
          "offline: the rest is missing, with adb's reason: %s" % missing)


def test_timeout(e):
    """A command that never answers is killed at the deadline; what is left
    is not tried: the pull is partial, not stuck."""
    # The deadline is long beside the calls before logcat (about 0.1 s each
    # here, 0.4 s on a loaded machine: each starts a Python fake-adb), so
    # that logcat alone is the one that meets it, however busy the machine.
    start = time.monotonic()
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG, "--timeout", "6"],
                          extra={"hang_on": ["logcat"]})
    took = time.monotonic() - start
    missing = partial_missing(p, out, "timeout")
    check(took < 14, "timeout: the pull took %.1f s; a hung adb must not block it" % took)
    check([x["what"] for x in missing if "did not answer" in x["reason"]] == ["logcat"],
          "timeout: the manifest says which command did not answer: %s" % missing)
    check([x["what"] for x in missing if "not tried" in x["reason"]] ==
          ["event log", "tombstones", "ANR traces"],
          "timeout: and what was not tried after it: %s" % missing)
    # One deadline for the whole pull: ten slow calls do not get ten times it.
    d = device(e.root)
    d["slow"] = 0.5
    start = time.monotonic()
    p, out, cmds = e.pull([d], ["--package", PKG, "--timeout", "2"])
    took = time.monotonic() - start
    partial_missing(p, out, "slow device")
    check(took < 4, "slow device: the pull took %.1f s, past its --timeout of 2 s" % took)


def test_errors(e):
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG], adb="/nonexistent/adb")
    check(p.returncode == EXIT_NO_ADB and "adb not found" in p.stderr and
          not os.path.exists(out) and not os.path.exists(out + ".partial"),
          "adb missing: exit %d: %s" % (p.returncode, p.stderr))

    p, out, cmds = e.pull([], ["--package", PKG])
    check(p.returncode == EXIT_NO_DEVICE and "no device" in p.stderr and
          not os.path.exists(out + ".partial"), "no device: exit %d: %s" % (p.returncode, p.stderr))
    for state in ("unauthorized", "offline", "no permissions (user in plugdev group; are your "
                  "udev rules wrong?); see [http://developer.android.com/tools/device.html]"):
        d = device(e.root)
        d["state"] = state
        p, out, cmds = e.pull([d], ["--package", PKG])
        check(p.returncode == EXIT_NO_DEVICE and "is not ready: " + state in p.stderr and
              len(cmds) == 1, "%s: exit %d: %s" % (state, p.returncode, p.stderr))

    two = [device(e.root), device(e.root, serial="R58M123")]
    p, out, cmds = e.pull(two, ["--package", PKG])
    check(p.returncode == EXIT_DEVICES and SERIAL in p.stderr and "R58M123" in p.stderr and
          "--serial" in p.stderr and cmds == [["devices"]],
          "two devices: exit %d: %s %s" % (p.returncode, p.stderr, cmds))
    p, out, cmds = e.pull(two, ["--package", PKG, "--serial", "R58M123"])
    check(p.returncode == 0 and len(cmds) > 2 and
          all(c[:2] == ["-s", "R58M123"] for c in cmds[1:]),
          "two devices, --serial: exit %d: %s" % (p.returncode, p.stderr))
    p, out, cmds = e.pull(two, ["--package", PKG, "-s", "nope"])
    check(p.returncode == EXIT_NO_DEVICE and "'nope'" in p.stderr,
          "unknown serial: exit %d: %s" % (p.returncode, p.stderr))

    p, out, cmds = e.pull([device(e.root)], ["--package", "com.example.absent"])
    check(p.returncode == EXIT_PACKAGE and "com.example.absent" in p.stderr and
          "not installed" in p.stderr and not os.path.exists(out) and
          not os.path.exists(out + ".partial"),
          "unknown package: exit %d: %s" % (p.returncode, p.stderr))

    # An existing, non-empty output directory is never touched.
    keep = os.path.join(e.tmp, "keep")
    os.mkdir(keep)
    with open(os.path.join(keep, "mine.txt"), "w") as f:
        f.write("mine\n")
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG], out=keep)
    check(p.returncode == EXIT_OUTPUT and "already exists" in p.stderr and not cmds and
          os.listdir(keep) == ["mine.txt"] and not os.path.exists(keep + ".partial"),
          "existing DIR: exit %d: %s" % (p.returncode, p.stderr))
    # An empty one is used.
    empty = os.path.join(e.tmp, "empty")
    os.mkdir(empty)
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG], out=empty)
    check(p.returncode == 0 and os.path.isfile(os.path.join(empty, "manifest.json")),
          "empty DIR: exit %d: %s" % (p.returncode, p.stderr))

    for args, what in ((["-o", "x"], "no --package"), (["--package", "a;rm -rf"], "bad package"),
                       (["--package", PKG, "extra"], "extra argument")):
        p = run([e.lw, "pull"] + args, env=dict(os.environ, ADB="/nonexistent"))
        check(p.returncode == 2 and "usage:" in p.stderr, "usage (%s): exit %d" % (what, p.returncode))
    p = run([e.lw, "pull", "--package", PKG])
    check(p.returncode == 2, "usage (no -o): exit %d" % p.returncode)


# One part per run (one meson test each).
PARTS = {
    "pulls": (test_stand_in, test_complete, test_process, test_scenario),
    "apps": (test_not_debuggable, test_external, test_bundles, test_many),
    "devices": (test_twice, test_getprop_flood, test_hostile_props, test_cut),
    "failures": (test_short_ring, test_offline, test_timeout, test_errors),
}


def main():
    lw, root, part = setup(__doc__, extra=1)
    if part not in PARTS:
        print("pull-adb.py: PART is one of %s" % ", ".join(PARTS), file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="lw-pull-")
    try:
        e = Env(lw, root, tmp)
        for t in PARTS[part]:
            t(e)
    finally:
        shutil.rmtree(tmp)
    return finish("pull-adb %s: %s" % (part, ", ".join(t.__name__[5:] for t in PARTS[part])))


if __name__ == "__main__":
    sys.exit(main())
