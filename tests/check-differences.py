#!/usr/bin/env python3
"""`lastwords check` says each way the report differs from an expectation,
one line each, and passes a team's hand-written files.

- The team files of fixtures/check/ hold on the demo bundle (--tz +01:00):
  the minimal file as the issue gives it, and a pretty-printed one with
  lists of acceptable values, null for no verdict, a run chosen by run_id,
  rules that must and must not fire, required and forbidden actions and the
  exit record that must join. So do the project's scenarios (with their
  args), which report-scenarios.py checks in full.
- Each kind of member, changed so that it no longer holds, makes check exit
  14 and print exactly the line that names it (run, member, what the
  report says, what was expected), and nothing else: the verdict as one
  value, a list and null, exact and required rules and actions, exit
  records, joins, stage, texts, sessions, the run's key, run_count,
  exit_status, boot_loops, unmatched_exit_records, timezone, device_notes,
  without_args and ring_forms; pid reuse is matched in order.
- An input that cannot be read fails the check (4) unless exit_status
  expects it; usage errors exit 2.

usage: check-differences.py LASTWORDS SOURCE_ROOT
"""
import copy
import json
import os
import shlex
import tempfile

from helpers import check, finish, lastwords, setup

DEMO = ["fixtures/demo"]
TZ = ["--tz", "+01:00"]
RUN = "run com.example.demo:inference pid 25711: "


