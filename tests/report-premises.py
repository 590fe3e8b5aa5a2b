#!/usr/bin/env python3
"""No verdict contradicts its own facts (DESIGN.md, "Memory and blame":
every action's stated premise must be true of its run; issue 23, part 2).

`lastwords report --format json` runs on every scenario of
fixtures/scenarios (with its args, each of its ring_forms) and on every
other bundle of fixtures/ that a report reads (the demo, the hand-written
ring, the history's and the bug reports' bundles, each ring of
fixtures/rings and fixtures/rings-json, the evidence corpus); each folder
of fixtures/ is either read here or named in NOT_READ with why. Each run's
verdict is then held against the table PREMISES: a row names what it
looks at (an action, a rule, a phrase of an action's why) and what must
then be true of the run's facts (its class, level, memory, sessions,
marks). A row that finds a contradiction names the input, the run and
the row. The rows:

- a "peak fits the budget" or "back under budget" action only when the
  peak passed the budget (memory.over_budget); "stayed within its budget"
  only when it did not;
- switch-overlap, and the memory steps (stop_new_inference,
  reduce_concurrency), only on a memory death: low_memory, or a crash with
  the alloc-failed rule's memory evidence;
- isolate_candidate names the candidate of blamed_session, and only it
  (with its session when one is blamed); no candidate is isolated or
  replaced when several sessions are plausible and none is blamed, and an
  action tells them apart (unless the switch's overlap is the account);
- isolate_delegate names the ring's last delegate mark (the timeline's
  marks), and no other delegate;
- "the peak was in STAGE" only when memory.peak_stage is STAGE, "graphics
  memory grew while it was prepared" only when graphics grew in
  delegate_prepare, "it died in STAGE" only when STAGE was open;
- on an unconfirmed verdict with no contradiction, only preserve_evidence
  and collect_more_evidence;
- blamed_session is one of its plausible sessions, and names a session
  the run has; of several sessions, the one blamed had a stage open at
  death or, for a memory death, held the peak while resident.

usage: report-premises.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail.
"""
import glob
import json
import os
import re
import sys

from helpers import fail, failures, lastwords, setup, vocab
from scenarios import read_scenario, scenario_names

# The folders of fixtures/ that no report reads, and why.
NOT_READ = {
    "bad": "rings a reader refuses (tests/analyzer-corruption.c)",
    "check": "expectations for `lastwords check`, not inputs",
    "stats": "the statistics table of tests/history-stats.c, not inputs",
    "corpus-expect": "expected records of the evidence parsers",
    "expected": "expected outputs of dump and verify",
    "r8": "R8 mappings and the obfuscated crashes they retrace, read with --mapping "
          "(tests/r8-mapping.py)",
    "tombstone-pb": "protobuf tombstones with their protoc text sources (tests/tombstone-proto.py)",
}

DIGEST = re.compile(r"\b[0-9a-f]{16}\b")
MEMORY_STEPS = {"stop_new_inference", "reduce_concurrency"}


def acts(r):
    return r.get("recovery", {}).get("actions", [])


def whys(r, action=None):
    return [a.get("why") or "" for a in acts(r) if action is None or a.get("action") == action]


def names(r):
    return [a.get("action") for a in acts(r)]


def memory_death(r):
    return r.get("classification") == "low_memory" or "alloc-failed" in r.get("rules", [])


def memory(r):
    return r.get("memory") or {}


def last_delegate(r):
    marks = [m for m in ((r.get("timeline") or {}).get("marks") or []) if m.get("mark") == "delegate"]
    return marks[-1].get("detail") if marks else None


def blamed(r):
    return r.get("blamed_session") or {}


def several(r):
    b = blamed(r)
    return b.get("id") is None and len(b.get("plausible") or []) > 1


# Each row: (what it checks, the premise's test: run -> None when it holds,
# else what contradicts it).
def peak_fits(r):
    if any("peak fits the budget" in w or "back under budget" in w for w in whys(r)) \
            and memory(r).get("over_budget") is not True:
        return "an action says the peak passed the budget, and memory.over_budget is %r" \
            % memory(r).get("over_budget")


def within_budget(r):
    if any("stayed within its budget" in w for w in whys(r)) and \
            (memory(r).get("over_budget") is not False or not memory(r).get("budget_kb")):
        return "an action says it stayed within its budget, and memory is %r" % memory(r)


