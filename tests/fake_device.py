"""An Android device played on the host, for the pull tests: the stand-in
adb client (tests/fake-adb.py) and the device daemon that the real adb
client and server talk to (tests/fake-adbd.py) both run device commands
here.

A device's filesystem is a directory (its root), built once from a scenario
(host paths in it are relative to the scenario file):

  {"serial": "emulator-5554", "state": "device",
   "props": {"ro.product.model": "Pixel 7", ...},
   "tz": "+0100",                              # date +%z; logcat -v UTC converts from it
   "year": 2026,                               # logcat -v year: the year of the logs' dates
   "packages": {"com.example.demo": {
       "debuggable": true,
       "files": {"NAME.lwr": "host/path"},      # files/ (run-as)
       "external": {"NAME.lwr": "host/path",    # getExternalFilesDir(), where
                    "lastwords/bundles/B/manifest.json": "host/path"}}}, # the Collector's bundles go
   "exit_info": {"com.example.demo": "host/path"},
   "logcat": {"main,system,crash": "host/path", "events": "host/path"},
   "dirs": {"/data/tombstones": {"tombstone_00": "host/path"}},
   "getprop_bytes": N,                          # getprop prints N bytes
   "props_file": "host/path",                   # getprop prints these bytes
   "bugreportz": {"version": "1.2",             # bugreportz -v (1.0 has no -p)
                  "zip": "host/path",           # the zip it makes...
                  "name": "bugreport-x.zip",    # ...under the shell's bugreports/
                  "steps": N, "delay": SECONDS, # PROGRESS lines, and a sleep after each
                  "fail": "message",            # FAIL: instead of OK:
                  "ok": "/device/path"}}        # what OK: names instead

A device without "bugreportz" has none, as before Android 7.0: the shell
cannot find the command (status 127).

A directory not in "dirs" (nor an app's external one) is not there, as
/data/tombstones and /data/anr are unreadable without root.

   "modes": {"/data/anr": "0771"}               # a directory of another user
                                                # (root), with this mode

A command line runs in the device's shell as Android's is: mksh (the
host's /usr/bin/mksh), with the device's own tools (run-as, getprop,
date +%z, pm path, dumpsys activity exit-info, logcat -d) as small
scripts first in PATH and then toybox's (ls, cat, stat, find, tar, ...:
a directory of links to the host's toybox) and sh (mksh), and nothing
else. Run as root
(the tests are), the shell runs as nobody, as Android's shell user is not
root: the device's files are then copies owned by nobody, and a directory
of "modes" is root's, so that its mode says what the shell may do (root
may list anything). Without mksh or toybox (LWDEVICE_SHELL=host, or
android_shell() None), the host's /bin/sh and tools play it, as root.
Absolute /data/ and /sdcard/ paths are moved under the root. So the
quoting, globbing and exit statuses are those of a real shell: a command
quoted wrongly, or relying on bash or GNU ways, misbehaves here as it
would on a device.
"""
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

TOOLS = {
    "run-as": r'''
pkg=$1; shift
if [ ! -d "$LWDEV/pkgs/$pkg" ]; then echo "run-as: unknown package: $pkg" >&2; exit 1; fi
if [ ! -e "$LWDEV/pkgs/$pkg/debuggable" ]; then
  echo "run-as: package not debuggable: $pkg" >&2; exit 1
fi
cd "$LWROOT/data/data/$pkg" || exit 1
exec "$@"
''',
    "getprop": r'''
if [ -e "$LWDEV/getprop_bytes" ]; then
  yes '[ro.lastwords.filler]: [xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx]' | head -c "$(cat "$LWDEV/getprop_bytes")"
  exit 0
fi
cat "$LWDEV/props"
''',
    "date": r'''
if [ "$*" = "+%z" ]; then cat "$LWDEV/tz"; exit 0; fi
exec /bin/date "$@"
''',
    "pm": r'''
if [ "$1" = path ] && [ $# -eq 2 ] && [ -d "$LWDEV/pkgs/$2" ]; then
  echo "package:/data/app/~~x/$2-1/base.apk"; exit 0
fi
exit 1
''',
    "dumpsys": r'''
if [ "$1 $2" = "activity exit-info" ]; then
  if [ -n "$3" ] && [ -e "$LWDEV/exit-info/$3" ]; then cat "$LWDEV/exit-info/$3"; exit 0; fi
  echo "ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)"; exit 0
fi
echo "Can't find service: $1"; exit 0
''',
    "logcat": r'''
dump=; buf=main,system,crash; utc=; year=
while [ $# -gt 0 ]; do
  case $1 in
  -d) dump=1;;
  -b) shift; buf=$1;;
  -v) shift; case $1 in UTC) utc=1;; year) year=1;; threadtime) ;;
      *) echo "fake device: logcat -v $1 is not played" >&2; exit 1;; esac;;
  esac; shift
done
if [ -z "$dump" ]; then echo "fake device: logcat without -d would never end" >&2; exit 1; fi
[ -e "$LWDEV/logcat/$buf" ] || exit 0
if [ -z "$utc$year" ]; then cat "$LWDEV/logcat/$buf"; exit 0; fi
exec "$LWPYTHON" "$LWDEV/fake_device.py" logcat "$LWDEV/logcat/$buf" "$(cat "$LWDEV/tz")" \
  "$(cat "$LWDEV/year")" "$utc" "$year"
''',
    "bugreportz": r'''
d=$LWDEV/bugreportz
if [ ! -d "$d" ]; then echo "/system/bin/sh: bugreportz: inaccessible or not found" >&2; exit 127; fi
version=$(cat "$d/version")
case $1 in
-v) echo "$version" >&2; exit 0;;
-p) [ "$version" = 1.0 ] && { echo "bugreportz: invalid option -- p" >&2; exit 1; }; progress=1;;
'') progress=;;
*) echo "bugreportz: invalid option -- $1" >&2; exit 1;;
esac
dir=/data/user_de/0/com.android.shell/files/bugreports
out=$dir/$(cat "$d/name")
[ -n "$progress" ] && echo "BEGIN:$out"
steps=$(cat "$d/steps"); i=0
while [ "$i" -lt "$steps" ]; do
  i=$((i + 1))
  [ -n "$progress" ] && echo "PROGRESS:$((i * 1000 / steps))/1000"
  sleep "$(cat "$d/delay")"
done
if [ -e "$d/fail" ]; then echo "FAIL:$(cat "$d/fail")"; exit 1; fi
mkdir -p "$LWROOT$dir" && cp "$d/zip" "$LWROOT$out" || exit 1
if [ -e "$d/ok" ]; then echo "OK:$(cat "$d/ok")"; else echo "OK:$out"; fi
''',
}


