#!/usr/bin/env python3
"""The verdicts of `lastwords report` on the scenario bundles of
fixtures/scenarios/ (one directory each: bundle/ holds what was pulled from
the device, expected.json the verdict that DESIGN.md and issue 4 call for,
and args any extra command-line arguments, such as --tz).

For each scenario: `lastwords check` of expected.json on the bundle
passes (the command teams use: schemas/expect.schema.json, lastwords(1);
per run, matched by process and pid in order, the verdict, rules, actions,
exit records, stage; the boot loops, the unmatched exit records, the exit
status; ring_forms and without_args); the JSON report validates against
schemas/report.schema.json; the text report exits the same and states each
run's verdict;
and the invariants of DESIGN.md hold on what the report says: nothing beyond
preserving and collecting evidence on an unconfirmed verdict unless a
contradiction is named, revert_to_stable only with a known stable
candidate, isolate_candidate only with a known candidate, only actions of
the vocabulary, only rules `lastwords rules` lists, and --fail-on gates on
exactly the verdicts the report gives; a ring-less run (ring none) has no
start, stage or candidate and no action that needs them, and says why no
ring has it; and no exit record is in two runs, or in a run and the
unmatched list: a death is never counted twice.

Scenarios where the report is known to be wrong are listed in KNOWN_FAILURES
with the fields that differ and why. A listed scenario that passes, or that
fails in other fields, fails the test, so the list stays honest.

usage: report-scenarios.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail (77 is never used: only the schema checks are
skipped when python3-jsonschema is missing).
"""
import json
import os
import sys
import time

from helpers import fail, failures, lastwords, setup, strip_fail_on, vocab
from scenarios import SCENARIOS, read_scenario, scenario_names

# scenario -> (fields expected to differ, why). Fields are named as the
# test names them: check (a line of `lastwords check`), json, schema, text,
# invariants.
KNOWN_FAILURES = {}

VOCAB_ACTIONS = []  # from include/lastwords/vocab.h, in main()

def load_validator(path):
    try:
        import jsonschema
    except ImportError:
        return None
    with open(path) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def check_schema_vocab():
    """The schema's enums are the vocabulary's lists (plus "unknown" for names
    a newer writer adds)."""
    with open("schemas/report.schema.json") as f:
        defs = json.load(f)["definitions"]
    for macro, key, extra in (("LW_STAGES", "stage", ["unknown"]),
                              ("LW_ERRORS", "error_class", ["unknown"]),
                              ("LW_ACTIONS", "action", []),
                              ("LW_EXIT_CLASSES", "exit_class", []),
                              ("LW_EVIDENCE_LEVELS", "evidence_level", [])):
        names = vocab(macro)
        if not names or defs[key]["enum"] != names + extra:
            fail("schemas/report.schema.json %s is %r; vocab.h %s gives %r"
                 % (key, defs[key]["enum"], macro, names + extra))


def check_expectation(lw, args, name, diffs):
    """`lastwords check` of the scenario's expected.json on its bundle, as a
    team would run it: every difference is one line of its output."""
    d = os.path.join(SCENARIOS, name)
    p = lastwords(lw, ["check"] + args + [os.path.join(d, "expected.json"), os.path.join(d, "bundle")])
    if p.returncode not in (0, 14) or (p.returncode == 14) != bool(p.stdout.strip()):
        diffs.append(("check", "exits %d: %s%s" % (p.returncode, p.stdout, p.stderr.strip())))
    for line in p.stdout.splitlines():
        diffs.append(("check", line))


def check_text(lw, args, inputs, rep, status, diffs):
    """The text report exits the same and states each run's verdict in its section."""
    p = lastwords(lw, ["report"] + args + inputs)
    if p.returncode != status:
        diffs.append(("text", "text exits %d, json %d" % (p.returncode, status)))
    sections = {}
    for block in ("\n" + p.stdout).split("\n== ")[1:]:
        head = block.split("\n", 1)[0].split()
        if len(head) >= 3 and head[1] == "pid":
            sections.setdefault((head[0], None if head[2] == "unknown" else int(head[2])),
                                []).append(block)
    seen = {}
    for r in rep.get("runs", []):
        key = (r.get("process"), r.get("pid"))
        n = seen.get(key, 0)
        seen[key] = n + 1
        blocks = sections.get(key, [])
        if n >= len(blocks):
            diffs.append(("text", "no section for %s pid %s" % key))
            continue
        if r.get("classification") is None:
            want = "verdict    none"
        else:
            want = "verdict    %s, %s" % (r["classification"], r["evidence_level"])
        if want not in blocks[n]:
            diffs.append(("text", "the section of %s pid %s does not say %r" % (key + (want,))))


