#!/usr/bin/env python3
"""A bug report is one input (issue 11, part 2): the evidence of every
report scenario (fixtures/scenarios/*/bundle), put into an `adb bugreport`
as a device writes one (tests/bugreports.py: the exit-info in the activity
service's dump, logcat and the event log in their sections, tombstones and
ANR traces under FS/data/), gives the same verdicts as the same files given
separately, as a zip and unzipped, each beside the rings and the app's JSON
that a bug report does not hold (a bundle with rings plus a bug report),
and alone (its main text). The device's zone is the bug report's
persist.sys.timezone: without --tz, it gives the verdicts that the
scenario's --tz gives (source "bugreport"). The report's inputs name the
bug report and the section or entry each record came from, at the line of
the main text. --fail-on fails on the ring-less deaths of a bug report.
The same bug report twice is read once.

Before the bug report was read, a zip was "unknown kind" (exit 4) and no
run joined its evidence.

usage: report-bugreport.py LASTWORDS SOURCE_ROOT
"""
import os
import shutil
import tempfile

from bugreports import from_bundle, zone_of
from helpers import check, fail, finish, lastwords, report_json, setup


def verdicts(rep, exit_status):
    """What the verdicts are: each run's key and judgement, the records
    that joined none, the exit status."""
    runs = sorted((r["process"], r["pid"], r["ring"], r["classification"], r["evidence_level"],
                   tuple(r["rules"]), tuple(a["action"] for a in r["recovery"]["actions"]),
                   len(r["exit_records"]), r["contradiction"] is not None) for r in rep["runs"])
    unmatched = sorted((u["pid"], u["process"], u["why"]) for u in rep["unmatched_exit_records"])
    return runs, unmatched, exit_status


def report(lw, args, paths):
    """(verdicts, the report) of `report --format json ARGS PATHS`, any exit."""
    import json
    p = lastwords(lw, ["report", "--format", "json"] + args + paths)
    try:
        rep = json.loads(p.stdout)
    except ValueError:
        fail("report %s: no JSON (exit %d): %r" % (" ".join(args + paths), p.returncode, p.stderr))
        return None, None
    return verdicts(rep, p.returncode), rep


def scenario_args(d):
    path = os.path.join(d, "args")
    return open(path).read().split() if os.path.exists(path) else []


def same(name, what, want, got):
    if not check(got == want, "%s, %s: the verdicts differ from the files given apart" % (name, what)):
        print("  want %s\n  got  %s" % (want, got))


def check_sources(name, rep, zip_path, text_name):
    """Each record names the bug report's section or entry, at the main
    text's own line."""
    for r in rep["runs"]:
        for x in r["exit_records"]:
            if not x["file"].startswith(zip_path):
                continue  # the app's JSON, beside the bug report
            check(x["file"] == "%s:%s:DUMP OF SERVICE activity" % (zip_path, text_name),
                  "%s: pid %d's exit record names the activity service's dump: %s"
                  % (name, r["pid"], x["file"]))
            check(x["line"] > 60, "%s: its line (%d) is the main text's" % (name, x["line"]))


def one(lw, name, d, tmp):
    args = scenario_args(d)
    bundle = os.path.join(d, "bundle")
    want, _ = report(lw, args, [bundle])
    if want is None:
        return
    zone, offset, bare = zone_of(args)
    br, rest = from_bundle(lw, bundle, zone, offset)
    br.nowrtc = "--tz" in args  # a device of no known zone: its offset is not said either
    out = os.path.join(tmp, name)
    os.makedirs(out)
    for f in rest:
        shutil.copy(f, out)
    zip_path = br.write_zip(os.path.join(out, br.zip_name()))
    got, rep = report(lw, args, [out])
    if got is None:
        return
    same(name, "zipped beside the rings", want, got)
    if br.exit_info:
        check_sources(name, rep, zip_path, br.main_name())
    if zone:
        # the zone is the bug report's own
        got, rep = report(lw, bare, [out])
        same(name, "zipped, without --tz (%s from the bug report)" % zone, want, got)
        if rep and check(rep["timezone"]["source"] == "bugreport",
                         "%s: the zone's source is the bug report: %s" % (name, rep["timezone"])):
            # "UTC" is read as the fixed offset +00:00, which has no name
            check(rep["timezone"]["name"] == (None if zone == "UTC" else zone),
                  "%s: its name: %s" % (name, rep["timezone"]))
    os.remove(zip_path)
    br.write_dir(os.path.join(out, "bugreport"))
    got, _ = report(lw, args, [out])
    if got is not None:
        same(name, "unzipped beside the rings", want, got)
    if not rest:
        # the main text alone is the bug report, when it holds everything
        if not br.tombstones and not br.anrs:
            got, _ = report(lw, args, [os.path.join(out, "bugreport", br.main_name())])
            if got is not None:
                same(name, "its main text alone", want, got)
        got, _ = report(lw, args, [os.path.join(out, "bugreport")])
        if got is not None:
            same(name, "unzipped, given as the input", want, got)


