"""What the scenario tests share (report-scenarios.py, report-rules-fire.py):
the scenarios of fixtures/scenarios/ and what `lastwords report` is given
for each (fixtures/scenarios/README.md)."""
import json
import os
import shlex

SCENARIOS = "fixtures/scenarios"


def scenario_names():
    """The scenarios, sorted: the directories that hold an expected.json."""
    return sorted(n for n in os.listdir(SCENARIOS)
                  if os.path.exists(os.path.join(SCENARIOS, n, "expected.json")))


def read_scenario(name):
    """(expected, args, forms) of a scenario: its expected.json, its args as
    a list, and the inputs report gets after the args, one list per report:
    the bundle with each ring of ring_forms (relative to the scenario's
    directory), else the bundle alone."""
    d = os.path.join(SCENARIOS, name)
    with open(os.path.join(d, "expected.json")) as f:
        exp = json.load(f)
    args = []
    if os.path.exists(os.path.join(d, "args")):
        with open(os.path.join(d, "args")) as f:
            args = shlex.split(f.read())
    bundle = [os.path.join(d, "bundle")]
    return exp, args, [bundle + [os.path.normpath(os.path.join(d, ring))]
                       for ring in exp.get("ring_forms", [])] or [bundle]
