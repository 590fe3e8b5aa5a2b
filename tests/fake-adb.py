#!/usr/bin/env python3
"""A stand-in for the adb client that plays devices from a scenario, for
tests/pull-adb.py. Every command line it gets is appended to the file
FAKE_ADB_LOG as one JSON array per line.

FAKE_ADB_SCENARIO names a JSON file (host paths in it are relative to it):
  {"devices": [{"serial": "emulator-5554", "state": "device",
                "props": {"ro.product.model": "Pixel 7", ...},
                "tz": "+0100",
                "packages": {"com.example.demo": {
                    "debuggable": true,
                    "files": {"NAME.lwr": "host/path"},      # files/ (run-as)
                    "external": {"NAME.lwr": "host/path"}}}, # getExternalFilesDir()
                "exit_info": {"com.example.demo": "host/path"},
                "logcat": {"main,system,crash": "host/path", "events": "host/path"},
                "dirs": {"/data/tombstones": {"tombstone_00": "host/path"}}}]}
A directory not in "dirs" (nor an app's external one) is unreadable, as
/data/tombstones and /data/anr are without root.

Like adb, it joins the device command's words with spaces into one shell
command line, so a command quoted wrongly by the client misbehaves here as
on a device. "shell" passes the exit status back; "exec-out" does not, and
mixes the device's error messages into its output.
"""
import json
import os
import shlex
import sys


def load():
    path = os.environ["FAKE_ADB_SCENARIO"]
    with open(path) as f:
        return json.load(f), os.path.dirname(os.path.abspath(path))


def main():
    args = sys.argv[1:]
    log = os.environ.get("FAKE_ADB_LOG")
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(args) + "\n")
    scenario, base = load()
    devices = scenario.get("devices", [])
    serial = None
    if args[:1] == ["-s"]:
        serial, args = args[1], args[2:]
    if not args:
        sys.stderr.write("adb: usage: no command\n")
        return 1
    if args[0] == "devices":
        sys.stdout.write("List of devices attached\n")
        for d in devices:
            sys.stdout.write("%s\t%s\n" % (d["serial"], d.get("state", "device")))
        sys.stdout.write("\n")
        return 0
    # A device that stops answering one command (a wedged logcat).
    for word in scenario.get("hang_on", []):
        if word in args:
            import time
            time.sleep(60)
            return 1
    if serial is not None:
        found = [d for d in devices if d["serial"] == serial]
        if not found:
            sys.stderr.write("adb: device '%s' not found\n" % serial)
            return 1
        dev = found[0]
    elif len(devices) == 1:
        dev = devices[0]
    elif not devices:
        sys.stderr.write("adb: no devices/emulators found\n")
        return 1
    else:
        sys.stderr.write("adb: more than one device/emulator\n")
        return 1
    if dev.get("state", "device") != "device":
        sys.stderr.write("adb: device %s\n" % dev["state"])
        return 1
    dev["_base"] = base
    if args[0] == "logcat":
        buf = args[args.index("-b") + 1] if "-b" in args else "main,system,crash"
        if "-d" not in args:
            sys.stderr.write("fake-adb: logcat without -d would never end\n")
            return 1
        path = dev.get("logcat", {}).get(buf)
        if path:
            sys.stdout.buffer.write(read(dev, path))
        return 0
    if args[0] in ("shell", "exec-out"):
        out, err, status = device_shell(dev, " ".join(args[1:]))
        sys.stdout.buffer.flush()
        if args[0] == "exec-out":
            sys.stdout.buffer.write(out + err)
            return 0
        sys.stdout.buffer.write(out)
        sys.stderr.buffer.write(err)
        return status
    sys.stderr.write("fake-adb: unknown command %r\n" % args[0])
    return 1


def read(dev, path):
    with open(os.path.join(dev["_base"], path), "rb") as f:
        return f.read()


def listing(files):
    return "".join(n + "\n" for n in sorted(files)).encode()


def readable_dirs(dev):
    dirs = dict(dev.get("dirs", {}))
    for pkg, p in dev.get("packages", {}).items():
        if "external" in p:
            dirs["/sdcard/Android/data/%s/files" % pkg] = p["external"]
    return dirs


def device_shell(dev, line):
    """The device's /system/bin/sh on one command line: (stdout, stderr, status)."""
    words = shlex.split(line)
    pkgs = dev.get("packages", {})
    if words == ["getprop"]:
        return "".join("[%s]: [%s]\n" % kv for kv in sorted(dev.get("props", {}).items())).encode(), b"", 0
    if words == ["date", "+%z"]:
        return (dev.get("tz", "+0000") + "\n").encode(), b"", 0
    if words[:2] == ["pm", "path"] and len(words) == 3:
        if words[2] in pkgs:
            return ("package:/data/app/~~x/%s-1/base.apk\n" % words[2]).encode(), b"", 0
        return b"", b"", 1
    if words[:3] == ["dumpsys", "activity", "exit-info"]:
        head = b"ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
        path = dev.get("exit_info", {}).get(words[3] if len(words) > 3 else "")
        return (read(dev, path) if path else head), b"", 0
    if words[:1] == ["run-as"] and len(words) >= 3:
        pkg, rest = words[1], words[2:]
        if pkg not in pkgs:
            return b"", ("run-as: unknown package: %s\n" % pkg).encode(), 1
        if not pkgs[pkg].get("debuggable"):
            return b"", ("run-as: package not debuggable: %s\n" % pkg).encode(), 1
        files = pkgs[pkg].get("files", {})
        if rest == ["sh", "-c", "cd files && ls *.lwr"]:
            names = [n for n in files if n.endswith(".lwr")]
            if not names:
                return b"", b"ls: *.lwr: No such file or directory\n", 1
            return listing(names), b"", 0
        if len(rest) == 2 and rest[0] == "cat" and rest[1].startswith("files/"):
            name = rest[1][len("files/"):]
            if name in files:
                return read(dev, files[name]), b"", 0
            return b"", ("cat: %s: No such file or directory\n" % rest[1]).encode(), 1
        # Anything else, such as sh -c given unquoted words, runs in the
        # app's data directory (not files/), where no ring is.
        return b"", b"ls: *.lwr: No such file or directory\n", 1
    dirs = readable_dirs(dev)
    if words[:1] == ["ls"] and len(words) == 2:
        d = words[1].rstrip("/")
        if d in dirs:
            return listing(dirs[d]), b"", 0
        if d.startswith("/data/") or d.startswith("/sdcard/Android/data/"):
            return b"", ("ls: %s: Permission denied\n" % d).encode(), 1
        return b"", ("ls: %s: No such file or directory\n" % d).encode(), 1
    if words[:1] == ["cat"] and len(words) == 2:
        d, _, name = words[1].rpartition("/")
        if d in dirs and name in dirs[d]:
            return read(dev, dirs[d][name]), b"", 0
        return b"", ("cat: %s: Permission denied\n" % words[1]).encode(), 1
    return b"", ("/system/bin/sh: %s: inaccessible or not found\n" % words[0]).encode(), 127


if __name__ == "__main__":
    sys.exit(main())