def run_check(lw, exp, inputs, opts=TZ, name="expect.json"):
    """check of the expectation exp (a dict, written to a fresh file
    named name) on inputs: (exit status, stdout lines, stderr)."""
    with tempfile.TemporaryDirectory(prefix="lw-check-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            json.dump(exp, f, indent=2)
        p = lastwords(lw, ["check"] + opts + [path] + inputs)
    return p.returncode, p.stdout.splitlines(), p.stderr


def load(path):
    with open(path) as f:
        return json.load(f)


def demo_run(exp, pid):
    return next(r for r in exp["runs"] if r.get("pid") == pid)


def mutations():
    """(what, change of the demo's team file, the lines check must print)."""
    def on(which, **members):
        def change(exp):
            demo_run(exp, which).update(members)
        return change

    def top(**members):
        return lambda exp: exp.update(members)

    rules = '["aei-low-memory","lmkd-kill","ring-memory-pressure","concurrency-at-death"]'
    actions = '["stop_new_inference","reduce_concurrency","isolate_candidate","revert_to_stable"]'
    return [
        ("classification", on(25711, classification="native_crash"),
         [RUN + "classification low_memory, expected native_crash"]),
        ("classification list", on(25711, classification=["anr", "java_crash"]),
         [RUN + "classification low_memory, expected anr or java_crash"]),
        ("classification null", on(25711, classification=None),
         [RUN + "classification low_memory, expected none"]),
        ("no verdict expected one", on(25697, classification="low_memory"),
         ["run com.example.demo pid 25697: classification none, expected low_memory"]),
        ("evidence_level", on(25711, evidence_level="supported"),
         [RUN + "evidence_level confirmed, expected supported"]),
        ("evidence_level list with null", on(25711, evidence_level=["unconfirmed", None]),
         [RUN + "evidence_level confirmed, expected unconfirmed or none"]),
        ("rules", on(25711, rules=["aei-low-memory"]),
         [RUN + 'rules %s, expected ["aei-low-memory"]' % rules]),
        ("rules_fired", on(25711, rules_fired=["lmkd-kill", "tombstone"]),
         [RUN + "rule tombstone did not fire (rules %s)" % rules]),
        ("rules_not_fired", on(25711, rules_not_fired=["lmkd-kill"]),
         [RUN + "rule lmkd-kill fired, and must not"]),
        ("actions", on(25711, actions=["stop_new_inference"]),
         [RUN + 'actions %s, expected ["stop_new_inference"]' % actions]),
        ("actions_required", on(25711, actions_required=["preserve_evidence"]),
         [RUN + "action preserve_evidence is not recommended (actions %s)" % actions]),
        ("actions_forbidden", on(25711, actions_forbidden=["reduce_concurrency"]),
         [RUN + "action reduce_concurrency is recommended, and must not be"]),
        ("exit_records", on(25711, exit_records=2), [RUN + "exit_records 1, expected 2"]),
        ("joins", on(25711, joins={"reason": 5}),
         [RUN + 'no exit record joined that has {"reason":5}']),
        ("joins list", on(25711, joins=[{"reason": 3}, {"line": 9}]),
         [RUN + 'no exit record joined that has {"line":9}']),
        ("joined_by", on(25711, joined_by=["run id"]),
         [RUN + 'joined_by ["process, pid and time"], expected ["run id"]']),
        ("exit_timestamps", on(25711, exit_timestamps=[None]),
         [RUN + 'exit_timestamps ["2026-11-30 01:28:04.873"], expected [null]']),
        ("contradiction", on(25711, contradiction=True),
         [RUN + "no contradiction is named, expected one"]),
        ("stage_open", on(25711, stage_open=False), [RUN + "stage_open true, expected false"]),
        ("last_stage", on(25711, last_stage="load"), [RUN + "last_stage inference, expected load"]),
        ("evidence_match", on(25711, evidence_match=["lmkd", "no such words"]),
         [RUN + "no evidence line mentions 'no such words'"]),
        ("missing_match", on(25711, missing_match=["no such words"]),
         [RUN + "no missing line mentions 'no such words'"]),
        ("recovery_match", on(25711, recovery_match=["stop_new_inference: ", "isolate_delegate:"]),
         [RUN + "no recovery line mentions 'isolate_delegate:'"]),
        ("resident_candidates", on(25711, resident_candidates=[]),
         [RUN + 'resident_candidates ["b556bc3afc3b91b3"], expected []']),
        ("sessions member", on(25711, sessions=[{"state": "closed"}]),
         [RUN + "sessions[0].state open, expected closed"]),
        ("sessions count", on(25711, sessions=[]), [RUN + "sessions: 1, expected 0"]),
        ("pid", on(25711, pid=1),
         ["run com.example.demo:inference pid 1: not in the report"]),
        ("run_id", lambda exp: exp["runs"][1].update(run_id="0" * 32),
         ["run %s: not in the report" % ("0" * 32)]),
        ("run_count", top(run_count=4), ["run_count 5, expected 4"]),
        ("exit_status", top(exit_status=3), ["exit_status 0, expected 3"]),
        ("boot_loops", top(boot_loops=[{"count": 3}]), ["boot_loops: 0, expected 1"]),
        ("unmatched_exit_records", top(unmatched_exit_records=[{"pid": 1, "why": "tz_unknown"}]),
         ["unmatched_exit_records: 0, expected 1",
          'no unmatched exit record has {"pid":1,"why":"tz_unknown"}']),
        ("timezone", top(timezone={"source": "manifest", "offset_minutes": 60}),
         ["timezone.source option, expected manifest"]),
        ("device_notes", top(device_notes=["no such note"]),
         ["no device note mentions 'no such note'"]),
        ("without_args", top(without_args={"timezone": {"source": "option"}}),
         ["without the options: timezone.source tombstone, expected option"]),
    ]


def check_team_files(lw):
    for name in sorted(os.listdir("fixtures/check")):
        if not name.endswith(".json") or name == "demo-differs.json" or name.startswith("bad-"):
            continue
        p = lastwords(lw, ["check"] + TZ + ["fixtures/check/" + name] + DEMO)
        check(p.returncode == 0 and not p.stdout,
              "check fixtures/check/%s fixtures/demo exits %d: %s%s"
              % (name, p.returncode, p.stdout, p.stderr))
    with open("fixtures/check/minimal.json") as f:
        check(json.load(f) == {"runs": [{"process": "com.example.demo:inference", "pid": 25711,
                                         "classification": "low_memory",
                                         "evidence_level": "confirmed"}]},
              "fixtures/check/minimal.json is not the issue's minimal file")


def check_mutations(lw):
    base = load("fixtures/check/demo.json")
    status, out, err = run_check(lw, base, DEMO)
    if not check(status == 0 and not out, "the demo's team file fails: %d %s %s" % (status, out, err)):
        return
    for what, change, want in mutations():
        exp = copy.deepcopy(base)
        change(exp)
        status, out, err = run_check(lw, exp, DEMO)
        check(status == 14 and out == want,
              "%s: check exits %d and prints %r, expected 14 and %r (%s)" % (what, status, out, want,
                                                                             err.strip()))


def scenario(name):
    d = os.path.join("fixtures/scenarios", name)
    args = []
    if os.path.exists(os.path.join(d, "args")):
        with open(os.path.join(d, "args")) as f:
            args = shlex.split(f.read())
    return load(os.path.join(d, "expected.json")), args, [os.path.join(d, "bundle")]


def check_pid_reuse(lw):
    """Two runs of one process and pid are matched in order: swapped, each
    says so, the second named as such."""
    exp, args, inputs = scenario("pid-reuse")
    exp["runs"][0], exp["runs"][1] = exp["runs"][1], exp["runs"][0]
    for r in exp["runs"]:
        for k in ("rules", "actions", "missing_match"):
            r.pop(k, None)
    status, out, _ = run_check(lw, exp, inputs, args)
    who = "run com.example.vision:inference pid 4242"
    want = [who + ": classification low_memory, expected native_crash",
            who + ": evidence_level confirmed, expected supported",
            who + " (#2): classification native_crash, expected low_memory",
            who + " (#2): evidence_level supported, expected confirmed"]
    check(status == 14 and out == want, "pid reuse: %d %r, expected %r" % (status, out, want))
    exp, args, inputs = scenario("pid-reuse")
    exp["without_args"]["unmatched_exit_records"][1]["why"] = "ambiguous"
    status, out, _ = run_check(lw, exp, inputs, args)
    want = ['without the options: no unmatched exit record has {"pid":4242,'
            '"process":"com.example.vision:inference","why":"ambiguous"}']
    check(status == 14 and out == want, "without_args: %d %r, expected %r" % (status, out, want))


def check_ring_forms(lw):
    """Both forms of a ring must give the expectation and the same report:
    another ring as the second form is named."""
    exp, args, inputs = scenario("ring-binary-and-json")
    root = os.getcwd()
    exp["ring_forms"] = [os.path.join(root, "fixtures/rings/killed-inference.lwr"),
                         os.path.join(root, "fixtures/rings-json/killed-inference.jsonl")]
    status, out, err = run_check(lw, exp, inputs, args)
    check(status == 0 and not out, "ring_forms as absolute paths: %d %r %s" % (status, out, err))
    exp["ring_forms"][1] = os.path.join(root, "fixtures/rings/clean-exit.lwr")
    status, out, _ = run_check(lw, exp, inputs, args)
    want = "with %s: the report differs from the first ring form's, beyond file names" \
        % exp["ring_forms"][1]
    check(status == 14 and want in out, "ring_forms: %d %r, expected a line %r" % (status, out, want))


def check_boot_loop(lw):
    exp, args, inputs = scenario("boot-loop")
    exp["boot_loops"][0]["count"] = 4
    status, out, _ = run_check(lw, exp, inputs, args)
    want = ["boot_loops[0].count 3, expected 4"]
    check(status == 14 and out == want, "boot_loops: %d %r, expected %r" % (status, out, want))


def check_inputs_and_usage(lw):
    minimal = load("fixtures/check/minimal.json")
    missing = DEMO + ["fixtures/no-such-input"]
    status, out, err = run_check(lw, minimal, missing)
    check(status == 4 and not out and "no-such-input" in err,
          "an unreadable input: check exits %d, %r %r (expected 4)" % (status, out, err))
    status, out, err = run_check(lw, dict(minimal, exit_status=4), missing)
    check(status == 0 and not out, "an unreadable input that exit_status expects: %d %r" % (status, out))
    status, out, err = run_check(lw, dict(minimal, exit_status=0), missing)
    check(status == 14 and out == ["exit_status 4, expected 0"],
          "an unreadable input against exit_status 0: %d %r" % (status, out))
    for args in (["check"], ["check", "fixtures/check/minimal.json"],
                 ["check", "--format", "json", "fixtures/check/minimal.json"] + DEMO,
                 ["check", "--tz", "nowhere", "fixtures/check/minimal.json"] + DEMO):
        p = lastwords(lw, args)
        check(p.returncode == 2 and "usage: lastwords check" in p.stderr,
              "%s exits %d: %s" % (" ".join(args), p.returncode, p.stderr))
    p = lastwords(lw, ["check", "fixtures/check/no-such.json"] + DEMO)
    check(p.returncode == 4 and "cannot open 'fixtures/check/no-such.json'" in p.stderr,
          "a missing EXPECT file: %d %s" % (p.returncode, p.stderr))
    # --fail-on is report's: exit_status is the gate's.
    p = lastwords(lw, ["check", "--fail-on", "low_memory"] + TZ +
                  ["fixtures/check/demo.json"] + DEMO)
    check(p.returncode == 14 and p.stdout.splitlines() == ["exit_status 3, expected 0"],
          "check --fail-on low_memory: %d %r" % (p.returncode, p.stdout))


def main():
    lw, _ = setup(__doc__)
    check_team_files(lw)
    check_mutations(lw)
    check_pid_reuse(lw)
    check_ring_forms(lw)
    check_boot_loop(lw)
    check_inputs_and_usage(lw)
    return finish("check-differences: %d mutations" % len(mutations()))


if __name__ == "__main__":
    raise SystemExit(main())
