"""Bug reports for the tests, written at test time from real-format pieces.

An `adb bugreport` zip is laid out as AOSP's dumpstate writes it
(frameworks/native/cmds/dumpstate: dumpstate.cpp, DumpstateUtil.cpp;
cmds/dumpsys/dumpsys.cpp):

    version.txt                       "2.0"
    FS/data/anr/anr_...               every ANR trace
    FS/data/tombstones/tombstone_NN   each tombstone, and its .pb twin
                                      (tombstone_pb.twin_of_text: pb_twins)
    FS/proc/meminfo, proto/..., dumpstate_board.txt
    bugreport-<product>-<build>-<YYYY-MM-DD-HH-MM-SS>.txt   the main text
    main_entry.txt                    that name, no newline
    dumpstate_log.txt

The main text has dumpstate's header (PrintHeader), then its sections in
dumpstate's order, each "------ TITLE (COMMAND) ------" (RunCommandToFd) and
its "------ N.NNNs was the duration of 'TITLE' ------" (DurationReporter):
DUMPSYS CRITICAL, SYSTEM LOG and EVENT LOG (logcat with "-v uid": a user
name of at most five letters or a uid before the pid), STATS LOG, RADIO
LOG, MEMORY INFO, VM TRACES AT LAST ANR (dump_file_from_fd: the newest
trace, with its path and time, and no duration line), ANR FILES, SYSTEM
PROPERTIES (getprop, with persist.sys.timezone), then the framework
services: DUMPSYS, each service after a line of 79 dashes and "DUMP OF
SERVICE NAME:" up to dumpsys's "--------- N.NNNs was the duration of
dumpsys NAME, ending at: ..." (alarm with its nowRTC line; activity with
its sections, the exit-info among them, indented two spaces and apart by
dashes as a full `dumpsys activity` prints them), then the second SYSTEM LOG
(-T since).

The evidence in it is what a test gives, each file in its own real format
(fixtures/), put where a bug report holds it:

    br = BugReport(taken="2025-06-10 14:45:01", zone="Europe/Berlin", offset_minutes=120)
    br.add(kind, name, text)          # the kinds of `lastwords inspect`;
                                      # "tombstone-pb": a .pb alone (text: bytes)
    br.write_zip(path); br.write_dir(path)

Run as `tests/bugreports.py fixtures/bugreports/NAME`, it rewrites that
fixture's unzipped bug report (NAME/bundle/bugreport) from its pieces.
"""
import calendar
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile

from tombstone_pb import twin_of_text

LOGCAT_V_UID = "logcat -v threadtime -v printable -v uid -d *:v"
THREADTIME = re.compile(r"^(\d\d-\d\d \d\d:\d\d:\d\d\.\d+)\s+(\d+)\s+(\d+)\s+([VDIWEFA]) (.*)$")
DASHES = "-" * 79

# The user a line's tag runs as, for "-v uid": liblog prints the name when
# it has at most five letters, else the uid.
TAG_USERS = {"lowmemorykiller": "lmkd", "Zygote": "root", "DEBUG": "1000", "libc": "10231"}


def uid_line(line):
    """A threadtime line as `logcat -v uid` prints it."""
    m = THREADTIME.match(line)
    if not m:
        return line
    when, pid, tid, level, rest = m.groups()
    tag = rest.split(":", 1)[0].strip()
    return "%s %5s %5s %5s %s %s" % (when, TAG_USERS.get(tag, "1000"), pid, tid, level, rest)


def section(title, command, body, seconds="0.101"):
    """A section as RunCommand() writes it, with its DurationReporter line."""
    head = "------ %s (%s) ------\n" % (title, command) if command else "------ %s ------\n" % title
    if body and not body.endswith("\n"):
        body += "\n"
    return head + body + "------ %ss was the duration of '%s' ------\n" % (seconds, title)


def service(name, body, ending):
    """A service of a DUMPSYS section, as dumpsys writes it."""
    if body and not body.endswith("\n"):
        body += "\n"
    return ("%s\nDUMP OF SERVICE %s:\n%s--------- 0.004s was the duration of dumpsys %s, "
            "ending at: %s\n" % (DASHES, name, body, name, ending))


def banner(text):
    return "=" * 56 + "\n== " + text + "\n" + "=" * 56 + "\n"