def android_shell():
    """(mksh, toybox) of the host, for a device shell as Android's; None
    when either is missing or LWDEVICE_SHELL=host asks for the host's."""
    if os.environ.get("LWDEVICE_SHELL") == "host":
        return None
    mksh, toybox = shutil.which("mksh"), shutil.which("toybox")
    return (mksh, toybox) if mksh and toybox else None


NOBODY = 65534


def logcat_lines(text, tz, year, utc, with_year):
    """A logcat's threadtime lines as logcat -v UTC (in UTC, and " +0000"
    after the time: -v UTC turns -v zone on) and -v year print them, from
    lines the device wrote in its zone tz ("+0100") with dates of year."""
    off = (1 if tz[0] == "+" else -1) * (int(tz[1:3]) * 60 + int(tz[3:5]))
    out = []
    for line in text.splitlines(True):
        m = re.match(r"(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3})", line)
        if not m:
            out.append(line)
            continue
        t = datetime.datetime(year, *map(int, m.groups()[:5]), int(m.group(6)) * 1000)
        if utc:
            t -= datetime.timedelta(minutes=off)
        stamp = t.strftime("%Y-%m-%d %H:%M:%S" if with_year else "%m-%d %H:%M:%S")
        out.append("%s.%03d%s%s" % (stamp, t.microsecond // 1000, " +0000" if utc else "",
                                    line[m.end():]))
    return "".join(out)


def load(path):
    """The scenario of a JSON file and the directory its host paths are
    relative to."""
    with open(path) as f:
        return json.load(f), os.path.dirname(os.path.abspath(path))


def escape_arg(s):
    """A word single-quoted as the real adb client quotes it (adb_utils'
    escape_arg): ' becomes '\\''."""
    return "'" + s.replace("'", "'\\''") + "'"


