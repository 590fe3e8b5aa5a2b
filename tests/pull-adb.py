#!/usr/bin/env python3
"""lastwords pull against a stand-in adb (tests/fake-adb.py) that plays
devices from scenarios built on fixtures/demo: the commands pull gives
(each with the device's -s, the run-as listing quoted for the device
shell, exec-out for binary files) and the bundle it writes. Cases: a
complete pull that lastwords report reads; --process; an app that is not
debuggable (rings missing and explained, DIR.partial, never complete) and
one that copied its rings to getExternalFilesDir(); adb missing; no device
and an unauthorized one; two devices with and without --serial; an
unknown package; existing output directories; usage errors.

usage: pull-adb.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, run, setup

PKG = "com.example.demo"
SERIAL = "emulator-5554"
EXIT_NO_ADB, EXIT_NO_DEVICE, EXIT_DEVICES, EXIT_PACKAGE = 5, 6, 7, 8
EXIT_PARTIAL, EXIT_OUTPUT = 9, 10

def device(root, serial=SERIAL, debuggable=True, external=False, tombstones=True):
    rings_dir = os.path.join(root, "fixtures", "demo", "rings")
    rings = {n: os.path.join(rings_dir, n) for n in sorted(os.listdir(rings_dir))}
    rings["notes.txt"] = os.path.join(root, "README.md")  # not a ring: never pulled
    pkg = {"debuggable": debuggable, "files": rings}
    if external:
        pkg["external"] = rings
    d = {
        "serial": serial,
        "state": "device",
        "props": {
            "ro.product.manufacturer": "Google",
            "ro.product.model": "Pixel 7",
            "ro.build.version.release": "14",
            "ro.build.version.sdk": "34",
            "ro.build.fingerprint": "google/panther/panther:14/UQ1A.240205.004/11269751:user/release-keys",
            "persist.sys.lmk.reportkills": "true",
            "ro.lmk.use_psi": "true",
            "sys.lmk.minfree_levels": "18432:0,23040:100",
            "ro.hardware": "panther",
        },
        "tz": "+0100",
        "packages": {PKG: pkg, "com.example.other": {"debuggable": True, "files": {}}},
        "exit_info": {PKG: os.path.join(root, "fixtures", "demo", "dumpsys-exit-info.txt")},
        "logcat": {
            "main,system,crash": os.path.join(root, "fixtures", "demo", "logcat.txt"),
            "events": os.path.join(root, "fixtures", "evidence", "event-log", "am-kill.txt"),
        },
        "dirs": {},
    }
    if tombstones:
        tomb = os.path.join(root, "fixtures", "demo", "tombstone_00")
        d["dirs"]["/data/tombstones"] = {"tombstone_00": tomb, "tombstone_00.pb": tomb}
    return d


class Env:
    def __init__(self, lw, root, tmp):
        self.lw, self.root, self.tmp, self.n = lw, root, tmp, 0
        self.adb = os.path.join(tmp, "adb")
        with open(self.adb, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n' %
                    (sys.executable, os.path.join(root, "tests", "fake-adb.py")))
        os.chmod(self.adb, 0o755)

    def pull(self, devices, args, adb=None, out=None, extra=None):
        """Run pull in a fresh case directory; returns (process, out dir, commands)."""
        self.n += 1
        case = os.path.join(self.tmp, "case%d" % self.n)
        os.mkdir(case)
        scen = os.path.join(case, "scenario.json")
        with open(scen, "w") as f:
            json.dump(dict({"devices": devices}, **(extra or {})), f)
        log = os.path.join(case, "adb.log")
        out = out or os.path.join(case, "bundle")
        env = dict(os.environ, ADB=adb or self.adb, FAKE_ADB_SCENARIO=scen, FAKE_ADB_LOG=log)
        p = run([self.lw, "pull"] + args + ["-o", out], env=env, timeout=60)
        cmds = []
        if os.path.exists(log):
            with open(log) as f:
                cmds = [json.loads(line) for line in f]
        return p, out, cmds


def manifest(d):
    with open(os.path.join(d, "manifest.json")) as f:
        return json.load(f)


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def test_complete(e):
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG])
    check(p.returncode == 0, "complete: exit %d: %s" % (p.returncode, p.stderr))
    check(os.path.isdir(out) and not os.path.exists(out + ".partial"),
          "complete: the bundle is DIR, and no DIR.partial is left")
    if not os.path.isdir(out):
        return
    rings_dir = os.path.join(e.root, "fixtures", "demo", "rings")
    names = sorted(os.listdir(rings_dir))
    got = sorted(os.listdir(os.path.join(out, "rings")))
    check(got == names, "complete: rings %s, expected %s" % (got, names))
    for n in names:
        check(same_bytes(os.path.join(out, "rings", n), os.path.join(rings_dir, n)),
              "complete: ring %s is byte for byte the device's" % n)
    check(same_bytes(os.path.join(out, "exit-info.txt"),
                     os.path.join(e.root, "fixtures", "demo", "dumpsys-exit-info.txt")),
          "complete: exit-info.txt")
    check(same_bytes(os.path.join(out, "logcat.txt"),
                     os.path.join(e.root, "fixtures", "demo", "logcat.txt")), "complete: logcat.txt")
    check(os.path.getsize(os.path.join(out, "events.txt")) > 0, "complete: events.txt")
    check(os.listdir(os.path.join(out, "tombstones")) == ["tombstone_00"],
          "complete: the text tombstone, not its .pb twin")
    m = manifest(out)
    dev = m.get("device", {})
    check(m.get("complete") is True, "complete: manifest complete is true")
    check(dev.get("model") == "Pixel 7" and dev.get("android_version") == "14" and
          dev.get("sdk") == "34" and dev.get("fingerprint", "").startswith("google/panther") and
          dev.get("serial") == SERIAL, "complete: manifest device %s" % dev)
    check(m.get("tz_offset") == "+0100", "complete: tz_offset %s" % m.get("tz_offset"))
    check(m.get("package") == PKG and m.get("pulled_at", "").endswith("Z"),
          "complete: package and pulled_at")
    lmk = m.get("lmk", {})
    check(lmk.get("reportkills") is True and
          set(lmk.get("properties", {})) == {"persist.sys.lmk.reportkills", "ro.lmk.use_psi",
                                             "sys.lmk.minfree_levels"},
          "complete: lmk %s" % lmk)
    paths = sorted(f["path"] for f in m.get("files", []))
    check(paths == sorted(["rings/" + n for n in names] +
                          ["exit-info.txt", "logcat.txt", "events.txt", "tombstones/tombstone_00"]),
          "complete: manifest files %s" % paths)
    missing = [x["what"] for x in m.get("missing", [])]
    check(missing == ["ANR traces"] and not any(x["required"] for x in m["missing"]),
          "complete: only the ANR traces are missing, and not required: %s" % missing)

    # The commands: adb devices, then everything on -s SERIAL.
    check(cmds and cmds[0] == ["devices"], "complete: first command is adb devices")
    check(all(c[:2] == ["-s", SERIAL] for c in cmds[1:]), "complete: every command has -s")
    body = [c[2:] for c in cmds[1:]]
    check(["shell", "pm", "path", PKG] in body, "complete: pm path")
    check(["exec-out", "run-as", PKG, "sh", "-c", "'cd files && ls *.lwr'"] in body,
          "complete: the run-as listing, quoted for the device shell")
    for n in names:
        check(["exec-out", "run-as", PKG, "cat", "files/" + n] in body,
              "complete: exec-out run-as cat files/%s" % n)
    check(not any("notes.txt" in " ".join(c) for c in body), "complete: only *.lwr pulled")
    for want in (["shell", "dumpsys", "activity", "exit-info", PKG],
                 ["logcat", "-d", "-b", "main,system,crash", "-v", "threadtime"],
                 ["logcat", "-d", "-b", "events", "-v", "threadtime"],
                 ["shell", "getprop"], ["shell", "date", "+%z"],
                 ["shell", "ls", "/data/tombstones"], ["shell", "ls", "/data/anr"],
                 ["exec-out", "cat", "/data/tombstones/tombstone_00"]):
        check(want in body, "complete: command %s" % want)

    # What was pulled is what the report reads: every file but the
    # manifest loads; the demo's verdicts come out.
    files = [os.path.join(dp, f) for dp, _, fs in os.walk(out) for f in fs if f != "manifest.json"]
    r = run([e.lw, "report", "--tz", "+01:00", "--format", "json"] + sorted(files))
    check(r.returncode == 0, "complete: report on the pulled files exits %d: %s" %
          (r.returncode, r.stderr))
    if r.returncode == 0:
        runs = json.loads(r.stdout)["runs"]
        classes = sorted(str(x.get("classification")) for x in runs)
        check(classes == ["None", "None", "low_memory", "native_crash"],
              "complete: report verdicts %s" % classes)
    # On the directory itself: the manifest describes the bundle and gives
    # the device's zone, so no --tz is needed.
    r = run([e.lw, "report", "--format", "json", out])
    check(r.returncode == 0 and not r.stderr, "complete: report DIR: %d %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        rep = json.loads(r.stdout)
        classes = sorted(str(x.get("classification")) for x in rep["runs"])
        check(classes == ["None", "None", "low_memory", "native_crash"] and
              rep["timezone"]["assumed"] is False and rep["timezone"]["offset_minutes"] == 60,
              "complete: report DIR verdicts %s, zone %s" % (classes, rep["timezone"]))
    # And into the history: the device comes from the manifest.
    db = os.path.join(e.tmp, "history.db")
    r = run([e.lw, "ingest", "--db", db, out])
    check(r.returncode == 0 and "4 runs: 4 new" in r.stdout,
          "complete: ingest DIR: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    r = run([e.lw, "history", "--db", db, "--by", "device", "--format", "json"])
    if check(r.returncode == 0, "complete: history after ingest: %s" % r.stderr):
        h = json.loads(r.stdout)
        groups = [(g["group"], g["runs"], g["died"], g["classes"]["low_memory"]["confirmed"],
                   g["classes"]["native_crash"]["confirmed"]) for g in h["groups"]]
        check(groups == [("Pixel 7", 4, 2, 1, 1)], "complete: history by device: %s" % groups)


def test_process(e):
    proc = PKG + ":inference"
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG, "--process", proc])
    check(p.returncode == 0, "process: exit %d: %s" % (p.returncode, p.stderr))
    got = sorted(os.listdir(os.path.join(out, "rings"))) if os.path.isdir(out) else []
    check(len(got) == 3 and all(n.startswith(proc + ".") for n in got),
          "process: only the rings of %s: %s" % (proc, got))
    check(manifest(out).get("process") == proc if os.path.isdir(out) else False,
          "process: in the manifest")


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
    body = [c[2:] for c in cmds[1:]]
    check(["shell", "ls", "/sdcard/Android/data/%s/files" % PKG] in body,
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
    check(len(os.listdir(os.path.join(out, "rings"))) == 4, "external: 4 rings")
    body = [c[2:] for c in cmds[1:]]
    check(any(c[:2] == ["exec-out", "cat"] and c[2].startswith(ext + "/") for c in body),
          "external: exec-out cat from the external directory")


def test_timeout(e):
    """A command that never answers is killed after --timeout and listed as
    missing: the pull is partial, not stuck."""
    import time
    scenario_dev = device(e.root)
    start = time.monotonic()
    p, out, cmds = e.pull([scenario_dev], ["--package", PKG, "--timeout", "1"],
                          extra={"hang_on": ["logcat"]})
    took = time.monotonic() - start
    check(p.returncode == EXIT_PARTIAL, "timeout: exit %d, expected %d: %s" %
          (p.returncode, EXIT_PARTIAL, p.stderr))
    check(took < 20, "timeout: the pull took %.1f s; a hung adb must not block it" % took)
    part = out + ".partial"
    if os.path.isdir(part):
        m = manifest(part)
        logs = [x for x in m.get("missing", []) if "did not answer" in x.get("reason", "")]
        check(logs, "timeout: the manifest says which command did not answer: %s" % m.get("missing"))


def test_errors(e):
    p, out, cmds = e.pull([device(e.root)], ["--package", PKG], adb="/nonexistent/adb")
    check(p.returncode == EXIT_NO_ADB and "adb not found" in p.stderr and
          not os.path.exists(out) and not os.path.exists(out + ".partial"),
          "adb missing: exit %d: %s" % (p.returncode, p.stderr))

    p, out, cmds = e.pull([], ["--package", PKG])
    check(p.returncode == EXIT_NO_DEVICE and "no device" in p.stderr and
          not os.path.exists(out + ".partial"), "no device: exit %d: %s" % (p.returncode, p.stderr))
    d = device(e.root)
    d["state"] = "unauthorized"
    p, out, cmds = e.pull([d], ["--package", PKG])
    check(p.returncode == EXIT_NO_DEVICE and "unauthorized" in p.stderr,
          "unauthorized: exit %d: %s" % (p.returncode, p.stderr))

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


def main():
    lw, root = setup(__doc__)
    tmp = tempfile.mkdtemp(prefix="lw-pull-")
    try:
        e = Env(lw, root, tmp)
        test_complete(e)
        test_process(e)
        test_not_debuggable(e)
        test_external(e)
        test_timeout(e)
        test_errors(e)
    finally:
        shutil.rmtree(tmp)
    return finish("pull-adb: a complete pull, --process, not debuggable, external, timeout, errors")


if __name__ == "__main__":
    sys.exit(main())
