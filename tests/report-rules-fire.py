#!/usr/bin/env python3
"""Every rule of `lastwords rules` fires somewhere: a rule that no scenario
makes fire is a rule nothing checks.

`lastwords report --format json` runs on each scenario of
fixtures/scenarios/ (with its args: the bundle with each of its ring_forms,
else the bundle alone, as report-scenarios.py gives them) and on the demo
bundle (fixtures/demo, --tz +01:00, as the README reports it). The rules
listed in the reports' runs are collected, and the test fails naming every
rule of `lastwords rules` that fired in none of them; it prints where each
rule fired.

usage: report-rules-fire.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys

from scenarios import read_scenario, scenario_names


def report(lw, args):
    """The rules each run of one report lists, or an error."""
    p = subprocess.run([lw, "report", "--format", "json"] + args, capture_output=True, text=True)
    try:
        rep = json.loads(p.stdout)
    except ValueError as e:
        return None, "report %s: not JSON (%s): %s" % (" ".join(args), e, p.stderr.strip())
    return [rule for run in rep.get("runs", []) for rule in run.get("rules", [])], None


def inputs():
    """(where, report arguments) for every scenario form and the demo."""
    for name in scenario_names():
        _, args, forms = read_scenario(name)
        for form in forms:
            yield name, args + form
    yield "demo", ["--tz", "+01:00", "fixtures/demo"]


def main():
    if len(sys.argv) != 3:
        print("usage: report-rules-fire.py LASTWORDS SOURCE_ROOT", file=sys.stderr)
        return 1
    lw, root = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.chdir(root)
    p = subprocess.run([lw, "rules"], capture_output=True, text=True)
    ids = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    if p.returncode != 0 or not ids:
        print("FAIL: `lastwords rules` exits %d and lists %d rules" % (p.returncode, len(ids)))
        return 1
    fired, errors = {}, []
    for where, args in inputs():
        rules, err = report(lw, args)
        if err:
            errors.append(err)
            continue
        for rule in rules:
            fired.setdefault(rule, [])
            if where not in fired[rule]:
                fired[rule].append(where)
    for rule in ids:
        print("%-24s %s" % (rule, ", ".join(fired.get(rule, [])) or "-"))
    never = [rule for rule in ids if rule not in fired]
    for err in errors:
        print("FAIL: " + err)
    if never:
        print("FAIL: %d rule%s fired in no scenario and not in the demo: %s"
              % (len(never), "" if len(never) == 1 else "s", ", ".join(never)))
    return 1 if never or errors else 0


if __name__ == "__main__":
    sys.exit(main())
