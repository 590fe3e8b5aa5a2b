#!/usr/bin/env python3
"""schemas/expect.schema.json and `lastwords check` accept and refuse the
same expectation files.

- The schema is a valid Draft 7 schema; its names are the vocabulary's
  (include/lastwords/vocab.h: exit classes, evidence levels, actions, stages
  and error classes, with "unknown"; analyzer/correlate.h: why an exit
  record joined no run) and its rule ids are those `lastwords rules` lists,
  so a file the schema accepts names only what the report can say. check
  runs this schema as written, so these X-macros and the schema are the
  names' one statement in C and in JSON, and this is the test that they
  are equal.
- Every scenario's expected.json and every team file of fixtures/check/,
  then copies of the minimal file with one member changed (each member, a
  value that is good and values of the wrong type, outside the vocabulary,
  out of range, empty, or a member unknown; integers past each field's
  range: a 26-digit pid, 2^53 + 1, 1e308), are given to both: python3's
  jsonschema and check (on fixtures/demo) must agree. check refuses with
  status 4 and a line naming the file and the place: the line, for JSON
  that does not parse, else a JSON pointer that leads to a value of the
  file.

usage: check-schema.py LASTWORDS SOURCE_ROOT
"""
import copy
import json
import os
import re
import tempfile

from helpers import check, fail, finish, lastwords, setup

SCHEMA = "schemas/expect.schema.json"
MINIMAL = {"runs": [{"process": "com.example.demo:inference", "pid": 25711,
                     "classification": "low_memory", "evidence_level": "confirmed"}]}


def vocab(name):
    with open("include/lastwords/vocab.h") as f:
        text = f.read()
    m = re.search(r"#define %s\(X\)(.*?)\n\n" % name, text, re.S)
    return re.findall(r"X\(\w+, (\w+), \d+\)", m.group(1)) if m else []


def check_names(lw, schema):
    d = schema["definitions"]
    for macro, key, extra in (("LW_EXIT_CLASSES", "exit_class", [None]),
                              ("LW_EVIDENCE_LEVELS", "evidence_level", [None]),
                              ("LW_ACTIONS", "action", []),
                              ("LW_STAGES", "stage", ["unknown"]),
                              ("LW_ERRORS", "error_class", ["unknown"])):
        names = vocab(macro)
        check(names and d[key]["enum"] == names + extra,
              "%s %s is %r; vocab.h %s gives %r" % (SCHEMA, key, d[key]["enum"], macro, names + extra))
    # the reasons an exit record joined no run: correlate.h CORR_REASONS
    with open("analyzer/correlate.h") as f:
        m = re.search(r"#define CORR_REASONS\(X\)(.*?)\n\n", f.read(), re.S)
    whys = re.findall(r"X\(\w+, (\w+),", m.group(1)) if m else []
    got = d["unmatched"]["properties"]["why"]["enum"]
    check(whys and got == whys,
          "%s unmatched why is %r; correlate.h CORR_REASONS gives %r" % (SCHEMA, got, whys))
    p = lastwords(lw, ["rules"])
    ids = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
    check(ids and d["rule_id"]["enum"] == ids,
          "%s rule_id is %r; lastwords rules lists %r" % (SCHEMA, d["rule_id"]["enum"], ids))


