#!/usr/bin/env python3
"""A ring given as the JSON lines of `lastwords dump --json` is the same run
as the binary ring: for every committed ring, the lines validate against
schemas/ring-events.schema.json, `inspect` reads the same records, the
same outcome and the same counts from both forms, the report (text, JSON
and HTML) is the same from both, and it gives the peak RSS that dump
gives. Hand-edited lines that break the
schema are refused with the line and the member.

usage: analyzer-run-json.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys
import tempfile

from helpers import fail, finish, lastwords, setup


def records(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    if p.returncode != 0:
        fail("inspect %s exits %d: %s" % (path, p.returncode, p.stderr))
        return None
    got = json.loads(p.stdout)[0]
    for r in got["records"]:
        r.pop("file")
    return got


def main():
    lw, _ = setup(__doc__)
    try:
        import jsonschema
        with open("schemas/ring-events.schema.json") as f:
            schema = json.load(f)
        jsonschema.Draft7Validator.check_schema(schema)
        validator = jsonschema.Draft7Validator(schema)
    except ImportError:
        validator = None
        fail("python3-jsonschema is not installed (.ci/install-deps --tests installs it)")
    rings = sorted("fixtures/rings/" + f for f in os.listdir("fixtures/rings"))
    with tempfile.TemporaryDirectory() as tmp:
        for ring in rings:
            lines = lastwords(lw, ["dump", "--json", ring]).stdout
            jl = os.path.join(tmp, os.path.basename(ring) + ".jsonl")
            with open(jl, "w") as f:
                f.write(lines)
            if validator:
                for i, line in enumerate(lines.splitlines()):
                    errs = sorted(validator.iter_errors(json.loads(line)), key=str)
                    if errs:
                        fail("%s line %d breaks the schema: %s" % (ring, i + 1, errs[0].message))
            a, b = records(lw, ring), records(lw, jl)
            if a is None or b is None:
                continue
            if b.get("kind") != "ring" or b.get("form") != "json-lines":
                fail("%s: JSON lines detected as %s/%s" % (ring, b.get("kind"), b.get("form")))
            if a["records"] != b["records"]:
                fail("%s: records differ between the binary ring and its JSON lines" % ring)
            ta = lastwords(lw, ["inspect", ring]).stdout.splitlines()
            tb = lastwords(lw, ["inspect", jl]).stdout.splitlines()
            if ta[0].split(": ", 1)[1] != tb[0].split(": ", 1)[1].replace("ring (JSON lines)", "ring"):
                fail("%s: summary differs: %r vs %r" % (ring, ta[0], tb[0]))
            if ta[1:] != tb[1:]:
                fail("%s: text records differ" % ring)
            # The same report, in every format, from either form.
            for fmt in ("text", "json", "html"):
                ra = lastwords(lw, ["report", "--format", fmt, ring])
                rb = lastwords(lw, ["report", "--format", fmt, jl])
                if (ra.returncode, ra.stdout.replace(ring, "RING")) != \
                        (rb.returncode, rb.stdout.replace(jl, "RING")):
                    fail("%s: report --format %s differs for its dump --json" % (ring, fmt))
            # One peak: dump's (the ring walk) is the report's (the run's
            # facts), from either form.
            peak = json.loads(lines.splitlines()[0])["peak_rss_kb"]
            for form in (ring, jl):
                p = lastwords(lw, ["report", "--format", "json", form])
                mem = json.loads(p.stdout)["runs"][0].get("memory") if p.stdout else None
                if not mem or mem["peak_kb"] != peak:
                    fail("%s: report peak %r, dump peak %d" % (form, mem, peak))

        # The committed JSON-lines rings are exactly what dump --json prints.
        for name in sorted(os.listdir("fixtures/rings-json")):
            want = open(os.path.join("fixtures/rings-json", name)).read()
            got = lastwords(lw, ["dump", "--json", "fixtures/rings/" + name.replace(".jsonl", ".lwr")]).stdout
            if got != want:
                fail("fixtures/rings-json/%s differs from dump --json of its ring" % name)

        # The schema must be able to refuse: a line with an unknown member.
        if validator:
            bad = json.loads(lastwords(lw, ["dump", "--json", rings[0]]).stdout.splitlines()[1])
            bad["prompt"] = "user text must never appear"
            if not list(validator.iter_errors(bad)):
                fail("the schema accepts a record with an unknown member")

        # Hand edits that break the form are refused with the line.
        src = lastwords(lw, ["dump", "--json", "fixtures/rings/killed-inference.lwr"]).stdout.splitlines()
        cases = {
            "no-ring-line": (src[1:], "line 1: expected the ring line first"),
            "tickets-out-of-order": ([src[0], src[3], src[2]] + src[4:],
                                     "line 3: expected tickets in increasing order"),
            "not-json": ([src[0], "{oops"], "line 2: malformed JSON at column 2: expected a "
                         "member name in double quotes, found 'o'"),
            "bad-candidate": ([src[0], src[1], src[3].replace('"candidate":"', '"candidate":"zz')],
                              'line 3: "candidate": expected a string matching ^[0-9a-f]{16}$ '
                              'or null'),
            "unknown-member": ([src[0], src[1].replace('"app_version"', '"x":1,"app_version"')],
                               'line 2: unknown member "x"'),
            "misspelt-stage": ([src[0], src[1], src[4].replace('"stage":"load"', '"stage":"laod"')],
                               'line 3: "stage": expected one of "none", "download", "load"'),
            "missing-identity": ([src[0].replace('"start_mono_ns":', '"x_start_mono_ns":')],
                                 'line 1: missing "start_mono_ns"'),
        }
        for name, (lines, want) in cases.items():
            path = os.path.join(tmp, name + ".jsonl")
            with open(path, "w") as f:
                f.write("\n".join(lines) + "\n")
            p = lastwords(lw, ["inspect", path])
            if name == "no-ring-line":
                # Without its ring line the file is no ring at all.
                ok = p.returncode == 4 and "unknown kind" in p.stderr
            else:
                ok = p.returncode == 4 and want in p.stderr
            if not ok:
                fail("%s: exit %d, stderr %r, expected %r" % (name, p.returncode, p.stderr, want))
    return finish("%d rings compared in both forms" % len(rings))


if __name__ == "__main__":
    sys.exit(main())
