#!/usr/bin/env python3
"""The report says local times were taken as UTC only when there were some.

Without --tz, a wall time with no zone (dumpsys, toString(), logcat, a
tombstone's or ANR trace's time without its offset) is read as UTC, and the
report notes it: the text's last "note:", the JSON's device note and
timezone.assumed, the HTML's "(assumed: pass --tz)". Rings, the app's
exit-info JSON (ms since the epoch) and times with their offset hold no
such time, so a report on them alone makes no such note; nor does one given
--tz.

Where the zone came from, in its order (issue 11, item 3): --tz (an
offset or an IANA name), the pull's manifest (persist.sys.timezone, else
its offset), the offset the newest tombstone or ANR trace writes after its
time, else none: the JSON's timezone.source and name, the text's last note
and the page say which. A --tz that is neither an offset nor a zone of the
system's tzdata is a usage error naming it, and so is one whose file is
not a regular file (a FIFO: refused at once, never waited on) or is a
damaged TZif file (the C library would read it as UTC and say nothing),
under a TZDIR of the test's own. A manifest's zone "localtime" (the
analysing machine's zone) is refused as a zone the system lacks is, and
said; one holding \u0000 ("Europe/Berlin\u0000x", which cJSON would cut
to Europe/Berlin) makes the manifest an input error naming its line and
member.

usage: report-tz-note.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, lastwords_within, setup

RING = "fixtures/rings/crashed-delegate.lwr"

# (inputs, extra args, whether the report must note the assumption)
CASES = [
    (["fixtures/scenarios/memory-limiter-reason-17/bundle"], [], False),  # ring + JSON export
    (["fixtures/scenarios/unknown-future-reason/bundle"], [], False),     # ring + JSON export
    ([RING], [], False),
    ([RING, "fixtures/evidence/exit-info/export-array.json"], [], False),
    ([RING, "fixtures/evidence/tombstone/plain-gpu-delegate.txt"], [], False),  # +0200
    ([RING, "fixtures/evidence/anr/classic-main-blocked.txt"], [], False),      # +0000
    (["fixtures/scenarios/java-crash/bundle"], [], True),                 # dumpsys, logcat
    (["fixtures/scenarios/java-crash/bundle"], ["--tz", "+02:00"], False),
    ([RING, "fixtures/evidence/exit-info/dump-compact.txt"], [], True),
    ([RING, "fixtures/evidence/exit-info/tostring-json.txt"], [], True),
    ([RING, "fixtures/evidence/logcat/lmkd-a12.txt"], [], True),
    ([RING, "fixtures/evidence/anr/classic-dalvik.txt"], [], True),       # no zone
]


# (inputs, extra args, timezone.source, timezone.name, the text's note)
SOURCES = [
    (["fixtures/scenarios/java-crash/bundle"], [], "none", None, "taken as UTC"),
    (["fixtures/scenarios/java-crash/bundle"], ["--tz", "+02:00"], "option", None,
     "read in +02:00, from --tz"),
    (["fixtures/scenarios/java-crash/bundle"], ["--tz", "Europe/Berlin"], "option", "Europe/Berlin",
     "read in Europe/Berlin, from --tz"),
    (["fixtures/scenarios/tz-dst-manifest/bundle"], [], "manifest", "Europe/Berlin",
     "read in Europe/Berlin, from the pull's manifest"),
    ([RING, "fixtures/evidence/tombstone/plain-gpu-delegate.txt",
      "fixtures/evidence/exit-info/dump-compact.txt"], [], "tombstone", None,
     "read in +02:00, from the newest tombstone's own time"),
    ([RING, "fixtures/evidence/anr/classic-main-blocked.txt",
      "fixtures/evidence/exit-info/dump-compact.txt"], [], "anr_trace", None,
     "read in +00:00, from the newest ANR trace's own time"),
]


def sources(lw):
    for inputs, args, source, name, note in SOURCES:
        what = " ".join(args + inputs)
        rep = json.loads(lastwords(lw, ["report", "--format", "json"] + args + inputs).stdout)
        check((rep["timezone"]["source"], rep["timezone"]["name"]) == (source, name),
              "report %s: the zone from %s (%s): %r" % (what, source, name, rep["timezone"]))
        text = lastwords(lw, ["report"] + args + inputs).stdout
        check(note in text.rsplit("note: ", 1)[-1], "report %s: the text says %r" % (what, note))
        html = lastwords(lw, ["report", "--format", "html"] + args + inputs).stdout
        check(", from %s" % source in html, "report --format html %s: the page names %s" % (what, source))
    # A manifest whose zone this system's tzdata lacks: its offset stands
    # in, and the report says so.
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "bundle")
        shutil.copytree("fixtures/scenarios/tz-dst-manifest/bundle", bundle)
        with open(os.path.join(bundle, "manifest.json")) as f:
            m = json.load(f)
        m["timezone"] = "Mars/Olympus"
        with open(os.path.join(bundle, "manifest.json"), "w") as f:
            json.dump(m, f)
        rep = json.loads(lastwords(lw, ["report", "--format", "json", bundle]).stdout)
        check(rep["timezone"]["name"] is None and rep["timezone"]["offset_minutes"] == 120 and
              any("'Mars/Olympus' is not in this system's tzdata" in n for n in rep["device"]["notes"]),
              "a zone the system lacks: the manifest's offset, said: %r %r"
              % (rep["timezone"], rep["device"]["notes"]))
    with tempfile.TemporaryDirectory() as d:
        bundle = os.path.join(d, "bundle")
        shutil.copytree("fixtures/scenarios/tz-dst-manifest/bundle", bundle)
        with open(os.path.join(bundle, "manifest.json")) as f:
            m = json.load(f)
        m["timezone"] = "localtime"
        with open(os.path.join(bundle, "manifest.json"), "w") as f:
            json.dump(m, f)
        rep = json.loads(lastwords(lw, ["report", "--format", "json", bundle]).stdout)
        check(rep["timezone"]["name"] is None and rep["timezone"]["offset_minutes"] == 120 and
              any("'localtime' is refused: 'localtime' is this machine's zone" in n
                  for n in rep["device"]["notes"]),
              "a manifest's zone localtime: refused, the offset stands in, said: %r %r"
              % (rep["timezone"], rep["device"]["notes"]))
        m["timezone"] = "Europe/Berlin\u0000x"
        with open(os.path.join(bundle, "manifest.json"), "w") as f:
            json.dump(m, f, indent=2)
        line = [i for i, t in enumerate(json.dumps(m, indent=2).split("\n"), 1)
                if '"timezone"' in t][0]
        p = lastwords(lw, ["report", "--format", "json", bundle])
        check(p.returncode == 4 and
              "manifest.json': line %d: " % line in p.stderr and
              'member "timezone": a \\u0000 escape' in p.stderr,
              "a manifest's zone with \\u0000: exit %d, %r" % (p.returncode, p.stderr))
    # zone files that are no zones, under a TZDIR of the test's own
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "Europe"))
        shutil.copy("/usr/share/zoneinfo/Europe/Berlin", os.path.join(d, "Europe", "Berlin"))
        os.mkfifo(os.path.join(d, "Fifo"))
        with open(os.path.join(d, "Garbage"), "wb") as f:
            f.write(b"TZif2" + bytes(15) + b"\xff" * 24 + b"garbage garbage")
        env = dict(os.environ, TZDIR=d)
        rep = json.loads(lastwords(lw, ["report", "--format", "json", "--tz", "Europe/Berlin",
                                        "fixtures/demo"], env=env).stdout)
        check(rep["timezone"]["name"] == "Europe/Berlin", "a TZDIR of its own: %r" % rep["timezone"])
        for name, why in (("Fifo", "is not a regular file"),
                          ("Garbage", "is a damaged TZif file: its counts need more bytes")):
            p = lastwords_within(lw, ["report", "--tz", name, "fixtures/demo"], 20, env=env)
            check(p is None or (p.returncode == 2 and not p.stdout and
                                "--tz '%s' refused: '%s/%s' %s" % (name, d, name, why) in p.stderr),
                  "--tz %s: %s" % (name, p and (p.returncode, p.stderr)))
    for bad in ("Europe/Atlantis", "CET+1", "../../etc/passwd", "localtime"):
        p = lastwords(lw, ["report", "--tz", bad, "fixtures/demo"])
        check(p.returncode == 2 and bad in p.stderr and "Europe/Berlin" in p.stderr,
              "--tz %s: a usage error naming it: %d %r" % (bad, p.returncode, p.stderr))


def main():
    lw, _ = setup("usage: report-tz-note.py LASTWORDS SOURCE_ROOT")
    sources(lw)
    for inputs, args, want in CASES:
        what = " ".join(args + inputs)
        text = lastwords(lw, ["report"] + args + inputs).stdout
        check(("taken as UTC" in text) == want,
              "report %s: the text %s the UTC note" % (what, "lacks" if want else "has"))
        p = lastwords(lw, ["report", "--format", "json"] + args + inputs)
        rep = json.loads(p.stdout)
        notes = [n for n in rep["device"]["notes"] if "taken as UTC" in n]
        check(bool(notes) == want, "report --format json %s: notes %r" % (what, rep["device"]["notes"]))
        check(rep["timezone"]["assumed"] == want,
              "report --format json %s: timezone.assumed is %r" % (what, rep["timezone"]["assumed"]))
        html = lastwords(lw, ["report", "--format", "html"] + args + inputs).stdout
        check(("(assumed: pass --tz)" in html) == want,
              "report --format html %s: the assumption %s" % (what, "unsaid" if want else "said"))
    return finish("%d reports note the UTC assumption only with local times, %d say where the "
                  "zone came from" % (len(CASES), len(SOURCES)))


if __name__ == "__main__":
    sys.exit(main())
