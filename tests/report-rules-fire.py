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
import sys

from helpers import check, fail, finish, lastwords, setup
from scenarios import read_scenario, scenario_names


def report(lw, args):
    """The rules each run of one report lists, or an error."""
    p = lastwords(lw, ["report", "--format", "json"] + args)
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
    lw, _ = setup(__doc__)
    p = lastwords(lw, ["rules"])
    ids = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    if not check(p.returncode == 0 and ids,
                 "`lastwords rules` exits %d and lists %d rules" % (p.returncode, len(ids))):
        return finish("report-rules-fire")
    fired = {}
    for where, args in inputs():
        rules, err = report(lw, args)
        if err:
            fail(err)
            continue
        for rule in rules:
            fired.setdefault(rule, [])
            if where not in fired[rule]:
                fired[rule].append(where)
    for rule in ids:
        print("%-24s %s" % (rule, ", ".join(fired.get(rule, [])) or "-"))
    never = [rule for rule in ids if rule not in fired]
    check(not never, "%d rule%s fired in no scenario and not in the demo: %s"
          % (len(never), "" if len(never) == 1 else "s", ", ".join(never)))
    return finish("report-rules-fire: %d rules, %d fired" % (len(ids), len(ids) - len(never)))


if __name__ == "__main__":
    sys.exit(main())