def fail_on(lw, root, tmp):
    """--fail-on fails on a bug report's ring-less deaths (exit 3), and
    passes when no death is of that class; the report is schema-valid."""
    zone, offset, _ = zone_of(["--tz", "+02:00"])
    br, rest = from_bundle(lw, os.path.join(root, "fixtures/scenarios/ringless-low-memory/bundle"),
                           zone, offset)
    check(not rest, "ringless-low-memory fits a bug report")
    z = br.write_zip(os.path.join(tmp, br.zip_name()))
    rep, inputs = report_json(lw, [z])
    if rep:
        check(any(r["ring"] == "none" and r["classification"] == "low_memory" for r in rep["runs"]),
              "a ring-less low_memory death: %s" % [(r["pid"], r["classification"]) for r in rep["runs"]])
        check(inputs.get(z, {}).get("kind") == "zip", "the zip is an input of kind zip: %s" % inputs.get(z))
        check(rep.get("bugreports") and rep["bugreports"][0]["file"] == z and
              rep["bugreports"][0]["zone"] == zone and rep["bugreports"][0]["sdk"] == 34,
              "the report names the bug report, its SDK and zone: %s" % rep.get("bugreports"))
    p = lastwords(lw, ["report", "--fail-on", "low_memory", z])
    check(p.returncode == 3, "--fail-on low_memory fails on it: exit %d %r" % (p.returncode, p.stderr))
    p = lastwords(lw, ["report", "--fail-on", "native_crash", z])
    check(p.returncode == 0, "--fail-on native_crash passes: exit %d" % p.returncode)
    p = lastwords(lw, ["report", z])
    check(p.returncode == 0 and "bug report '%s': dumpstate 2025-06-10 23:59:00" % z in p.stdout and
          "local times were read in %s, from the bug report's persist.sys.timezone" % zone in p.stdout,
          "the text names the bug report and where the zone came from: %r" % p.stdout[-600:])


def copies(lw, root, tmp):
    """The same bug report twice (two copies of one zip, or it zipped and
    unzipped) is read once: the second's main text and entries are copies,
    left out, and the verdicts are those of one."""
    zone, offset, _ = zone_of(["--tz", "+02:00"])
    br, _ = from_bundle(lw, os.path.join(root, "fixtures/scenarios/ringless-native-crash/bundle"),
                        zone, offset)
    d = os.path.join(tmp, "copies")
    os.makedirs(d)
    one = br.write_zip(os.path.join(d, "a.zip"))
    shutil.copy(one, os.path.join(d, "b.zip"))
    br.write_dir(os.path.join(d, "c"))
    want, _ = report(lw, [], [one])
    got, rep = report(lw, [], [d])
    if not want or not got:
        return
    same("ringless-native-crash", "three copies of its bug report", want, got)
    left = {i["file"]: i.get("duplicate_of") for i in rep["inputs"] if i.get("duplicate_of")}
    for copy in ("b.zip:" + br.main_name(), "b.zip:FS/data/tombstones/tombstone_00",
                 "c/" + br.main_name(), "c/FS/data/tombstones/tombstone_00"):
        check(os.path.join(d, copy) in left, "%s is left out as a copy: %s" % (copy, sorted(left)))
    check(not any(":SYSTEM LOG" in i["file"] and i["file"].startswith(os.path.join(d, "b.zip"))
                  for i in rep["inputs"]), "the copy's sections are not inputs")


def main():
    lw, root = setup(__doc__)
    scenarios = os.path.join(root, "fixtures", "scenarios")
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in sorted(os.listdir(scenarios)):
            d = os.path.join(scenarios, name)
            if os.path.isdir(os.path.join(d, "bundle")):
                one(lw, name, d, tmp)
                n += 1
        fail_on(lw, root, tmp)
        copies(lw, root, tmp)
    return finish("%d scenarios as bug reports" % n)


if __name__ == "__main__":
    raise SystemExit(main())
