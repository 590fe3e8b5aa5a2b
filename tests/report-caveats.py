#!/usr/bin/env python3
"""A verdict says what it could not see (issue 23, part 6; lastwords(1),
report): the caveats of a run, and the rule that lowers its evidence level
by one step only where a caveat could hide the stage at death.

- For every binary ring of fixtures/rings/, `report` lists as lost exactly
  the tickets `verify` counts as missing (corrupt-slots.lwr: 4), and none
  where verify counts none; a ring whose head passed its slot count is
  listed as lapped, with the header telling the open stages; the ring's
  JSON lines (`dump --json`) give the same caveats.
- Variations of the scenarios that flip each rule: the lapped ring without
  the header's open stage (its ring line less "open_stage") hides the
  stage at death and is one step less sure; the records after the death
  with no stage record among them lower nothing; the same records lost
  before the stage open at death began lower nothing, after it they do;
  the app's export without its sdkInt gives the unknown platform caveat,
  and lowers nothing.

usage: report-caveats.py LASTWORDS SOURCE_ROOT
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

from helpers import check, fail, finish, lastwords, report_json, setup

LOST = re.compile(r"^(\d+) records? of the ring (?:is|are) lost")
LAPPED = re.compile(r"^the ring lapped: the (\d+) records before ticket (\d+)")


def caveats_of(rep):
    return [r.get("caveats", []) for r in rep["runs"]]


def binary_rings(lw, tmp):
    n = 0
    for ring in sorted(glob.glob("fixtures/rings/*.lwr")):
        v = lastwords(lw, ["verify", "--json", ring])
        scan = json.loads(v.stdout.splitlines()[0])
        rep, _ = report_json(lw, [ring])
        if not rep or not check(len(rep["runs"]) == 1, "%s: one run" % ring):
            continue
        cav = rep["runs"][0]["caveats"]
        lost = [int(m.group(1)) for m in (LOST.match(c) for c in cav) if m]
        if scan["missing"]:
            check(lost == [scan["missing"]],
                  "%s: verify counts %d missing, the report's caveats say %s: %s"
                  % (ring, scan["missing"], lost, cav))
        else:
            check(not lost, "%s: verify counts none missing, the report lists %s" % (ring, cav))
        base = scan["head"] - scan["slot_count"] if scan["head"] > scan["slot_count"] else 0
        lapped = [(int(m.group(1)), int(m.group(2))) for m in (LAPPED.match(c) for c in cav) if m]
        if base:
            check(lapped == [(base, base)] and any("the header tells the stages open" in c
                                                   for c in cav),
                  "%s: head %d past %d slots: lapped before ticket %d, the header telling the "
                  "stages: %s" % (ring, scan["head"], scan["slot_count"], base, cav))
        else:
            check(not lapped, "%s: not lapped, the report says %s" % (ring, cav))
        # The JSON lines of the same ring: the same caveats.
        d = lastwords(lw, ["dump", "--json", ring])
        path = os.path.join(tmp, os.path.basename(ring) + ".jsonl")
        with open(path, "w") as f:
            f.write(d.stdout)
        rj, _ = report_json(lw, [path])
        if rj:
            check(caveats_of(rj) == [cav], "%s: its JSON lines give the caveats %s, the file %s"
                  % (ring, caveats_of(rj), cav))
        n += 1
    check(n >= 8, "fixtures/rings holds the rings (%d read)" % n)
    return n


def scenario_copy(tmp, name):
    dst = tempfile.mkdtemp(prefix=name + ".", dir=tmp)
    os.rmdir(dst)
    shutil.copytree(os.path.join("fixtures/scenarios", name, "bundle"), dst)
    return dst


def edit_ring(bundle, fn):
    """Rewrite the bundle's one ring's JSON lines: fn(ring value, records)
    returns the new ones."""
    (path,) = glob.glob(os.path.join(bundle, "*.jsonl"))
    lines = [json.loads(l) for l in open(path)]
    ring, recs = fn(lines[0], lines[1:])
    with open(path, "w") as f:
        for x in [ring] + recs:
            f.write(json.dumps(x) + "\n")


def one_run(lw, bundle, what):
    rep, _ = report_json(lw, ["--tz", "+02:00", bundle])
    if not rep or not check(len(rep["runs"]) == 1, "%s: one run" % what):
        return None
    r = rep["runs"][0]
    print("%s: %s, %s; caveats %s" % (what, r["classification"], r["evidence_level"],
                                      r["caveats"]))
    return r


def has(r, text):
    return any(text in c for c in r["caveats"])


def variations(lw, tmp):
    # The lapped ring, its open stage told only by the records left.
    b = scenario_copy(tmp, "ring-lapped")
    edit_ring(b, lambda ring, recs: ({k: v for k, v in ring.items() if k != "open_stage"}, recs))
    r = one_run(lw, b, "ring-lapped without the header's open stage")
    if r:
        check(r["evidence_level"] == "supported" and has(r, "may be hidden"),
              "a lapped ring whose open stages only the records tell: supported, the stage "
              "at death may be hidden")

    # Records after the death, none a stage record: listed, confirmed.
    b = scenario_copy(tmp, "records-after-death")
    def no_late_stages(ring, recs):
        cut = 1749556801000 + 2000
        def late(x):
            return x["realtime_ns"] // 1000000 > cut if "realtime_ns" in x else \
                ring["start_real_ns"] // 1000000 + (x["t_mono_ns"] - ring["start_mono_ns"]) // \
                1000000 > cut
        kept = [x for x in recs if not (late(x) and x["type"].startswith("stage_"))]
        for i, x in enumerate(kept):
            x["ticket"] = i
        n = len(kept)
        return dict(ring, head=n, valid=n, never_written=ring["slot_count"] - n), kept
    edit_ring(b, no_late_stages)
    r = one_run(lw, b, "records-after-death, no stage record after it")
    if r:
        check(r["evidence_level"] == "confirmed" and has(r, "no stage record among them"),
              "records after the death without a stage record: listed, still confirmed")

    # The same lost record, before or after the begin of the stage open at death.
    for ticket, level in ((10, "supported"), (4, "confirmed")):
        b = scenario_copy(tmp, "lmk-confirmed")
        edit_ring(b, lambda ring, recs: (dict(ring, valid=11, torn=1, missing=1),
                                         [x for x in recs if x["ticket"] != ticket]))
        r = one_run(lw, b, "lmk-confirmed less ticket %d" % ticket)
        if r:
            check(r["evidence_level"] == level and has(r, "1 record of the ring is lost"),
                  "ticket %d lost: %s, expected %s" % (ticket, r["evidence_level"], level))

    # The app's export without its device's SDK level.
    b = scenario_copy(tmp, "platform-newer")
    p = os.path.join(b, "exit-info.json")
    aei = json.load(open(p))
    del aei["device"]["sdkInt"]
    json.dump(aei, open(p, "w"))
    r = one_run(lw, b, "platform-newer without sdkInt")
    if r:
        check(r["evidence_level"] == "confirmed" and has(r, "the platform version is unknown"),
              "no SDK level: the unknown platform caveat, still confirmed")
    aei["device"]["sdkInt"] = 34
    json.dump(aei, open(p, "w"))
    r = one_run(lw, b, "platform-newer at sdkInt 34")
    if r:
        check(not r["caveats"], "a known SDK level: no caveat (%s)" % r["caveats"])


def main():
    lw, _ = setup("usage: report-caveats.py LASTWORDS SOURCE_ROOT")
    with tempfile.TemporaryDirectory() as tmp:
        n = binary_rings(lw, tmp)
        variations(lw, tmp)
    return finish("report-caveats: %d rings as verify counts them, and the rule's variations" % n)


if __name__ == "__main__":
    sys.exit(main())
