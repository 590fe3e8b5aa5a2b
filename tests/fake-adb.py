#!/usr/bin/env python3
"""A stand-in for the adb client that plays devices from a scenario, for
tests/pull-adb.py: the odd cases that a real device rarely shows
(tests/pull-real-adb.py runs the real client). Every command line it gets
is appended to the file FAKE_ADB_LOG as one JSON array per line.

FAKE_ADB_SCENARIO names a JSON file: {"devices": [DEVICE, ...]} with each
DEVICE as tests/fake_device.py describes it, its "state" as adb devices
prints it ("device", "offline", "unauthorized", "no permissions (...)"),
and odd ways to fail:
  "offline_after": N   the device is offline from the (N+1)th adb call on
  "cut": {"when": TEXT, "after": N, "times": K}
                       the output of the first K exec-out calls whose
                       command has TEXT stops after N bytes (adb exits 0)
  "repeat": NAME       a file stream sends the file NAME twice
  "slow": SECONDS      each device command takes that long to start
and, beside "devices", "hang_on": [WORD, ...]: a command with one of these
never answers.

Like the real client (adb 1.0.41, client/commandline.cpp): `exec-out`
sends its first argument as it is and single-quotes each later one, and
gives no exit status (0, or 255 when it cannot reach the device), with the
device's stderr mixed into its output; `shell` joins its arguments with
spaces, unquoted, and gives the device's status and stderr apart with the
shell protocol (shell_v2), or 0 and stderr mixed in without it; `logcat
ARGS` is `shell` with its arguments quoted. Errors are the server's texts.
"""
import json
import os
import re
import subprocess
import sys
import time

from fake_device import Device, escape_arg, load

UNAUTHORIZED = ("device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n"
                "Try 'adb kill-server' if that seems wrong.\n"
                "Otherwise check for a confirmation dialog on your device.")


def pick(devices, serial, ncalls):
    """The device a command goes to, or the server's error."""
    if serial is not None:
        found = [d for d in devices if d["serial"] == serial]
        if not found:
            return None, "device '%s' not found" % serial
        dev = found[0]
    elif len(devices) == 1:
        dev = devices[0]
    elif not devices:
        return None, "no devices/emulators found"
    else:
        return None, "more than one device/emulator"
    state = dev.get("state", "device")
    if "offline_after" in dev and ncalls > dev["offline_after"]:
        state = "offline"
    if state == "unauthorized":
        return None, UNAUTHORIZED
    if state.startswith("no permissions"):
        return None, "insufficient permissions for device" + state[len("no permissions"):]
    if state != "device":
        return None, "device " + state
    return dev, None


def counter(path):
    """How many times this has been called before (kept in a file)."""
    n = int(open(path).read()) if os.path.exists(path) else 0
    with open(path, "w") as f:
        f.write("%d" % (n + 1))
    return n


def odd_output(dev, cmd, out, case_dir):
    """The output of a file stream as an odd device sends it."""
    cut = dev.get("cut")
    if cut and cut["when"] in cmd and counter(os.path.join(case_dir, "cut.count")) < cut.get("times", 1):
        return out[:cut["after"]]
    name = dev.get("repeat")
    if name:
        m = re.search(rb"LWFILE (\d+) " + re.escape(name.encode()) + rb"\n", out)
        if m:
            end = m.end() + int(m.group(1))
            end = out.index(b"\n", out.index(b"LWCAT", end)) + 1
            out = out[:end] + out[m.start():end] + out[end:]
    return out


def run_device(dev, device, cmd, mixed, case_dir):
    """Run cmd on the device: with mixed, its stderr into its stdout (and
    the odd ways of dev applied). Returns its exit status."""
    argv, env, cwd = device.shell(cmd)
    sys.stdout.flush()
    if not mixed:
        return subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL).returncode
    if not dev.get("cut") and not dev.get("repeat"):
        # No copy in between: what the device prints streams to the caller.
        return subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              stderr=subprocess.STDOUT).returncode
    p = subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    sys.stdout.buffer.write(odd_output(dev, cmd, p.stdout, case_dir))
    return p.returncode


def main():
    args = sys.argv[1:]
    log = os.environ.get("FAKE_ADB_LOG")
    ncalls = 0
    if log:
        with open(log, "a") as f:
            f.write(json.dumps(args) + "\n")
        with open(log) as f:
            ncalls = sum(1 for _ in f)
    path = os.environ["FAKE_ADB_SCENARIO"]
    scenario, base = load(path)
    case_dir = os.path.dirname(os.path.abspath(path))
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
    if args[0] == "exec-out":
        if len(args) < 2:
            sys.stderr.write("adb: usage: adb exec-out command\n")
            return 1
        cmd = args[1] + "".join(" " + escape_arg(a) for a in args[2:])
    elif args[0] == "shell":
        cmd = " ".join(args[1:])
    elif args[0] == "logcat":
        cmd = "export ANDROID_LOG_TAGS=\"''\"; exec logcat" + "".join(" " + escape_arg(a)
                                                                     for a in args[1:])
    else:
        sys.stderr.write("fake-adb: unknown command %r\n" % args[0])
        return 1
    # A device that stops answering one command (a wedged logcat).
    for word in scenario.get("hang_on", []):
        if word in cmd:
            time.sleep(60)
            return 1
    dev, err = pick(devices, serial, ncalls)
    if err:
        if args[0] == "logcat":  # it waits for a device to come
            sys.stderr.write("- waiting for device -\n")
            sys.stderr.flush()
            time.sleep(3600)
        sys.stderr.write("error: %s\n" % err)
        return 255 if args[0] == "exec-out" else 1
    time.sleep(dev.get("slow", 0))
    device = Device(dev, base, case_dir)
    if args[0] == "exec-out":
        run_device(dev, device, cmd, True, case_dir)
        return 0
    if not dev.get("shell_v2", True):
        run_device(dev, device, cmd, True, case_dir)
        return 0
    return run_device(dev, device, cmd, False, case_dir)


if __name__ == "__main__":
    sys.exit(main())
