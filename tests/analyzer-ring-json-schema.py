#!/usr/bin/env python3
"""schemas/ring-events.schema.json and the ring JSON reader accept exactly
the same files, both ways: every committed JSON ring (fixtures/rings-json,
the scenarios', history and bug report bundles' rings), `dump --json` of
every binary ring, the same rewritten (pretty-printed, Python's
json.dumps spacing, members reversed), and mutated copies of them (each
member dropped, given a value of each wrong type or out of range, an
unknown member added, records out of order). For each file the schema's
answer (the first value a ring, each other value a record, tickets
increasing and below 2^63 - 1 where they are left out too, no member
twice) must be the reader's (`lastwords inspect` exits 0, or 4). The
schema's names are those of include/lastwords/vocab.h.

One part per run (one meson test each): "files", the committed and dumped
rings and their rewritten forms; or "mutations-BASE-K", half of the
mutated copies of one base ring (BASES): every other one, from the first
(K = 1) or the second (K = 2).

usage: analyzer-ring-json-schema.py LASTWORDS SOURCE_ROOT PART
"""
import copy
import glob
import json
import os
import re
import sys
import tempfile

from helpers import fail, finish, lastwords, setup, skip

# Values of each wrong type, out of range, or of the right type in another
# form (1.0 is an integer to JSON Schema).
# The rings mutated: a version 1 ring, a version 2 ring with sessions, a
# crash.
BASES = ("killed-inference", "sessions-switch", "crashed-delegate")
WRONG = ["x", -1, 1.5, 2 ** 64, 2 ** 32, 256, None, True, [], {}, "zz23456789abcdef", 1.0]


def values(text):
    """The JSON values of text, separated by whitespace, or None."""
    dec, out, i = json.JSONDecoder(object_pairs_hook=pairs), [], 0
    while True:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        if i == len(text):
            return out
        try:
            v, i = dec.raw_decode(text, i)
        except (ValueError, DuplicateKey):
            return None
        out.append(v)


class DuplicateKey(Exception):
    pass


def pairs(items):
    keys = [k for k, _ in items]
    if len(set(keys)) != len(keys):
        raise DuplicateKey()
    return dict(items)


class Schema:
    def __init__(self, jsonschema, schema):
        defs = schema["definitions"]
        self.first = jsonschema.Draft7Validator(
            {"definitions": defs, "oneOf": [{"$ref": "#/definitions/ring"},
                                            {"$ref": "#/definitions/blank_ring"}]})
        self.record = jsonschema.Draft7Validator({"definitions": defs,
                                                  "$ref": "#/definitions/record"})

    def accepts(self, text):
        vals = values(text)
        if not vals or not self.first.is_valid(vals[0]):
            return False
        if vals[0].get("outcome") == "never_initialized" and len(vals) > 1:
            return False
        last = -1
        for v in vals[1:]:
            if not self.record.is_valid(v):
                return False
            t = v.get("ticket", last + 1)
            if t <= last or t >= 2 ** 63 - 1:
                return False
            last = t
        return True


def reader_accepts(lw, path):
    p = lastwords(lw, ["inspect", path])
    if p.returncode not in (0, 4) or "Sanitizer" in p.stderr:
        fail("inspect %s exits %d: %s" % (path, p.returncode, p.stderr))
    return p.returncode == 0


def lines(vals):
    return "".join(json.dumps(v, separators=(",", ":")) + "\n" for v in vals)


def mutations(vals):
    """(name, text) of mutated copies of a ring's values."""
    for i in (0, 1, len(vals) - 1):
        v = vals[i]
        for k in list(v):
            m = copy.deepcopy(vals)
            del m[i][k]
            yield "value %d without %s" % (i + 1, k), lines(m)
            for w in WRONG:
                m = copy.deepcopy(vals)
                m[i][k] = w
                yield "value %d %s=%r" % (i + 1, k, w), lines(m)
        m = copy.deepcopy(vals)
        m[i]["prompt"] = "user text"
        yield "value %d with an unknown member" % (i + 1), lines(m)
        for s in range(len(v.get("sessions") or [])):
            for k in list(v["sessions"][s]):
                m = copy.deepcopy(vals)
                del m[i]["sessions"][s][k]
                yield "session %d without %s" % (s, k), lines(m)
                for w in WRONG:
                    m = copy.deepcopy(vals)
                    m[i]["sessions"][s][k] = w
                    yield "session %d %s=%r" % (s, k, w), lines(m)
    if len(vals) > 3:
        yield "records swapped", lines([vals[0], vals[2], vals[1]] + vals[3:])
        m = copy.deepcopy(vals)
        m[1]["ticket"] = 2 ** 63 - 2
        m[2].pop("ticket")
        yield "a ticket left out after 2^63 - 2", lines(m[:3])
        m[2]["ticket"] = 2 ** 63 - 1
        yield "a ticket of 2^63 - 1", lines(m[:3])
        yield "a second ring value", lines(vals + [vals[0]])
        yield "no ring value", lines(vals[1:])
        yield "a member twice", lines(vals).replace('{"type":"stage_begin",',
                                                    '{"type":"stage_begin","stage":"load",', 1)
    yield "an error value", lines(vals + [{"type": "error", "file": "x", "error": "y"}])
    yield "a list", "[%s]\n" % ",".join(json.dumps(v) for v in vals)


