#!/usr/bin/env python3
"""What a version 3 ring's memory records say reaches the report (issue 22):
for each fixtures/scenarios/memory-* scenario of a version 3 ring, the
run's JSON `memory` gives the composition at the peak and at death, the
kinds that grew over the stage open at death, the budget's measure and its
largest, whether that passed the budget (an RSS made of file-backed pages
does not), the pressure records with their summary, and the lmkd kill's
figures on the timeline; the text report's memory line says the
composition and the measure in one line. A version 1 ring's memory keeps
the RSS measure with nothing of the composition known.

usage: report-memory-composition.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import sys

from helpers import check, fail, finish, lastwords, schema_errors, setup

MIB = 1024

# scenario: the members of memory (and its at_peak, at_death, pressure)
# that must be as given, and the text line's memory line.
EXPECT = {
    "memory-anon-growth-inference": {
        "memory": {"over_budget": True, "budget_measure": "own", "measured_peak_kb": 282 * MIB,
                   "measured_kinds": ["anon", "shmem", "swap"], "grew": ["anon", "swap"],
                   "grew_stage": "inference", "peak_kb": 360 * MIB},
        "at_peak": {"rss_kb": 360 * MIB, "anon_kb": 272 * MIB, "file_kb": 78 * MIB,
                    "shmem_kb": 2 * MIB, "swap_kb": 8 * MIB, "graphics_kb": None,
                    "memory_source": "status"},
        "pressure": {"records": [], "short_of_memory": False, "trim_level": None},
        "lmkd": {"rss_kb": 368640, "swap_kb": 8192, "dmabuf_kb": None},
        "text": "memory     peak 360.0 MiB in inference: anon 272, file 78, shmem 2, swap 8 MiB; "
                "budget 256.0 MiB against anon+shmem+swap, at most 282.0 MiB: over budget",
    },
    "memory-file-backed-rss": {
        "memory": {"over_budget": False, "budget_measure": "own", "measured_peak_kb": 74 * MIB,
                   "peak_kb": 400 * MIB, "budget_kb": 256 * MIB, "grew": ["anon", "file"]},
        "at_peak": {"rss_kb": 400 * MIB, "anon_kb": 70 * MIB, "file_kb": 326 * MIB,
                    "shmem_kb": 4 * MIB, "swap_kb": 0},
        "rules_not": ["ring-memory-pressure"],
        "text": "memory     peak 400.0 MiB in inference: anon 70, file 326, shmem 4, swap 0 MiB; "
                "budget 256.0 MiB against anon+shmem+swap, at most 74.0 MiB, rising",
    },
    "memory-graphics-delegate-prepare": {
        "memory": {"over_budget": True, "budget_measure": "own",
                   "measured_peak_kb": int(342.5 * MIB),
                   "measured_kinds": ["anon", "shmem", "swap", "graphics"],
                   "grew": ["graphics"], "grew_stage": "delegate_prepare"},
        "at_peak": {"graphics_kb": 180 * MIB, "anon_kb": int(40.5 * MIB)},
        "at_death": {"graphics_kb": 300 * MIB, "anon_kb": int(40.5 * MIB)},
        "lmkd": {"rss_kb": 102400, "anon_rss_kb": 51200, "swap_kb": 0, "dmabuf_kb": 307200,
                 "kill_reason": "low watermark is breached"},
        "text": "memory     peak 100.0 MiB in delegate_prepare: anon 40, file 48, shmem 2, swap 0, "
                "graphics 180 MiB; budget 256.0 MiB against anon+shmem+swap+graphics, "
                "at most 342.5 MiB: over budget",
    },
    "memory-pressure-before-lmkd": {
        "memory": {"over_budget": False, "budget_measure": "own", "grew": [],
                   "grew_stage": "inference"},
        "pressure": {"trim_level": 15, "trim_t_ms": 4000, "low_memory": True,
                     "lowest_avail_kb": 180 * MIB, "threshold_kb": 216 * MIB,
                     "psi_some_max": 18.5, "psi_not_readable_errno": None,
                     "short_of_memory": True, "short_t_ms": 3500},
        "pressure_records": [
            {"source": "psi", "t_ms": 3500, "time": "2025-06-10T12:00:03.500000Z",
             "psi_some": 18.5, "psi_full": 4.25, "psi_total_us": 2750000},
            {"source": "trim", "t_ms": 4000, "level": 15, "level_name": "RUNNING_CRITICAL"},
            {"source": "memory_info", "t_ms": 4200, "low_memory": True,
             "avail_kb": 180 * MIB, "threshold_kb": 216 * MIB},
        ],
        "rules_not": ["ring-memory-pressure"],
        "lmkd": {"rss_kb": 73728, "swap_kb": 1024,
                 "kill_reason": "device is low on swap (1024kB < 307200kB) and thrashing (63%)"},
        "text": "memory     peak 72.0 MiB in inference: anon 38, file 30, shmem 2, swap 0 MiB; "
                "budget 256.0 MiB against anon+shmem+swap, at most 41.0 MiB",
    },
}


def members(where, got, want):
    for k, v in want.items():
        if not isinstance(got, dict) or k not in got:
            fail("%s: no %s" % (where, k))
        elif got[k] != v:
            fail("%s: %s is %r, not %r" % (where, k, got[k], v))


def report(lw, d, fmt):
    args = open(os.path.join(d, "args")).read().split()
    p = lastwords(lw, ["report", "--format", fmt] + args + [os.path.join(d, "bundle")])
    check(p.returncode == 0, "%s: report --format %s exits %d: %s" % (d, fmt, p.returncode, p.stderr))
    return p.stdout


def main():
    lw, _ = setup(__doc__)
    for name, want in sorted(EXPECT.items()):
        d = os.path.join("fixtures", "scenarios", name)
        doc = json.loads(report(lw, d, "json"))
        for e in schema_errors("schemas/report.schema.json", doc):
            fail("%s: %s" % (name, e))
        run = doc["runs"][0]
        m = run["memory"]
        members(name + ": memory", m, want.get("memory", {}))
        members(name + ": memory.at_peak", m["at_peak"], want.get("at_peak", {}))
        members(name + ": memory.at_death", m["at_death"], want.get("at_death", {}))
        members(name + ": memory.pressure", m["pressure"], want.get("pressure", {}))
        recs = m["pressure"]["records"]
        if "pressure_records" in want:
            check(len(recs) == len(want["pressure_records"]),
                  "%s: %d pressure records, not %d" % (name, len(recs), len(want["pressure_records"])))
            for i, (g, w) in enumerate(zip(recs, want["pressure_records"])):
                members("%s: pressure record %d" % (name, i), g, w)
        for rule in want.get("rules_not", []):
            check(rule not in run["rules"], "%s: rule %s fired" % (name, rule))
        if "lmkd" in want:
            items = [e for e in run["timeline"]["evidence"] if e["kind"] == "lmkd_kill"]
            check(len(items) == 1, "%s: %d lmkd items on the timeline" % (name, len(items)))
            if items:
                members(name + ": the lmkd item", items[0], want["lmkd"])
        lines = [ln for ln in report(lw, d, "text").splitlines() if ln.startswith("memory ")]
        check(len(lines) == 1 and lines[0].startswith(want["text"]),
              "%s: the memory line is %r, not %r..." % (name, lines, want["text"]))
        # The page draws a diamond per pressure record and says in the
        # legend what they are (red: the system said it was short).
        page = report(lw, d, "html")
        diamonds = page.count('<g class="pressure">')
        check(diamonds == len(recs), "%s: %d pressure diamonds for %d records" % (name, diamonds, len(recs)))
        legend = page[page.find('<g class="legend"'):]
        legend = legend[:legend.find("</g>")]
        short = m["pressure"]["short_of_memory"]
        label = "pressure (short)" if short else "pressure"
        check((">%s</text>" % label in legend) == bool(recs),
              "%s: the legend %s %r" % (name, "lacks" if recs else "shows", label))
    # A version 1 ring: the RSS measure, no composition, no pressure.
    doc = json.loads(lastwords(lw, ["report", "--format", "json",
                                    "fixtures/rings/killed-inference.lwr"]).stdout)
    m = doc["runs"][0]["memory"]
    members("killed-inference.lwr: memory", m, {
        "budget_measure": "rss", "measured_peak_kb": m["peak_kb"], "measured_kinds": None,
        "grew": [], "over_budget": m["peak_kb"] > m["budget_kb"]})
    members("killed-inference.lwr: memory.at_peak", m["at_peak"], {
        "rss_kb": m["peak_kb"], "anon_kb": None, "file_kb": None, "shmem_kb": None,
        "swap_kb": None, "graphics_kb": None, "memory_source": None})
    members("killed-inference.lwr: memory.pressure", m["pressure"], {
        "records": [], "short_of_memory": False, "psi_some_max": None, "low_memory": None})
    return finish("%d version 3 scenarios and a version 1 ring: memory facts and text lines"
                  % len(EXPECT))


if __name__ == "__main__":
    sys.exit(main())