class Device:
    def __init__(self, dev, base, cache):
        """dev: one device of a scenario; base: what its host paths are
        relative to; cache: a directory where its root is built once."""
        self.dev = dev
        self.android = android_shell()
        self.drop = self.android is not None and os.geteuid() == 0
        # nobody may not reach this python (under /root, say): the system's
        self.python = (shutil.which("python3", path="/usr/bin:/bin") if self.drop else None) \
            or sys.executable
        self.root = os.path.join(cache, "device-" + re.sub(r"[^A-Za-z0-9._-]", "_", dev["serial"]))
        if not os.path.isdir(self.root):
            tmp = self.root + ".%d.tmp" % os.getpid()
            self.build(tmp, base)
            try:
                os.rename(tmp, self.root)
            except OSError:  # built meanwhile by another call
                shutil.rmtree(tmp)

    def build(self, root, base):
        dev = self.dev

        def link(files, where):
            os.makedirs(where, exist_ok=True)
            for name, path in files.items():
                os.makedirs(os.path.dirname(os.path.join(where, name)), exist_ok=True)
                if self.drop:  # nobody may not reach the file where it is
                    shutil.copyfile(os.path.join(base, path), os.path.join(where, name))
                else:
                    os.symlink(os.path.join(base, path), os.path.join(where, name))

        lwdev = os.path.join(root, "dev-data")
        bindir = os.path.join(root, "bin")
        for d in (lwdev, bindir, os.path.join(lwdev, "pkgs")):
            os.makedirs(d)
        for name, text in TOOLS.items():
            with open(os.path.join(bindir, name), "w") as f:
                f.write("#!/bin/sh\n" + text)
            os.chmod(os.path.join(bindir, name), 0o755)
        if "props_file" in dev:
            shutil.copy(os.path.join(base, dev["props_file"]), os.path.join(lwdev, "props"))
        else:
            with open(os.path.join(lwdev, "props"), "w") as f:
                f.write("".join("[%s]: [%s]\n" % kv for kv in sorted(dev.get("props", {}).items())))
        with open(os.path.join(lwdev, "tz"), "w") as f:
            f.write(dev.get("tz", "+0000") + "\n")
        with open(os.path.join(lwdev, "year"), "w") as f:
            f.write("%d\n" % dev.get("year", 2026))
        if "getprop_bytes" in dev:
            with open(os.path.join(lwdev, "getprop_bytes"), "w") as f:
                f.write("%d\n" % dev["getprop_bytes"])
        for pkg, p in dev.get("packages", {}).items():
            os.makedirs(os.path.join(lwdev, "pkgs", pkg))
            if p.get("debuggable"):
                open(os.path.join(lwdev, "pkgs", pkg, "debuggable"), "w").close()
            if "files" in p:
                link(p["files"], os.path.join(root, "data", "data", pkg, "files"))
            if "external" in p:
                link(p["external"], os.path.join(root, "sdcard", "Android", "data", pkg, "files"))
        link(dev.get("exit_info", {}), os.path.join(lwdev, "exit-info"))
        link(dev.get("logcat", {}), os.path.join(lwdev, "logcat"))
        for d, files in dev.get("dirs", {}).items():
            link(files, os.path.join(root, d.lstrip("/")))
        if "bugreportz" in dev:
            bz = dict({"version": "1.2", "name": "bugreport.zip", "steps": 4, "delay": 0},
                      **dev["bugreportz"])
            os.makedirs(os.path.join(lwdev, "bugreportz"))
            for key, value in bz.items():
                if key == "zip":
                    (shutil.copyfile if self.drop else os.symlink)(
                        os.path.join(base, value), os.path.join(lwdev, "bugreportz", key))
                else:
                    with open(os.path.join(lwdev, "bugreportz", key), "w") as f:
                        f.write("%s\n" % value)
        shutil.copyfile(os.path.abspath(__file__), os.path.join(lwdev, "fake_device.py"))
        if self.android:
            tools = os.path.join(root, "toybox")
            os.makedirs(tools)
            names = subprocess.run([self.android[1]], stdout=subprocess.PIPE, text=True,
                                   check=True).stdout.split()
            for name in names:
                os.symlink(self.android[1], os.path.join(tools, name))
            os.symlink(self.android[0], os.path.join(tools, "sh"))  # /system/bin/sh is mksh
        if self.drop:
            self.give_to_nobody(root)
        for d, mode in dev.get("modes", {}).items():
            path = os.path.join(root, d.lstrip("/"))
            os.makedirs(path, exist_ok=True)
            mode = int(mode, 8)
            if os.geteuid() == 0:
                os.chown(path, 0, 0)
            else:  # the owner is the shell's user: its own bits say it, not others'
                mode = (mode & 0o077) | ((mode & 0o001) << 6)
            os.chmod(path, mode)

    @staticmethod
    def give_to_nobody(root):
        """The tree of root owned by nobody, and every directory above it
        passable by nobody."""
        for top, dirs, files in os.walk(root):
            for name in [top] + [os.path.join(top, n) for n in dirs + files]:
                os.lchown(name, NOBODY, NOBODY)
        up = os.path.dirname(os.path.abspath(root))
        while up != "/":
            st = os.stat(up)
            if not st.st_mode & 0o001:
                os.chmod(up, (st.st_mode & 0o7777) | 0o001)
            up = os.path.dirname(up)

    def shell(self, cmdline):
        """(argv, env, cwd) that run cmdline as the device's sh -c would."""
        line = re.sub(r"(^|[\s'\"=])/(data|sdcard)/", lambda m: m.group(1) + self.root + "/" +
                      m.group(2) + "/", cmdline)
        tools = os.path.join(self.root, "toybox") if self.android else "/usr/bin:/bin"
        env = {"PATH": os.path.join(self.root, "bin") + ":" + tools, "LC_ALL": "C",
               "LWROOT": self.root, "LWDEV": os.path.join(self.root, "dev-data"),
               "LWPYTHON": self.python}
        if not self.android:
            return ["/bin/sh", "-c", line], env, self.root
        argv = [self.android[0], "-c", line]
        if self.drop:  # util-linux's setpriv: the shell as nobody, in no group of root's
            argv = [shutil.which("setpriv") or "/usr/bin/setpriv", "--reuid=%d" % NOBODY,
                    "--regid=%d" % NOBODY, "--clear-groups", "--"] + argv
        return argv, env, self.root


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "logcat":
    # The device's logcat -v UTC / -v year (the TOOLS script runs this).
    with open(sys.argv[2]) as f:
        sys.stdout.write(logcat_lines(f.read(), sys.argv[3], int(sys.argv[4]), sys.argv[5] == "1",
                                      sys.argv[6] == "1"))