# The schema's names, each the names of a table of include/lastwords/vocab.h.
VOCAB = {"stage": "LW_STAGES", "error_class": "LW_ERRORS", "mark": "LW_MARKS",
         "delegate": "LW_DELEGATES", "action": "LW_ACTIONS", "advice": "LW_ADVICES",
         "payload_class": "LW_PAYLOAD_CLASSES", "cache_op": "LW_CACHE_OPS",
         "scenario": "LW_SCENARIOS", "memory_source": "LW_MEMORY_SOURCES",
         "graphics_source": "LW_GRAPHICS_SOURCES", "pressure_source": "LW_PRESSURE_SOURCES"}


def check_vocabulary(schema):
    """Each list of names in the schema is its vocab.h table's, in order."""
    text = open("include/lastwords/vocab.h").read()

    def names(table):
        m = re.search(r"#define %s\(X\)(.*?)\n\n" % table, text, re.S)
        return re.findall(r"X\(\w+, (\w+), \d+\)", m.group(1)) if m else None

    defs = schema["definitions"]
    for name, table in VOCAB.items():
        got = defs[name]["oneOf"][0]["enum"]
        if got != names(table):
            fail("the schema's %s names are %s; %s has %s" % (name, got, table, names(table)))
    if defs["open_stage"]["enum"] != names("LW_STAGES") + ["an unknown stage"]:
        fail("the schema's open_stage names are not LW_STAGES's and 'an unknown stage'")
    if defs["record"]["properties"]["type"]["oneOf"][0]["enum"] != names("LW_EVENT_TYPES"):
        fail("the schema's record types are not LW_EVENT_TYPES's")


def main():
    lw, root, part = setup(__doc__, extra=1)
    if part != "files" and part not in ["mutations-%s-%d" % (b, k) for b in BASES for k in (1, 2)]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import jsonschema
    except ImportError:
        return skip("python3-jsonschema is not installed (.ci/install-deps --tests installs it)")
    raw = json.load(open("schemas/ring-events.schema.json"))
    check_vocabulary(raw)
    schema = Schema(jsonschema, raw)
    files = sorted(glob.glob("fixtures/rings-json/*.jsonl") +
                   glob.glob("fixtures/**/bundle*/**/*.jsonl", recursive=True))
    checked = agreed_no = 0
    with tempfile.TemporaryDirectory() as tmp:
        texts = [(f, open(f).read()) for f in files]
        for ring in sorted(glob.glob("fixtures/rings/*.lwr")):
            texts.append(("dump --json " + ring, lastwords(lw, ["dump", "--json", ring]).stdout))
        bases = {}
        for name, text in texts:
            vals = values(text)
            forms = [("", text)]
            if vals:
                forms += [(" pretty", "".join(json.dumps(v, indent=2) + "\n" for v in vals)),
                          (" json.dumps", "".join(json.dumps(v) + "\n" for v in vals)),
                          (" reversed", lines([dict(reversed(list(v.items()))) for v in vals]))]
                bases.setdefault(os.path.basename(name).split(".")[0], vals)
            for form, t in forms if part == "files" else ():
                path = os.path.join(tmp, "ring.jsonl")
                with open(path, "w") as f:
                    f.write(t)
                a, b = schema.accepts(t), reader_accepts(lw, path)
                checked += 1
                if not (a and b):
                    fail("%s%s: the schema %s it, the reader %s it" %
                         (name, form, "accepts" if a else "refuses",
                          "accepts" if b else "refuses"))
        for base in (b for b in BASES if part.startswith("mutations-%s-" % b)):
            half = int(part.rsplit("-", 1)[1])
            for what, t in list(mutations(bases[base]))[half - 1::2]:
                path = os.path.join(tmp, "mutated.jsonl")
                with open(path, "w") as f:
                    f.write(t)
                a, b = schema.accepts(t), reader_accepts(lw, path)
                checked += 1
                agreed_no += not a and not b
                if a != b:
                    fail("%s, %s: the schema %s it, the reader %s it" %
                         (base, what, "accepts" if a else "refuses",
                          "accepts" if b else "refuses"))
    if part != "files" and agreed_no < 100:
        fail("only %d mutated files refused by both: the mutations test too little" % agreed_no)
    return finish("%s: %d files: the schema and the reader agree on each (%d refused)" %
                  (part, checked, agreed_no))


if __name__ == "__main__":
    sys.exit(main())
