#!/usr/bin/env python3
"""`lastwords inspect` describes a bug report (issue 11, part 2), zipped,
unzipped or its main text alone: the entries that hold no evidence (not
read), what the main text says of the device (dumpstate's time, the build
fingerprint, the SDK level, persist.sys.timezone, the zone's offset when
it was taken) and each of its sections at its line, with the kind read
from it or "holds no evidence"; then each piece as report reads it, named
ZIP:ENTRY or TEXT:SECTION; the crash buffer's and the last boot's logcat
sections are logcat, the kernel's log and logcat's statistics are not
read. Each piece goes through the parser of its
kind: its records are those of the same evidence inspected as a file of
its own (a section's line numbers are the main text's). Exit 0.

Before, a zip was "unknown kind" (exit 4), and a main text was read as
one exit-info dump.

usage: inspect-bugreport.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import tempfile

from bugreports import from_bundle, section, uid_line
from helpers import check, finish, lastwords, setup

SCENARIO = "fixtures/scenarios/ringless-no-exit-info/bundle"  # tombstone, ANR trace, logcat
EXIT_INFO = "fixtures/scenarios/lmk-confirmed/bundle/exit-info.txt"
CRASH = ("06-10 14:50:01.101  9188  9188 E AndroidRuntime: FATAL EXCEPTION: main")
LMKD = ("06-09 22:10:06.410   612   612 I lowmemorykiller: Kill 'com.example.vision:inference' "
        "(6111), uid 10231, oom_score_adj 200 to free 262144kB rss, 18432kB swap; reason: "
        "low watermark is breached")


def inspect_json(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    check(p.returncode == 0, "inspect --json %s: exit %d %r" % (path, p.returncode, p.stderr))
    try:
        return {x["file"]: x for x in json.loads(p.stdout)}
    except ValueError:
        return {}


def without_lines(records):
    return [{k: v for k, v in r.items() if k != "line"} for r in records]


def main():
    lw, root = setup(__doc__)
    bundle = os.path.join(root, SCENARIO)
    with tempfile.TemporaryDirectory() as tmp:
        br, _ = from_bundle(lw, bundle, "Europe/Berlin", 120)
        br.add("exit-info-dump", "exit-info.txt", open(os.path.join(root, EXIT_INFO)).read())
        # the crash buffer and the last boot's logcat, as older dumpstate
        # wrote them, are logcat too; the kernel's log is not read
        br.extra_sections = [
            section("CRASH LOG", "logcat -b crash -v threadtime -v printable -v uid -d *:v",
                    uid_line(CRASH)),
            section("LAST LOGCAT", "logcat -L -b all -v threadtime -v printable -v uid -d *:v",
                    uid_line(LMKD)),
            section("KERNEL LOG", "dmesg", "[12345.678901] lowmemorykiller: Kill 'x' (1)\n")]
        z = br.write_zip(os.path.join(tmp, br.zip_name()))
        d = br.write_dir(os.path.join(tmp, "unzipped"))
        text = br.main_name()
        lines = br.text().splitlines()

        # the zip, in text
        p = lastwords(lw, ["inspect", z])
        out = p.stdout
        check(p.returncode == 0, "inspect a zip: exit %d %r" % (p.returncode, p.stderr))
        check("%s: a bug report (zip), 5 entries that hold no evidence, not read\n" % z in out and
              "\n  FS/data/tombstones/tombstone_00.pb\n" not in out and "\n  version.txt\n" in out,
              "the zip's entries that are not read are listed: %r" % out[:400])
        check("  dumpstate 2025-06-10 23:59:00, format 2.0, build '%s', SDK 34, Pixel 8, zone "
              "Europe/Berlin (+120 min from UTC when taken)\n" % br.fingerprint in out,
              "the main text's device and zone")
        for title, kind in (("SYSTEM LOG", "logcat"), ("EVENT LOG", "event-log"),
                            ("VM TRACES AT LAST ANR", "anr-trace"),
                            ("DUMP OF SERVICE activity", "exit-info-dump"),
                            ("SYSTEM LOG #2", "logcat"), ("RADIO LOG", "holds no evidence, skipped"),
                            ("SYSTEM PROPERTIES", "holds no evidence, skipped"),
                            ("CRASH LOG", "logcat"), ("LAST LOGCAT", "logcat"),
                            ("KERNEL LOG", "holds no evidence, skipped"),
                            ("LOG STATISTICS", "holds no evidence, skipped")):
            at = [i + 1 for i, l in enumerate(lines)
                  if l.startswith("------ %s (" % title.split(" #")[0]) or
                  l == "DUMP OF SERVICE %s:" % title[16:]]
            at = at[1] if title.endswith("#2") else at[0] if at else 0
            check("    line %d: %s: %s\n" % (at, title, kind) in out,
                  "the section %s, at line %d, is listed as %s" % (title, at, kind))
        for piece, kind in (("FS/data/tombstones/tombstone_00", "tombstone, 1 record"),
                            ("FS/data/tombstones/tombstone_00.pb", "tombstone, 1 record"),
                            ("FS/data/anr/anr_2025-06-10-14-40-21-118.txt", "anr-trace, 1 record"),
                            (text + ":SYSTEM LOG", "logcat, 2 records"),
                            (text + ":DUMP OF SERVICE activity", "exit-info-dump, 1 record"),
                            (text + ":LAST LOGCAT", "logcat, 1 record")):
            check("%s:%s: %s," % (z, piece, kind) in out, "the piece %s: %s" % (piece, kind))

        # the same in JSON, and each piece as its own file would be
        got = inspect_json(lw, z)
        check(got.get(z, {}).get("kind") == "zip" and len(got[z].get("not_read", [])) == 5,
              "the zip's object: %s" % got.get(z))
        info = got.get("%s:%s" % (z, text), {}).get("bugreport", {})
        check(info.get("taken") == "2025-06-10 23:59:00" and info.get("sdk") == 34 and
              info.get("fingerprint") == br.fingerprint and info.get("zone") == "Europe/Berlin" and
              info.get("offset_minutes") == 120 and info.get("pieces") == 7,
              "the main text's account: %s" % {k: v for k, v in info.items() if k != "section_list"})
        check({"title": "DUMP OF SERVICE activity", "line": lines.index("DUMP OF SERVICE activity:") + 1,
               "kind": "exit-info-dump"} in info.get("section_list", []),
              "its sections, with their line and kind")
        for entry, alone in (("FS/data/tombstones/tombstone_00", "tombstone_07.txt"),
                             ("FS/data/anr/anr_2025-06-10-14-40-21-118.txt",
                              "anr_2025-06-10-14-40-21-118.txt")):
            one = inspect_json(lw, os.path.join(bundle, alone))
            want = next(iter(one.values()), {}).get("records")
            check(want and got.get("%s:%s" % (z, entry), {}).get("records") == want,
                  "%s: the records of %s inspected alone" % (entry, alone))
        # the protobuf twin: the text's crash, every field the text gives
        pbrec = got.get("%s:FS/data/tombstones/tombstone_00.pb" % z, {}).get("records") or [{}]
        txrec = got.get("%s:FS/data/tombstones/tombstone_00" % z, {}).get("records") or [{}]
        check(pbrec[0].get("protobuf") is True and txrec[0].get("frames") and
              all(pbrec[0].get(k) == txrec[0].get(k) for k in
                  ("pid", "tid", "signo", "code_name", "fault_addr", "timestamp", "process",
                   "thread", "frames", "threads")),
              "the .pb entry reads as its text: %r" % pbrec[0])
        one = inspect_json(lw, os.path.join(root, EXIT_INFO))
        want = next(iter(one.values()), {}).get("records")
        piece = got.get("%s:%s:DUMP OF SERVICE activity" % (z, text), {}).get("records")
        check(want and piece and without_lines(piece) == without_lines(want),
              "the exit record is the dump's, read alone: %s" % piece)
        rec = [i for i, l in enumerate(lines) if "pid=7311" in l]  # its header's line
        check(piece and rec and piece[0]["line"] == rec[0],
              "the exit record's line is the main text's (%s): %s" % (rec, piece and piece[0]["line"]))

        # unzipped, and its main text alone
        p = lastwords(lw, ["inspect", d])
        check(p.returncode == 0 and
              "%s: a bug report (unzipped), 5 entries that hold no evidence, not read" % d in p.stdout and
              "%s/FS/data/tombstones/tombstone_00.pb: tombstone, 1 record" % d in p.stdout and
              "%s/FS/data/tombstones/tombstone_00: tombstone, 1 record" % d in p.stdout and
              "%s/%s:SYSTEM LOG: logcat, 2 records" % (d, text) in p.stdout and
              "\n  FS/proc/\n" in p.stdout,
              "inspect an unzipped bug report: exit %d %r" % (p.returncode, p.stdout[:300]))
        p = lastwords(lw, ["inspect", os.path.join(d, text)])
        check(p.returncode == 0 and
              "%s/%s: bugreport, 0 records, %d lines\n" % (d, text, len(lines)) in p.stdout and
              "%s/%s:DUMP OF SERVICE activity: exit-info-dump, 1 record" % (d, text) in p.stdout and
              "a bug report (" not in p.stdout,
              "inspect a main text alone: exit %d %r" % (p.returncode, p.stdout[:300]))
    return finish("inspect describes a bug report")


if __name__ == "__main__":
    raise SystemExit(main())
