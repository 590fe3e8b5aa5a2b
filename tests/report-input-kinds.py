#!/usr/bin/env python3
"""The report's inputs name what each file is.

A logcat that holds a tombstone (crash_dump's DEBUG lines) or
ApplicationExitInfo toString() lines is a logcat: its kind is "logcat" and
"holds" names the kind of report inside it, whose records are read besides
the logcat's lines. A plain tombstone, toString() lines inside the app's
JSON and every other file keep their own kind and have no "holds". The JSON
report validates against schemas/report.schema.json (when python3-jsonschema
is there), and the HTML report's inputs table says the same.

usage: report-input-kinds.py LASTWORDS SOURCE_ROOT
"""
import json
import sys

from helpers import check, fail, finish, lastwords, setup

# input -> (kind, holds)
WANT = {
    "fixtures/evidence/tombstone/logcat-threadtime.txt": ("logcat", "tombstone"),
    "fixtures/evidence/tombstone/logcat-brief-old.txt": ("logcat", "tombstone"),
    "fixtures/evidence/tombstone/pasted-tabs.txt": ("logcat", "tombstone"),
    "fixtures/evidence/tombstone/plain-gpu-delegate.txt": ("tombstone", None),
    "fixtures/evidence/exit-info/tostring-logcat.txt": ("logcat", "exit-info-tostring"),
    "fixtures/evidence/exit-info/tostring-json.txt": ("exit-info-tostring", None),
    "fixtures/evidence/logcat/lmkd-a12.txt": ("logcat", None),
    "fixtures/evidence/event-log/am-kill.txt": ("event-log", None),
    "fixtures/evidence/exit-info/dump-compact.txt": ("exit-info-dump", None),
    "fixtures/evidence/exit-info/export-array.json": ("exit-info-json", None),
    "fixtures/evidence/anr/classic-dalvik.txt": ("anr-trace", None),
    "fixtures/rings/crashed-delegate.lwr": ("ring", None),
}


def validator():
    try:
        import jsonschema
    except ImportError:
        return None
    with open("schemas/report.schema.json") as f:
        return jsonschema.Draft7Validator(json.load(f))


def main():
    lw, _ = setup("usage: report-input-kinds.py LASTWORDS SOURCE_ROOT")
    p = lastwords(lw, ["report", "--format", "json"] + list(WANT))
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        fail("report --format json: not JSON (exit %d): %s" % (p.returncode, p.stderr.strip()))
        return finish("input kinds")
    got = {x["file"]: (x.get("kind"), x.get("holds")) for x in rep.get("inputs", [])}
    for path, want in WANT.items():
        check(got.get(path) == want, "%s: kind and holds %r, expected %r" % (path, got.get(path), want))
    v = validator()
    if v:
        for e in v.iter_errors(rep):
            fail("report JSON against the schema: %s at %s" % (e.message, list(e.absolute_path)))
    h = lastwords(lw, ["report", "--format", "html"] + list(WANT)).stdout
    check("<td>fixtures/evidence/tombstone/logcat-threadtime.txt</td><td>logcat holding a tombstone</td>"
          in h, "the HTML inputs table names the logcat holding a tombstone")
    check("<td>fixtures/evidence/tombstone/plain-gpu-delegate.txt</td><td>tombstone</td>" in h,
          "the HTML inputs table names the plain tombstone")
    return finish("%d inputs named by kind%s" % (len(WANT), "" if v else " (schema not checked)"))


if __name__ == "__main__":
    sys.exit(main())
