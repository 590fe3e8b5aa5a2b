"""The demo device of the pull tests (tests/pull-adb.py and
tests/pull-bugreport.py, through the stand-in client; tests/pull-real-adb.py,
through the real one), built on fixtures/demo, what a complete pull of it
holds, and the stand-in's test bench (Env)."""
import calendar
import json
import os
import resource
import socket
import subprocess
import sys
import time
import zipfile

import fake_device
import tombstone_pb
from helpers import check, fatal, run

PKG = "com.example.demo"
EXIT_NO_ADB, EXIT_NO_DEVICE, EXIT_DEVICES, EXIT_PACKAGE = 5, 6, 7, 8
EXIT_PARTIAL, EXIT_OUTPUT = 9, 10
BUGREPORT_NAME = "bugreport-panther-UQ1A.240205.004-2026-11-30-10-15-02.zip"


def demo_device(root, serial, debuggable=True, external=False, tombstones=True):
    """A device (tests/fake_device.py) with the demo app and its rings."""
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
            "persist.sys.timezone": "Europe/Paris",
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


BUNDLES = ["20261130T002900.000Z", "20261130T003000.000Z"]


def collector_bundles(root, folder):
    """Two bundles as the app's Collector (dev.lastwords.android.Collector)
    packs them in getExternalFilesDir(null)/lastwords/bundles/, written
    into folder: the demo's rings, two in each, its exit records as the
    app's exit-info.json, the crash's tombstone protobuf, and a manifest whose zone and device
    differ from the device's (the pull's own manifest is the one that
    counts); and a hidden temporary of a Collector killed halfway. Returns
    the scenario's "external" entries and the files by bundle path."""
    local = lambda s: calendar.timegm(time.strptime(s, "%Y-%m-%d %H:%M:%S")) * 1000 - 3600000
    records = [
        {"pid": 25711, "processName": PKG + ":inference", "reason": 3, "status": 0,
         "importance": 125, "pss": 104 << 10, "rss": 118 << 10,
         "timestamp": local("2026-11-30 01:28:04") + 873, "description": None},
        {"pid": 25706, "processName": PKG + ":inference", "reason": 5, "status": 11,
         "importance": 125, "pss": 31 << 10, "rss": 44 << 10,
         "timestamp": local("2026-11-30 01:28:04") + 735, "description": "crash"},
    ]
    rings = demo_rings(root)
    external, files = {}, {}
    for i, name in enumerate(BUNDLES):
        mine = {"rings/" + r: os.path.join(root, "fixtures", "demo", "rings", r)
                for r in rings[2 * i:2 * i + 2]}
        made = {"exit-info.json": json.dumps({"packageName": PKG, "records": records}).encode(),
                "traces/tombstone.25706.%d.pb" % records[1]["timestamp"]:
                    tombstone_pb.demo_twin()}
        manifest = {"kind": "lastwords-pull", "version": 1, "package": PKG, "process": None,
                    "pulled_at": "2026-11-30T00:29:00Z", "files": [], "empty": [], "missing": [],
                    "device": {"manufacturer": "Acme", "model": "Bundle phone",
                               "android_version": "13", "sdk": "33", "fingerprint": "acme/x"},
                    "timezone": "America/New_York", "tz_offset": "-0500", "complete": True}
        for rel, text in made.items():
            path = os.path.join(folder, name, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(text)
            mine[rel] = path
        for rel, path in sorted(mine.items()):
            manifest["files"].append({"path": rel, "bytes": os.path.getsize(path)})
        mine["manifest.json"] = os.path.join(folder, name, "manifest.json")
        with open(mine["manifest.json"], "w") as f:
            json.dump(manifest, f)
        for rel, path in mine.items():
            external["lastwords/bundles/%s/%s" % (name, rel)] = path
            files["%s/%s" % (name, rel)] = path
    external["lastwords/bundles/.20261130T003100.000Z.tmp/manifest.json"] = mine["manifest.json"]
    return external, files


def bugreport_zip(root, path):
    """A bug report zip as bugreportz writes one: main_entry.txt naming the
    main text, and the demo's tombstone under FS/."""
    text = BUGREPORT_NAME[:-4] + ".txt"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("main_entry.txt", text)
        z.writestr(text, "========================================================\n"
                         "== dumpstate: 2026-11-30 10:15:02\n"
                         "========================================================\n\n"
                         "Build fingerprint: 'google/panther/panther:14/UQ1A.240205.004/"
                         "11269751:user/release-keys'\n")
        z.write(os.path.join(root, "fixtures", "demo", "tombstone_00"),
                "FS/data/tombstones/tombstone_00")


def manifest(d):
    """The manifest of a bundle, or {} when it has none."""
    path = os.path.join(d, "manifest.json")
    if not os.path.isfile(path):
        return {}
    with open(path) as f:
        return json.load(f)


def ring_names(d):
    """The rings of a bundle."""
    rings = os.path.join(d, "rings")
    return sorted(os.listdir(rings)) if os.path.isdir(rings) else []


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def demo_rings(root):
    return sorted(os.listdir(os.path.join(root, "fixtures", "demo", "rings")))


def check_complete(lw, root, p, out, serial, what):
    """A complete pull of the demo device into out: the files byte for byte,
    the manifest, and the verdicts report gives on it. Returns whether out
    is there to check further."""
    check(p.returncode == 0, "%s: exit %d: %s" % (what, p.returncode, p.stderr))
    check(os.path.isdir(out) and not os.path.exists(out + ".partial"),
          "%s: the bundle is DIR, and no DIR.partial is left" % what)
    if not os.path.isdir(out):
        return False
    rings_dir = os.path.join(root, "fixtures", "demo", "rings")
    names = demo_rings(root)
    got = ring_names(out)
    check(got == names, "%s: rings %s, expected %s" % (what, got, names))
    for n in names:
        check(same_bytes(os.path.join(out, "rings", n), os.path.join(rings_dir, n)),
              "%s: ring %s is byte for byte the device's" % (what, n))
    check(same_bytes(os.path.join(out, "exit-info.txt"),
                     os.path.join(root, "fixtures", "demo", "dumpsys-exit-info.txt")),
          "%s: exit-info.txt" % what)
    # logcat -v UTC -v year: each line with its year and zone.
    for name, src in (("logcat.txt", os.path.join("fixtures", "demo", "logcat.txt")),
                      ("events.txt", os.path.join("fixtures", "evidence", "event-log", "am-kill.txt"))):
        with open(os.path.join(root, src)) as f:
            want = fake_device.logcat_lines(f.read(), "+0100", 2026, True, True)
        with open(os.path.join(out, name)) as f:
            check(f.read() == want, "%s: %s, in UTC with the year" % (what, name))
    tombs = os.path.join(out, "tombstones")
    check(os.path.isdir(tombs) and os.listdir(tombs) == ["tombstone_00"],
          "%s: the text tombstone, not its .pb twin" % what)
    m = manifest(out)
    dev = m.get("device", {})
    check(m.get("complete") is True, "%s: manifest complete is true" % what)
    check(dev.get("model") == "Pixel 7" and dev.get("android_version") == "14" and
          dev.get("sdk") == "34" and dev.get("fingerprint", "").startswith("google/panther") and
          dev.get("serial") == serial, "%s: manifest device %s" % (what, dev))
    check(m.get("tz_offset") == "+0100" and m.get("timezone") == "Europe/Paris",
          "%s: tz_offset %s, timezone %s" % (what, m.get("tz_offset"), m.get("timezone")))
    check(m.get("package") == PKG and m.get("pulled_at", "").endswith("Z"),
          "%s: package and pulled_at" % what)
    lmk = m.get("lmk", {})
    check(lmk.get("reportkills") is True and
          set(lmk.get("properties", {})) == {"persist.sys.lmk.reportkills", "ro.lmk.use_psi",
                                             "sys.lmk.minfree_levels"},
          "%s: lmk %s" % (what, lmk))
    paths = sorted(f["path"] for f in m.get("files", []))
    check(paths == sorted(["rings/" + n for n in names] +
                          ["exit-info.txt", "logcat.txt", "events.txt", "tombstones/tombstone_00"]),
          "%s: manifest files %s" % (what, paths))
    missing = [x["what"] for x in m.get("missing", [])]
    check(missing == ["ANR traces"] and not any(x["required"] for x in m["missing"]),
          "%s: only the ANR traces are missing, and not required: %s" % (what, missing))
    # On the directory itself: the manifest describes the bundle and gives
    # the device's zone, so no --tz is needed.
    r = run([lw, "report", "--format", "json", out])
    check(r.returncode == 0 and not r.stderr, "%s: report DIR: %d %s" % (what, r.returncode, r.stderr))
    if r.returncode == 0:
        rep = json.loads(r.stdout)
        classes = sorted(str(x.get("classification")) for x in rep["runs"])
        # The demo's four rings, and the stale record as a ring-less run.
        check(classes == ["None", "None", "low_memory", "native_crash", "system_reclaim"] and
              rep["timezone"]["assumed"] is False and rep["timezone"]["offset_minutes"] == 60 and
              rep["timezone"]["name"] == "Europe/Paris" and rep["timezone"]["source"] == "manifest",
              "%s: report DIR verdicts %s, zone %s" % (what, classes, rep["timezone"]))
    return True


def check_bundles(lw, root, out, files, ext):
    """A pull of the demo device as a release build with the Collector's
    bundles (collector_bundles()): every file of each bundle, byte for
    byte, under bundles/, the hidden temporary not; the manifest names
    them; report reads the pull as the complete demo pull, with the pull's
    own zone and device, not the bundles'."""
    m = manifest(out)
    check(m.get("complete") is True and m.get("bundles") == BUNDLES and
          m.get("bundles_from") == ext and m.get("rings_from") == ext,
          "bundles: the manifest: %r" % {k: m.get(k) for k in ("complete", "bundles",
                                                              "bundles_from", "rings_from")})
    got = sorted(os.path.relpath(os.path.join(d, n), os.path.join(out, "bundles"))
                 for d, _, ns in os.walk(os.path.join(out, "bundles")) for n in ns)
    check(got == sorted(files), "bundles: the files pulled: %s" % got)
    for rel, src in files.items():
        path = os.path.join(out, "bundles", rel)
        check(os.path.isfile(path) and same_bytes(path, src), "bundles: %s byte for byte" % rel)
    listed = set(f["path"] for f in m.get("files", []))
    check(all("bundles/" + rel in listed for rel in files), "bundles: listed in the manifest")
    r = run([lw, "report", "--format", "json", out])
    check(r.returncode == 0, "bundles: report DIR: %d %s" % (r.returncode, r.stderr))
    if r.returncode == 0:
        rep = json.loads(r.stdout)
        got = sorted((x["pid"], str(x.get("classification")), x["evidence_level"])
                     for x in rep["runs"])
        want = [(25495, "system_reclaim", "supported"), (25697, "None", None),
                (25701, "None", None), (25706, "native_crash", "confirmed"),
                (25711, "low_memory", "confirmed")]
        check(got == want, "bundles: the demo's verdicts: %s" % got)
        mans = rep.get("pull", {}).get("manifests", [])
        check(rep["timezone"]["name"] == "Europe/Paris" and rep["timezone"]["source"] == "manifest"
              and mans[:1] == [os.path.join(out, "manifest.json")] and len(mans) == 3,
              "bundles: the pull's own zone and device, not the bundles': %r %r" %
              (rep["timezone"], mans))


class Env:
    def __init__(self, lw, root, tmp):
        self.lw, self.root, self.tmp, self.n = lw, root, tmp, 0
        self.adb = os.path.join(tmp, "adb")
        with open(self.adb, "w") as f:
            f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n' %
                    (sys.executable, os.path.join(root, "tests", "fake-adb.py")))
        os.chmod(self.adb, 0o755)

    def case(self, devices, extra=None):
        """A fresh case directory with its scenario: (dir, scenario, log)."""
        self.n += 1
        case = os.path.join(self.tmp, "case%d" % self.n)
        os.mkdir(case)
        scen = os.path.join(case, "scenario.json")
        with open(scen, "w") as f:
            json.dump(dict({"devices": devices}, **(extra or {})), f)
        return case, scen, os.path.join(case, "adb.log")

    def env(self, scen, log, adb=None):
        return dict(os.environ, ADB=adb or self.adb, FAKE_ADB_SCENARIO=scen, FAKE_ADB_LOG=log)

    def pull(self, devices, args, adb=None, out=None, extra=None, stderr=subprocess.PIPE):
        """Run pull in a fresh case directory; returns (process, out dir,
        commands), with the peak memory of pull and of what it ran as
        process.maxrss_kb. stderr: where pull's goes (a terminal's fd)."""
        case, scen, log = self.case(devices, extra)
        out = out or os.path.join(case, "bundle")
        # Each device's root built now, as tests/fake-adb.py would at its
        # first call, so that the build is not counted in pull's deadline.
        for d in devices:
            fake_device.Device(d, case, case)
        child = subprocess.Popen([self.lw, "pull"] + args + ["-o", out], env=self.env(scen, log, adb),
                                 stdout=subprocess.PIPE, stderr=stderr, text=True)
        try:
            stdout, stderr = child.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            child.kill()
            stdout, stderr = child.communicate()
        _, _, usage = os.wait4(child.pid, 0) if child.returncode is None else (0, 0, None)
        p = subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
        p.maxrss_kb = usage.ru_maxrss if usage else resource.getrusage(
            resource.RUSAGE_CHILDREN).ru_maxrss
        check(p.returncode >= 0, "pull killed by signal %d" % -p.returncode)
        cmds = []
        if os.path.exists(log):
            with open(log) as f:
                cmds = [json.loads(line) for line in f]
        return p, out, cmds