def cases():
    """(name, text of the file): the minimal file with one change each."""
    out = []

    def top(name, **members):
        exp = copy.deepcopy(MINIMAL)
        exp.update(members)
        out.append((name, json.dumps(exp, indent=2)))

    def run(name, drop=(), **members):
        exp = copy.deepcopy(MINIMAL)
        for k in drop:
            del exp["runs"][0][k]
        exp["runs"][0].update(members)
        out.append((name, json.dumps(exp, indent=2)))

    ring = os.path.abspath("fixtures/rings/killed-inference.lwr")
    for k, v in [("about", "x"), ("about", 1), ("exit_status", 0), ("exit_status", 3),
                 ("exit_status", 2.0), ("exit_status", -1), ("exit_status", 256),
                 ("exit_status", 1.5), ("exit_status", "0"), ("exit_status", True),
                 ("run_count", 5), ("run_count", -1), ("run_count", None),
                 ("runs", []), ("runs", {}), ("runs", [1]),
                 ("boot_loops", []), ("boot_loops", [{"count": 3, "pids": [1, 2]}]),
                 ("boot_loops", [{"counts": 3}]), ("boot_loops", [{"stage": "dinner"}]),
                 ("boot_loops", [{"candidate": None, "actions": ["stop_prewarm"]}]),
                 ("boot_loops", [{"candidate": "xyz"}]),
                 ("boot_loops", [{"pids": [25711, 2 ** 31]}]), ("boot_loops", [{"count": 1e20}]),
                 ("unmatched_exit_records", [{"pid": 10 ** 26}]),
                 ("unmatched_exit_records", [{"reason": 2 ** 31}]),
                 ("timezone", {"offset_minutes": 1441}), ("timezone", {"offset_minutes": -840}),
                 ("run_count", 2 ** 53 + 1), ("run_count", 1e308),
                 ("unmatched_exit_records", [{"why": "tz_unknown", "pid": 1}]),
                 ("unmatched_exit_records", [{"why": "because"}]),
                 ("unmatched_exit_records", [{"process": None}]),
                 ("unmatched_exit_records", [{"line": "1"}]),
                 ("timezone", {"source": "option", "name": None}),
                 ("timezone", {"source": "sundial"}), ("timezone", {"zone": "x"}),
                 ("timezone", {"offset_minutes": 60.5}), ("timezone", []),
                 ("device_notes", ["x"]), ("device_notes", "x"),
                 ("ring_forms", [ring]), ("ring_forms", []), ("ring_forms", [""]),
                 ("ring_forms", [1]),
                 ("without_args", {"run_count": 5, "runs": []}),
                 ("without_args", {"about": "x"}), ("without_args", {"ring_forms": [ring]}),
                 ("runz", [])]:
        top("%s=%s" % (k, json.dumps(v)), **{k: v})
    for name, text in [("an array", "[]"), ("a string", '"x"'), ("null", "null"),
                       ("not JSON", '{"runs": [\n  {"process": "x",}\n]}'),
                       ("cut short", '{"runs": ['), ("more after it", "{}\n{}"),
                       ("empty", "")]:
        out.append((name, text))
    run("run_id instead", drop=("process", "pid"), run_id="e169d0887493f1aa436a4d2dd5c7469e")
    run("run_id and key", run_id="e169d0887493f1aa436a4d2dd5c7469e")
    run("run_id of capitals", drop=("process", "pid"), run_id="E169D0887493F1AA436A4D2DD5C7469E")
    run("run_id short", drop=("process", "pid"), run_id="e169")
    run("no process", drop=("process",))
    run("no pid", drop=("pid",))
    run("no key", drop=("process", "pid"))
    run("run_id and process", drop=("pid",), run_id="e169d0887493f1aa436a4d2dd5c7469e")
    for k, v in [("process", ""), ("process", 1), ("pid", -1), ("pid", "1"), ("pid", 1.5),
                 ("pid", True),
                 ("classification", "anr"), ("classification", None),
                 ("classification", ["anr", None]), ("classification", []),
                 ("classification", "oom"), ("classification", ["oom"]), ("classification", 3),
                 ("classification", [["anr"]]),
                 ("evidence_level", "supported"), ("evidence_level", "sure"),
                 ("evidence_level", [None]), ("evidence_level", {}),
                 ("rules", ["lmkd-kill"]), ("rules", ["lmkd_kill"]), ("rules", "lmkd-kill"),
                 ("rules_fired", ["tombstone"]), ("rules_fired", ["nope"]),
                 ("rules_not_fired", []), ("rules_not_fired", [None]),
                 ("actions", ["stop_prewarm"]), ("actions", ["reboot"]),
                 ("actions_required", ["revert_to_stable"]), ("actions_required", [1]),
                 ("actions_forbidden", ["isolate_delegate"]),
                 ("actions_forbidden", ["delete_model"]),
                 ("exit_records", 1), ("exit_records", -1), ("exit_records", True),
                 ("joins", {"reason": 3}), ("joins", [{"reason": 3}, {"timestamp": None}]),
                 ("joins", {"reasons": 3}), ("joins", {"joined_by": "luck"}), ("joins", "x"),
                 ("joins", [1]),
                 ("joined_by", ["run id"]), ("joined_by", ["id"]),
                 ("exit_timestamps", [None, "x"]), ("exit_timestamps", [1]),
                 ("contradiction", True), ("contradiction", "yes"),
                 ("stage_open", False), ("stage_open", 0),
                 ("last_stage", "unknown"), ("last_stage", "lunch"), ("last_stage", None),
                 ("evidence_match", ["x"]), ("evidence_match", [1]),
                 ("missing_match", []), ("missing_match", "x"),
                 ("recovery_match", ["stop_new_inference:"]), ("recovery_match", [None]),
                 ("resident_candidates", ["b556bc3afc3b91b3"]),
                 ("resident_candidates", ["B556BC3AFC3B91B3"]), ("resident_candidates", ["b556"]),
                 ("sessions", [{"state": "open"}]), ("sessions", [{"state": "ajar"}]),
                 ("sessions", [{"result": None, "candidate": None, "opened_ms": 1.5}]),
                 ("sessions", [{"opened_ms": "1"}]), ("sessions", [{"open_stages": ["unknown"]}]),
                 ("sessions", [{"result": "unknown"}]), ("sessions", [{"result": "bad"}]),
                 ("sessions", [{"id": 1.5}]), ("sessions", [{"peak": 1}]),
                 # numbers past the field's range, never compared rounded
                 ("pid", 10 ** 25), ("pid", 2 ** 53 + 1), ("pid", 1e308), ("pid", 2 ** 31),
                 ("pid", 2 ** 31 - 1), ("pid", 2.5711e4), ("pid", -0.0),
                 ("exit_records", 2 ** 53), ("exit_records", 2 ** 53 - 1),
                 ("joins", {"reason": 2 ** 31}), ("joins", {"reason": -2 ** 31}),
                 ("joins", {"line": 1e300}), ("joins", {"importance": -2 ** 31 - 1}),
                 ("sessions", [{"id": 2 ** 32}]), ("sessions", [{"opens": 2 ** 32 - 1}]),
                 ("sessions", [{"peak_kb": -1}]),
                 ("clasification", "low_memory")]:
        run("runs/0/%s=%s" % (k, json.dumps(v)), **{k: v})
    return out