# The rules that also run on a run with no verdict (classify.h, .finding).
FINDING_RULES = {"retry-without-release", "two-resident-sets", "unpaired-stage"}


def check_invariants(rep, rule_ids, diffs):
    for r in rep.get("runs", []):
        who = "%s pid %s" % (r.get("process"), r.get("pid"))
        acts = [a.get("action") for a in r.get("recovery", {}).get("actions", [])]
        for a in acts:
            if a not in VOCAB_ACTIONS:
                diffs.append(("invariants", "%s: action %r is not in the vocabulary" % (who, a)))
        if "revert_to_stable" in acts and not r.get("stable_candidate"):
            diffs.append(("invariants", "%s: revert_to_stable with no stable candidate" % who))
        if r.get("evidence_level") == "unconfirmed":
            if r.get("contradiction") is None:
                allowed = {"preserve_evidence", "collect_more_evidence"}
                if not set(acts) <= allowed:
                    diffs.append(("invariants", "%s: unconfirmed, yet %r" % (who, acts)))
            else:
                blamed = r.get("blamed_session") or {}
                cand = blamed.get("candidate") is not None
                several = blamed.get("id") is None and len(blamed.get("plausible", [])) > 1
                want = (["isolate_candidate"] if cand else []) + \
                    (["revert_to_stable"] if r.get("stable_candidate") and not several else []) + \
                    ["preserve_evidence"] + ([] if cand else ["collect_more_evidence"])
                if acts != want:
                    diffs.append(("invariants", "%s: contradiction, yet %r (expected %r)"
                                  % (who, acts, want)))
        if r.get("contradiction") is not None and r.get("evidence_level") != "unconfirmed":
            diffs.append(("invariants", "%s: a contradiction that is %s" % (who, r.get("evidence_level"))))
        for rule in r.get("rules", []):
            if rule not in rule_ids:
                diffs.append(("invariants", "%s: rule %r is not listed by `lastwords rules`" % (who, rule)))
        if r.get("classification") is None and (acts or set(r.get("rules", [])) - FINDING_RULES):
            diffs.append(("invariants", "%s: no verdict, yet rules other than findings, or "
                          "actions" % who))
        if "isolate_candidate" in acts and not r.get("candidate"):
            diffs.append(("invariants", "%s: isolate_candidate with no candidate known" % who))
        if r.get("ring") == "none":
            needs = {"isolate_candidate", "revert_to_stable", "isolate_delegate", "stop_prewarm"}
            if (r.get("start") is not None or r.get("candidate") is not None or r.get("stage_open")
                    or not r.get("no_ring") or r.get("run_id") is not None or set(acts) & needs):
                diffs.append(("invariants", "%s: a ring-less run with a start, stage, candidate or "
                              "an action that needs them, or no reason: %r" % (who, r)))
        elif r.get("no_ring") is not None:
            diffs.append(("invariants", "%s: a run with a ring says why it has none" % who))
    seen = {}
    records = [(x["file"], x["line"], "%s pid %s" % (r.get("process"), r.get("pid")))
               for r in rep.get("runs", []) for x in r.get("exit_records", [])]
    records += [(u["file"], u["line"], "unmatched") for u in rep.get("unmatched_exit_records", [])]
    for f, line, who in records:
        if (f, line) in seen:
            diffs.append(("invariants", "%s line %d is in %s and %s: one death twice"
                          % (f, line, seen[(f, line)], who)))
        seen[(f, line)] = who
    for loop in rep.get("boot_loops", []):
        for a in loop.get("actions", []):
            if a not in VOCAB_ACTIONS:
                diffs.append(("invariants", "boot loop: action %r is not in the vocabulary" % a))