def device_commands(cmds):
    """The device command lines pull gave, after checking that each went
    through exec-out as one argument, with -s."""
    lines = []
    for c in cmds[1:]:
        check(c[:3] == ["-s", c[1], "exec-out"] and len(c) == 4,
              "each device command is one exec-out argument: %s" % c)
        lines.append(c[-1])
    return lines


def partial_missing(p, out, what):
    """The missing items of a pull that had to be partial."""
    check(p.returncode == EXIT_PARTIAL, "%s: exit %d, expected %d: %s" %
          (what, p.returncode, EXIT_PARTIAL, p.stderr))
    return manifest(out + ".partial").get("missing", [])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """A test's own adb server (the real client's: its own port and HOME,
    so it meets no other server and no real device's keys) and its devices,
    daemons of tests/fake-adbd.py."""

    def __init__(self, lw, root, tmp, adb):
        self.lw, self.root, self.tmp, self.adb, self.n = lw, root, tmp, adb, 0
        self.daemons = []
        home = os.path.join(tmp, "home")
        os.mkdir(home)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("ANDROID_", "ADB"))}
        self.env.update(HOME=home, ANDROID_ADB_SERVER_PORT=str(free_port()), ADB=adb)

    def adb_run(self, *args, **kw):
        return run([self.adb] + list(args), env=self.env, stdin=subprocess.DEVNULL, timeout=30,
                   **kw)

    def start(self):
        p = self.adb_run("start-server")
        if p.returncode != 0:
            fatal("adb start-server: %d %s" % (p.returncode, p.stderr))

    def stop(self):
        self.adb_run("kill-server")
        for d in self.daemons:
            d.kill()
            d.wait()

    def device(self, dev, state="device"):
        """Start a daemon playing dev and connect the server to it; returns
        its serial once adb devices lists it in state."""
        self.n += 1
        scen = os.path.join(self.tmp, "device%d.json" % self.n)
        with open(scen, "w") as f:
            json.dump({"devices": [dev]}, f)
        d = subprocess.Popen([sys.executable, os.path.join(self.root, "tests", "fake-adbd.py"), scen],
                             stdout=subprocess.PIPE, text=True)
        self.daemons.append(d)
        port = d.stdout.readline().strip()
        if not port.isdigit():
            fatal("fake-adbd.py gave no port: %r" % port)
        serial = "127.0.0.1:" + port
        p = self.adb_run("connect", serial)
        check(p.returncode == 0, "adb connect %s: %s %s" % (serial, p.stdout, p.stderr))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if "%s\t%s" % (serial, state) in self.adb_run("devices").stdout:
                return serial
            time.sleep(0.05)
        fatal("%s is not listed as %s: %s" % (serial, state, self.adb_run("devices").stdout))

    def pull(self, args):
        self.n += 1
        out = os.path.join(self.tmp, "bundle%d" % self.n)
        p = run([self.lw, "pull"] + args + ["-o", out], env=self.env, timeout=60)
        return p, out