NOT_JSON = object()


def schema_accepts(validator, text):
    """(whether the schema accepts text, its document or NOT_JSON)."""
    try:
        doc = json.loads(text)
    except ValueError:
        return False, NOT_JSON
    return not any(True for _ in validator.iter_errors(doc)), doc


def resolve(doc, pointer):
    """The value at a JSON pointer of doc, or raise LookupError."""
    cur = doc
    for part in pointer.split("/")[1:]:
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        cur = cur[int(part)] if isinstance(cur, list) else cur[part]
    return cur


def compare(lw, validator, name, path, text):
    want, doc = schema_accepts(validator, text)
    p = lastwords(lw, ["check", "--tz", "+01:00", path, "fixtures/demo"])
    prefix = "lastwords: '%s': " % path
    refused = p.returncode == 4 and p.stderr.startswith(prefix)
    if p.returncode not in (0, 4, 14) or (p.returncode == 4 and not refused):
        fail("%s: check exits %d: %s" % (name, p.returncode, p.stderr.strip()))
        return
    if refused == want:
        fail("%s: the schema %s it, check %s it: %s"
             % (name, "accepts" if want else "refuses", "refuses" if refused else "accepts",
                p.stderr.strip() or p.stdout.strip()))
        return
    if not refused:
        return
    where = p.stderr[len(prefix):].strip()
    if doc is NOT_JSON:
        check(re.match(r"line \d+: ", where), "%s: the error names no line: %s" % (name, where))
        return
    pointer = where.split(":")[0]
    try:
        resolve(doc, pointer)
    except (LookupError, ValueError, TypeError):
        fail("%s: the error's place %r is not a JSON pointer into the file: %s" % (name, pointer, where))


def main():
    lw, _ = setup(__doc__)
    try:
        import jsonschema
    except ImportError:
        fail("python3-jsonschema is not installed (.ci/install-deps --tests installs it)")
        return finish("check-schema")
    with open(SCHEMA) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    check_names(lw, schema)

    n = 0
    files = sorted(os.path.join("fixtures/scenarios", d, "expected.json")
                   for d in os.listdir("fixtures/scenarios")
                   if os.path.exists(os.path.join("fixtures/scenarios", d, "expected.json")))
    files += sorted(os.path.join("fixtures/check", f) for f in os.listdir("fixtures/check")
                    if f.endswith(".json"))
    for path in files:
        with open(path) as f:
            text = f.read()
        want, _ = schema_accepts(validator, text)
        check(want != os.path.basename(path).startswith("bad-"),
              "%s: the schema %s it" % (path, "accepts" if want else "refuses"))
        compare(lw, validator, path, path, text)
        n += 1
    with tempfile.TemporaryDirectory(prefix="lw-check-schema-") as tmp:
        for i, (name, text) in enumerate(cases()):
            path = os.path.join(tmp, "case-%d.json" % i)
            with open(path, "w") as f:
                f.write(text)
            compare(lw, validator, name, path, text)
            n += 1
    return finish("check-schema: %d files, the schema and check agree" % n)


if __name__ == "__main__":
    raise SystemExit(main())