def check_fail_on(lw, args, inputs, rep, diffs):
    """--fail-on gates on exactly the verdicts the JSON report gives (args
    without a --fail-on of their own); else the status is the usual one."""
    levels = {"confirmed": 1, "supported": 2, "unconfirmed": 3}
    base_status = lastwords(lw, ["report", "--format", "json"] + args + inputs).returncode
    runs = [r for r in rep.get("runs", []) if r.get("classification")]
    for spec in ("low_memory:confirmed", "low_memory:supported", "low_memory"):
        cls, _, level = spec.partition(":")
        hit = any(r["classification"] == cls and
                  (not level or levels[r["evidence_level"]] <= levels[level]) for r in runs)
        want = 3 if hit else base_status
        p = lastwords(lw, ["report", "--format", "json", "--fail-on", spec] + args + inputs)
        if p.returncode != want:
            diffs.append(("invariants", "--fail-on %s exits %d, expected %d" % (spec, p.returncode, want)))


def report(lw, args, inputs):
    p = lastwords(lw, ["report", "--format", "json"] + args + inputs)
    try:
        rep = json.loads(p.stdout)
    except ValueError as e:
        return None, p.returncode, "not JSON (%s): %s" % (e, p.stderr.strip())
    return rep, p.returncode, None


def scenario(lw, name, validator, rule_ids):
    exp, args, forms = read_scenario(name)
    diffs = []
    check_expectation(lw, args, name, diffs)
    for inputs in forms:
        rep, status, err = report(lw, args, inputs)
        if rep is None:
            diffs.append(("json", err))
            continue
        if validator is not None:
            for e in sorted(validator.iter_errors(rep), key=str)[:5]:
                diffs.append(("schema", "%s at /%s" % (e.message[:160], "/".join(map(str, e.path)))))
        check_text(lw, args, inputs, rep, status, diffs)
        check_invariants(rep, rule_ids, diffs)
        check_fail_on(lw, strip_fail_on(args), inputs, rep, diffs)
    return diffs


def check_rings(validator, names):
    """The scenario rings are valid dump --json lines."""
    if validator is None:
        return
    for name in names:
        b = os.path.join(SCENARIOS, name, "bundle")
        for fn in sorted(os.listdir(b)):
            if not fn.endswith(".jsonl"):
                continue
            with open(os.path.join(b, fn)) as f:
                for i, line in enumerate(f, 1):
                    for e in validator.iter_errors(json.loads(line)):
                        fail("%s/%s line %d: %s" % (b, fn, i, e.message[:160]))


def main():
    t0 = time.monotonic()
    lw, root = setup("usage: report-scenarios.py LASTWORDS SOURCE_ROOT")
    VOCAB_ACTIONS.extend(vocab("LW_ACTIONS"))
    check_schema_vocab()
    validator = load_validator("schemas/report.schema.json")
    ring_validator = load_validator("schemas/ring-events.schema.json")
    if validator is None:
        fail("python3-jsonschema is not installed (.ci/install-deps --tests installs it): "
             "the report schema must be checked")
    p = lastwords(lw, ["rules"])
    rule_ids = {line.split()[0] for line in p.stdout.splitlines() if line.strip()}
    if p.returncode != 0 or not rule_ids:
        fail("`lastwords rules` exits %d and lists %d rules" % (p.returncode, len(rule_ids)))
    names = scenario_names()
    for n in KNOWN_FAILURES:
        if n not in names:
            fail("KNOWN_FAILURES names %r, which is not a scenario" % n)
    check_rings(ring_validator, names)
    passed, known = [], []
    for name in names:
        diffs = scenario(lw, name, validator, rule_ids)
        fields = {f for f, _ in diffs}
        if name in KNOWN_FAILURES:
            listed, why = KNOWN_FAILURES[name]
            if validator is None:
                listed = listed - {"schema"}
            if not diffs:
                fail("%s: listed as a known failure (%s) but passes: take it off the list"
                     % (name, why))
            elif fields != listed:
                fail("%s: known failure in %s, but the report differs in %s:\n    %s"
                     % (name, sorted(listed), sorted(fields),
                        "\n    ".join("%s: %s" % d for d in diffs)))
            else:
                known.append(name)
                print("known failure: %s: %s" % (name, why))
                for d in diffs:
                    print("    %s: %s" % d)
        elif diffs:
            fail("%s:\n    %s" % (name, "\n    ".join("%s: %s" % d for d in diffs)))
        else:
            passed.append(name)
            print("ok: %s" % name)
    print("%d scenarios: %d pass, %d known failures, %d fail; %.2f s"
          % (len(names), len(passed), len(known), len(names) - len(passed) - len(known),
             time.monotonic() - t0))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