def switch_overlap(r):
    if "switch-overlap" in r.get("rules", []) and not memory_death(r):
        return "switch-overlap on a %s death" % r.get("classification")


def memory_steps(r):
    # A step against memory says so (its budget, memory back under it); the
    # Binder trap's stop_new_inference is against a payload's size instead.
    steps = {a for a in MEMORY_STEPS for w in whys(r, a)
             if a == "reduce_concurrency" or re.search(r"\bbudget\b|\bmemory is\b", w)}
    if steps and not memory_death(r):
        return "memory steps %s on a %s death" % (sorted(steps), r.get("classification"))


def isolate_candidate(r):
    b = blamed(r)
    for w in whys(r, "isolate_candidate"):
        if not b.get("candidate"):
            return "isolate_candidate (%r) with no candidate blamed (%r)" % (w, b)
        if set(DIGEST.findall(w)) != {b["candidate"]}:
            return "isolate_candidate names %s, blamed_session's candidate is %s" \
                % (DIGEST.findall(w), b["candidate"])
        if b.get("id") is not None and ("session %d (%s)" % (b["id"], b["candidate"])) not in w:
            return "isolate_candidate does not name session %d (%r)" % (b["id"], w)


def no_one_blamed(r):
    if several(r) and {"isolate_candidate", "revert_to_stable"} & set(names(r)):
        return "sessions %s are each plausible, yet %s" % (blamed(r).get("plausible"), names(r))
    if several(r) and "collect_more_evidence" not in names(r) and \
            "switch-overlap" not in r.get("rules", []):
        return "sessions %s are each plausible, and no action tells them apart" \
            % blamed(r).get("plausible")


def all_delegates(r):
    return {m.get("detail") for m in ((r.get("timeline") or {}).get("marks") or [])
            if m.get("mark") == "delegate"}


def isolate_delegate(r, vocab_delegates):
    d = last_delegate(r)
    for w in whys(r, "isolate_delegate"):
        named = [x for x in vocab_delegates if re.search(r"\b%s delegate\b" % re.escape(x), w)]
        # "Do not prepare X again" isolates the last delegate; "release X
        # when its prepare fails, before the fallback" the failed one, an
        # earlier mark.
        release = w.startswith("release ")
        if d and (len(named) != 1 or (named[0] != d and not (release and named[0] in
                                                               all_delegates(r)))):
            return "isolate_delegate names %s, the ring's last delegate mark is %s (%r)" % (named, d, w)
        if d in ("cpu", "xnnpack") and not release and "CPU path" in w:
            return "isolate_delegate of the CPU path %s advises the CPU path (%r)" % (d, w)
        if not d and named:
            return "isolate_delegate names %s, and the ring has no delegate mark" % named
        if re.search(r"\bfor [0-9a-f]{16}\b", w) and blamed(r).get("id") is not None:
            return "isolate_delegate names a candidate without its session (%r)" % w


def peak_stage(r):
    for w in whys(r):
        m = re.search(r"the peak was in (its prepare|[a-z_]+)", w)
        st = m and ("delegate_prepare" if m.group(1) == "its prepare" else m.group(1))
        if st and memory(r).get("peak_stage") != st:
            return "%r, and memory.peak_stage is %r" % (w, memory(r).get("peak_stage"))
        if "graphics memory grew while it was prepared" in w and not (
                "graphics" in (memory(r).get("grew") or []) and
                memory(r).get("grew_stage") == "delegate_prepare"):
            return "%r, and graphics did not grow in delegate_prepare (%r, %r)" \
                % (w, memory(r).get("grew"), memory(r).get("grew_stage"))


def died_in(r):
    for w in whys(r, "stop_prewarm"):
        m = re.search(r"it died in ([a-z_]+)", w)
        if m and r.get("open_stage") != m.group(1):
            return "%r, and the open stage is %r" % (w, r.get("open_stage"))


def unconfirmed(r):
    if r.get("evidence_level") == "unconfirmed" and r.get("contradiction") is None and \
            set(names(r)) - {"preserve_evidence", "collect_more_evidence"}:
        return "unconfirmed, yet %s" % names(r)


