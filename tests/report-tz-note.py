#!/usr/bin/env python3
"""The report says local times were taken as UTC only when there were some.

Without --tz, a wall time with no zone (dumpsys, toString(), logcat, a
tombstone's or ANR trace's time without its offset) is read as UTC, and the
report notes it: the text's last "note:", the JSON's device note and
timezone.assumed, the HTML's "(assumed: pass --tz)". Rings, the app's
exit-info JSON (ms since the epoch) and times with their offset hold no
such time, so a report on them alone makes no such note; nor does one given
--tz.

usage: report-tz-note.py LASTWORDS SOURCE_ROOT
"""
import json
import sys

from helpers import check, finish, lastwords, setup

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


def main():
    lw, _ = setup("usage: report-tz-note.py LASTWORDS SOURCE_ROOT")
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
    return finish("%d reports note the UTC assumption only with local times" % len(CASES))


if __name__ == "__main__":
    sys.exit(main())