def epoch_ms(local, offset_minutes):
    """A local "YYYY-MM-DD HH:MM:SS" at offset_minutes from UTC, in ms."""
    t = calendar.timegm(tuple(int(x) for x in re.split(r"[- :]", local)) + (0, 0, 0))
    return (t - offset_minutes * 60) * 1000


def zone_of(args):
    """The zone a bug report of a device set to --tz ZONE holds (its
    persist.sys.timezone) and its offset in minutes, and args without
    --tz: a fixed offset is the IANA zone Etc/GMT-N (the sign turned, as
    POSIX has it); a name is itself, at the offset of June 2025."""
    args = list(args)
    if "--tz" not in args:
        return None, 0, args
    i = args.index("--tz")
    tz = args[i + 1]
    del args[i:i + 2]
    m = re.match(r"^([+-])(\d\d):(\d\d)$", tz)
    if m:
        minutes = (int(m.group(2)) * 60 + int(m.group(3))) * (1 if m.group(1) == "+" else -1)
        if minutes % 60 == 0:
            return ("Etc/GMT%+d" % (-minutes // 60) if minutes else "UTC"), minutes, args
        return None, minutes, args
    from datetime import datetime
    from zoneinfo import ZoneInfo
    off = datetime(2025, 6, 10, tzinfo=ZoneInfo(tz)).utcoffset()
    return tz, int(off.total_seconds() // 60), args


class BugReport:
    def __init__(self, taken, zone, offset_minutes, model="Pixel 8", release="14", sdk=34,
                 product="shiba", build_id="UQ1A.240205.004"):
        self.taken, self.zone, self.offset = taken, zone, offset_minutes
        self.model, self.release, self.sdk = model, release, sdk
        self.product, self.build_id = product, build_id
        self.fingerprint = "google/%s/%s:%s/%s/11269751:user/release-keys" % (
            product, product, release, build_id)
        self.logcat, self.events, self.exit_info = [], [], []
        self.tombstones, self.anrs = [], []  # (name, text)
        self.pb_twins = True                 # each tombstone has its .pb twin
        self.pb_tombstones = []              # (name, bytes): a .pb without a text
        self.extra_sections = []             # text placed before SYSTEM PROPERTIES
        self.extra_entries = []              # (name, bytes) put in the zip
        self.nowrtc = True                   # dumpsys alarm has its nowRTC line
        self.main_entry = True               # the zip has its main_entry.txt

    def add(self, kind, name, text):
        """A piece of evidence of `lastwords inspect`'s kind; False for a
        kind that a bug report does not hold."""
        if kind == "logcat":
            self.logcat += text.splitlines()
        elif kind == "event-log":
            self.events += text.splitlines()
        elif kind == "exit-info-dump":
            self.exit_info += text.splitlines()
        elif kind == "tombstone":
            self.tombstones.append(("tombstone_%02d" % len(self.tombstones), text))
        elif kind == "tombstone-pb":
            # a tombstone in protobuf alone (text: its bytes), numbered after the texts
            self.pb_tombstones.append(("tombstone_%02d.pb" % (len(self.tombstones) +
                                                             len(self.pb_tombstones)), text))
        elif kind == "anr-trace":
            base = os.path.basename(name)
            self.anrs.append((base if base.startswith("anr_") else "anr_" + base, text))
        else:
            return False
        return True

    def main_name(self):
        return "bugreport-%s-%s-%s.txt" % (self.product, self.build_id,
                                           re.sub(r"[ :]", "-", self.taken))

    def header(self):
        return (banner("dumpstate: " + self.taken) + "\n"
                "Build: %s\nBuild fingerprint: '%s'\nBootloader: unknown\nRadio: unknown\n"
                "Network: (unknown)\nAndroid SDK version: %d\nSDK extensions: R:%d S:%d\n"
                "Kernel: Linux version 5.15.110-android14-11 (build-user@build-host) #1 SMP PREEMPT\n"
                "Command line: console=ttynull androidboot.hardware=%s\n"
                "Bootconfig: androidboot.hardware = \"%s\"\n"
                "Uptime: up 3 days, 2 hours, 11 minutes\n"
                "Bugreport format version: 2.0\n"
                "Dumpstate info: id=1 pid=11002 dry_run=0 parallel_run=1 args=-S "
                "bugreport_mode=BUGREPORT_DEFAULT\n\n"
                % (self.build_id, self.fingerprint, self.sdk, self.sdk, self.sdk, self.product,
                   self.product))

    def activity_dump(self):
        """`dumpsys activity`, all of it: its sections, the exit-info among
        them, indented two spaces and apart by dashes as a full dump prints
        them."""
        parts = [
            ["ACTIVITY MANAGER SETTINGS (dumpsys activity settings) activity_manager_constants:",
             "  max_cached_processes=32", "  background_settle_time=60000"],
            ["ACTIVITY MANAGER LAST ANR (dumpsys activity lastanr)",
             "  <no ANR has occurred since boot>"],
        ]
        if self.exit_info:
            parts.append(self.exit_info)
        parts.append(["ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)",
                      "  All known processes:",
                      "  *PERS* UID 1000 ProcessRecord{8c4f2 1250:system/1000}"])
        out = []
        for i, lines in enumerate(parts):
            if i:
                out += ["", DASHES, ""]
            out += lines
        return "".join(("  " + l if l else l) + "\n" for l in out)

    def alarm_dump(self):
        local = self.taken + ".338"
        rtc = epoch_ms(self.taken, self.offset) + 338
        body = "Current Alarm Manager state:\n  Settings:\n    min_futurity=+5s0ms\n"
        if self.nowrtc:
            body += "  nowRTC=%d=%s nowELAPSED=268303411\n" % (rtc, local)
        return body + "  mLastTimeChangeClockTime=0=1970-01-01 00:00:00.000\n"

    def text(self):
        ending = self.taken
        out = [self.header()]
        out.append(section("DUMPSYS CRITICAL", "/system/bin/dumpsys",
                           service("CRITICAL cpuinfo", "Load: 4.01 / 3.97 / 3.91\n", ending)))
        out.append(section("SYSTEM LOG", LOGCAT_V_UID,
                           "\n".join(uid_line(l) for l in self.logcat), "1.204"))
        out.append(section("EVENT LOG", "logcat -b events -v threadtime -v printable -v uid -d *:v",
                           "\n".join(uid_line(l) for l in self.events), "0.310"))
        out.append(section("STATS LOG", "logcat -b stats -v threadtime -v printable -v uid -d *:v", ""))
        out.append(section("RADIO LOG", "logcat -b radio -v threadtime -v printable -v uid -d *:v",
                           "06-10 14:00:00.000 radio  1999  2010 D RILJ    : [UNSL]< UNSOL_NITZ_TIME_RECEIVED\n"))
        out.append(section("LOG STATISTICS", "logcat -b all -S",
                           "size/num main               system             crash\n"))
        out.append(section("UPTIME", "uptime", " 14:45:01 up 3 days,  2:11,  0 users,  load average: 4.01\n"))
        out.append(section("MEMORY INFO", "/proc/meminfo", "MemTotal:        7861348 kB\nMemFree:          312004 kB\n"))
        if self.anrs:
            name, trace = self.anrs[-1]
            out.append("------ VM TRACES AT LAST ANR (/data/anr/%s: %s) ------\n%s\n"
                       % (name, self.taken, trace.rstrip("\n") + "\n"))
        else:
            out.append("*** NO ANRs to dump in /data/anr/\n\n")
        out.append(section("ANR FILES", "ls -lt /data/anr/",
                           "".join("-rw------- 1 system system 4096 %s %s\n" % (self.taken[:16], n)
                                   for n, _ in self.anrs)))
        if not self.tombstones:
            out.append("*** NO TOMBSTONES to dump in /data/tombstones/\n\n")
        out.extend(self.extra_sections)
        props = ["[persist.sys.timezone]: [%s]" % self.zone] if self.zone else []
        props += ["[ro.build.fingerprint]: [%s]" % self.fingerprint,
                  "[ro.build.version.release]: [%s]" % self.release,
                  "[ro.build.version.sdk]: [%d]" % self.sdk,
                  "[ro.product.model]: [%s]" % self.model]
        out.append(section("SYSTEM PROPERTIES", "getprop", "\n".join(sorted(props))))
        out.append(banner("Android Framework Services"))
        services = (service("alarm", self.alarm_dump(), ending) +
                    service("activity", self.activity_dump(), ending) +
                    service("batterystats", "Battery History (0% used, 12KB used of 4096KB):\n", ending))
        out.append(section("DUMPSYS", "/system/bin/dumpsys", services, "12.881"))
        out.append(banner("Dropbox crashes"))
        out.append(section("DROPBOX SYSTEM SERVER CRASHES",
                           "/system/bin/dumpsys -T 30000 dropbox -p system_server_crash",
                           "Drop box contents: 0 entries\n"))
        out.append(banner("dumpstate: done (id 1)"))
        out.append(section("SYSTEM LOG", LOGCAT_V_UID + " -T " + self.taken + ".000",
                           "--------- beginning of main\n", "0.044"))
        return "".join(out)

    def entries(self):
        """(name, bytes) in dumpstate's order."""
        out = [("version.txt", b"2.0")]
        for name, text in self.anrs:
            out.append(("FS/data/anr/" + name, text.encode(errors="surrogateescape")))
        for name, text in self.tombstones:
            out.append(("FS/data/tombstones/" + name, text.encode(errors="surrogateescape")))
            if self.pb_twins:
                # its protobuf twin, as debuggerd writes both since Android 12
                out.append(("FS/data/tombstones/" + name + ".pb", twin_of_text(text)))
        for name, data in self.pb_tombstones:
            out.append(("FS/data/tombstones/" + name, data))
        out.append(("FS/proc/meminfo", b"MemTotal:        7861348 kB\n"))
        out.append(("proto/activity_CRITICAL.proto", b"\x0a\x02\x08\x01"))
        out.append(("dumpstate_board.txt", b"------ VENDOR PROPS ------\n"))
        out += self.extra_entries
        out.append((self.main_name(), self.text().encode(errors="surrogateescape")))
        if self.main_entry:
            out.append(("main_entry.txt", self.main_name().encode()))
        out.append(("dumpstate_log.txt", b"dumpstate: starting\n"))
        return out

    def zip_name(self):
        return self.main_name()[:-4] + ".zip"

    def write_zip(self, path, method=zipfile.ZIP_DEFLATED):
        with zipfile.ZipFile(path, "w", method) as z:
            for name, data in self.entries():
                z.writestr(name, data)
        return path

    def write_dir(self, path):
        for name, data in self.entries():
            full = os.path.join(path, name)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(data)
        return path


def kinds(lw, paths):
    """{path: kind} as `lastwords inspect --json` detects them."""
    p = subprocess.run([lw, "inspect", "--json"] + list(paths), capture_output=True, text=True)
    return {x["file"]: x["kind"] for x in json.loads(p.stdout or "[]")}


DATED = re.compile(r"\b(20\d\d-\d\d-\d\d)[ T]\d\d:\d\d:\d\d")


def from_bundle(lw, bundle, zone, offset_minutes, taken=None):
    """A bug report holding the evidence of a bundle's files, and the files
    it cannot hold (rings, the app's JSON), as (BugReport, [path]); a
    bugreport.json (fixtures/bugreports) is no evidence. Unless taken says
    when it was taken, it was at the end of the newest day its evidence
    names (2025-06-10 when none): after all of it, as a device's is."""
    files = sorted(os.path.join(bundle, f) for f in os.listdir(bundle)
                   if os.path.isfile(os.path.join(bundle, f)) and f != "bugreport.json")
    found = kinds(lw, files)
    texts = {}
    for f in files:
        with open(f, errors="surrogateescape") as fh:
            texts[f] = fh.read()
    if taken is None:
        days = [d for t in texts.values() for d in DATED.findall(t)] + ["2025-06-10"]
        taken = max(days) + " 23:59:00"
    br = BugReport(taken, zone, offset_minutes)
    rest = [f for f in files if not br.add(found.get(f, "unknown"), f, texts[f])]
    return br, rest


def from_fixture(folder):
    """The bug report of a fixtures/bugreports folder: the pieces/ its
    bugreport.json names, each of the kind it says, on the device it
    describes."""
    with open(os.path.join(folder, "bugreport.json")) as f:
        dev = json.load(f)
    br = BugReport(dev["taken"], dev["zone"], dev["offset_minutes"])
    for name, kind in sorted(dev["pieces"].items()):
        with open(os.path.join(folder, "pieces", name), errors="surrogateescape") as f:
            br.add(kind, name, f.read())
    return br


def write_fixture(folder):
    """(Re)write folder/bundle/bugreport, the bug report unzipped, from its
    pieces."""
    out = os.path.join(folder, "bundle", "bugreport")
    if os.path.isdir(out):
        shutil.rmtree(out)
    return from_fixture(folder).write_dir(out)


if __name__ == "__main__":
    # bugreports.py FOLDER...: rewrite each fixtures/bugreports folder's
    # unzipped bug report (tests/report-bugreport-dst.py checks it is so)
    for a in sys.argv[1:]:
        print(write_fixture(a))