def blame_shape(r):
    b = blamed(r)
    if not b:
        return "no blamed_session"
    ids = [s.get("id") for s in r.get("sessions", [])]
    if b.get("id") is not None and (b["id"] not in (b.get("plausible") or []) or b["id"] not in ids):
        return "blamed session %r is not among its plausible %r or the run's sessions %r" \
            % (b["id"], b.get("plausible"), ids)
    if b.get("id") is not None:
        s = [x for x in r["sessions"] if x.get("id") == b["id"]][0]
        if s.get("candidate") != b.get("candidate") and len(ids) > 1:
            return "blamed session %d's candidate is %r, blamed_session says %r" \
                % (b["id"], s.get("candidate"), b.get("candidate"))


def blamed_why(r):
    """A session blamed among several had a stage open at death, or, for a
    memory death, held the run's peak while resident: never merely the
    session opened last."""
    b = blamed(r)
    ses = [x for x in r.get("sessions", []) if x.get("id") == b.get("id")]
    if b.get("id") is None or len(r.get("sessions", [])) < 2 or not ses:
        return None
    s = ses[0]
    peak = memory_death(r) and s.get("state") == "open" and s.get("peak_kb") and \
        s.get("peak_kb") == memory(r).get("peak_kb")
    if not s.get("open_stages") and not peak:
        return "blamed session %d had no stage open at death%s" % (
            b["id"], " and did not hold the peak" if memory_death(r) else "")


PREMISES = [
    ("peak-fits-budget", peak_fits),
    ("within-budget", within_budget),
    ("switch-overlap-memory", switch_overlap),
    ("memory-steps-memory", memory_steps),
    ("isolate-candidate-blamed", isolate_candidate),
    ("several-plausible", no_one_blamed),
    ("isolate-delegate-mark", None),  # needs the delegates' names: see check_run()
    ("peak-stage", peak_stage),
    ("died-in-stage", died_in),
    ("unconfirmed-only-evidence", unconfirmed),
    ("blamed-session-shape", blame_shape),
    ("blamed-open-or-peak", blamed_why),
]


def check_run(where, r, delegates, fired):
    who = "%s: %s pid %s" % (where, r.get("process"), r.get("pid"))
    for name, test in PREMISES:
        why = isolate_delegate(r, delegates) if test is None else test(r)
        if why:
            fired[name] = fired.get(name, 0) + 1
            fail("%s: %s: %s" % (who, name, why))


def inputs():
    """(where, args, inputs) of every report this test reads."""
    out = []
    for name in scenario_names():
        _, args, forms = read_scenario(name)
        for f in forms:
            out.append(("scenario " + name, args, f))
    read = {"scenarios"}
    out.append(("demo", ["--tz", "+01:00"], ["fixtures/demo"]))
    read.add("demo")
    for d in ("hand-written", "evidence"):
        out.append((d, [], ["fixtures/" + d]))
        read.add(d)
    for d in sorted(glob.glob("fixtures/history/bundles/*")) + sorted(glob.glob("fixtures/bugreports/*/bundle")):
        out.append((d, [], [d]))
    read.update({"history", "bugreports"})
    for d in ("rings", "rings-json"):
        for f in sorted(os.listdir("fixtures/" + d)):
            out.append((d + "/" + f, [], ["fixtures/%s/%s" % (d, f)]))
        read.add(d)
    for d in sorted(os.listdir("fixtures")):
        if os.path.isdir("fixtures/" + d) and d not in read and d not in NOT_READ:
            fail("fixtures/%s: neither read by this test nor named in NOT_READ" % d)
    return out


def main():
    lw, _ = setup("usage: report-premises.py LASTWORDS SOURCE_ROOT")
    delegates = vocab("LW_DELEGATES")
    if not delegates:
        fail("include/lastwords/vocab.h: no LW_DELEGATES names")
    fired = {}
    nruns = nreports = 0
    for where, args, ins in inputs():
        p = lastwords(lw, ["report", "--format", "json"] + args + ins)
        try:
            rep = json.loads(p.stdout)
        except ValueError:
            fail("%s: report exits %d with no JSON: %s" % (where, p.returncode, p.stderr.strip()[:300]))
            continue
        nreports += 1
        for r in rep.get("runs", []):
            nruns += 1
            check_run(where, r, delegates, fired)
    print("%d reports, %d runs, %d premises each: %s" % (
        nreports, nruns, len(PREMISES),
        "no contradiction" if not failures else
        ", ".join("%s %d" % kv for kv in sorted(fired.items()))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
