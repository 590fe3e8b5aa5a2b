#!/usr/bin/env python3
"""Crash signatures from the report to the history, end to end.

Three bundles made from fixtures/history/bundles/03-pixel-v100-a-crash (its
run that crashed in the GPU delegate, its tombstone and evidence): app
version 100 with the crash as it is; version 101 with the same crash at
other pcs and offsets (the library was rebuilt), a crash in another
function of the same library. Checks that:
- each report's run JSON carries crash_signature, the FNV-1a 64 of
  crash_signed_frames as lastwords(1) defines it, and the text report its
  "signature" line; the same crash in both versions signs alike, the other
  one does not;
- `history --by signature` counts the same crash once, with 2 runs in 2
  app versions (100 to 101), and the other with 1 run in 1, in text and in
  JSON (checked against schemas/history.schema.json);
- the regression check names the crash version 101 brought ("new crash
  signature ... in 1 run") and not the one 100 had already;
- export's row carries the run's crash_signature.

usage: history-signatures.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re
import shutil
import tempfile

from helpers import check, finish, lastwords, report_json, setup

SRC = "fixtures/history/bundles/03-pixel-v100-a-crash"
RING = "com.example.vision_inference.1772701204.6010.jsonl"
LIB = "libtensorflowlite_gpu_jni.so"
SAME = LIB + "!tflite::gpu::cl::InferenceContext::InitFromGraph < " + LIB + "!TfLiteGpuDelegateV2Create"
OTHER = LIB + "!tflite::gpu::cl::InferenceContext::Compile < " + LIB + "!TfLiteGpuDelegateV2Create"


def fnv1a64(text):
    h = 0xcbf29ce484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return "%016x" % h


def bundle(dst, version, n, tombstone_edits):
    """The fixture's crashed run as app version `version` (run id ending in
    n), with its evidence; the tombstone's text edited (old, new) pairs."""
    os.makedirs(dst)
    ring = open(os.path.join(SRC, RING)).read()
    ring = ring.replace('"app_version":100', '"app_version":%d' % version)
    ring = re.sub(r'"run_id":"([0-9a-f]{24})[0-9a-f]{8}"', lambda m: '"run_id":"%s%08x"' % (m.group(1), n),
                  ring)
    open(os.path.join(dst, RING), "w").write(ring)
    for f in ("exit-info.txt", "logcat.txt"):
        shutil.copy(os.path.join(SRC, f), dst)
    tomb = open(os.path.join(SRC, "tombstone_00")).read()
    for old, new in tombstone_edits:
        check(old in tomb, "the fixture's tombstone has %r" % old)
        tomb = tomb.replace(old, new)
    open(os.path.join(dst, "tombstone_00"), "w").write(tomb)
    return dst


def crashed_run(rep):
    runs = [r for r in rep["runs"] if r["classification"] == "native_crash"] if rep else []
    check(len(runs) == 1, "one native crash in the report: %s" %
          [(r["process"], r["classification"]) for r in (rep or {"runs": []})["runs"]])
    return runs[0] if runs else {}


def validator(root):
    try:
        import jsonschema
    except ImportError:
        check(False, "python3-jsonschema is needed (.ci/install-deps --tests installs it)")
        return lambda doc: None
    v = jsonschema.Draft202012Validator(json.load(open(os.path.join(root, "schemas", "history.schema.json"))))

    def validate(doc):
        errs = sorted(v.iter_errors(doc), key=lambda e: list(e.path))
        check(not errs, "history JSON against its schema: %s" % "; ".join(
            "%s: %s" % (list(e.path), e.message) for e in errs[:3]))
    return validate


def main():
    lw, root = setup(__doc__)
    validate = validator(root)
    tmp = tempfile.mkdtemp(prefix="lw-signatures-")
    try:
        b100 = bundle(os.path.join(tmp, "v100"), 100, 1, [])
        # Rebuilt: other pcs, other offsets into the same functions.
        b101 = bundle(os.path.join(tmp, "v101-same"), 101, 2, [
            ("00000000008fb51c", "00000000008fb600"),
            ("00000000002b71e4", "00000000002b7310"), ("InitFromGraph+212", "InitFromGraph+512"),
            ("00000000001d02a8", "00000000001d0400"), ("TfLiteGpuDelegateV2Create+96", "TfLiteGpuDelegateV2Create+140")])
        other = bundle(os.path.join(tmp, "v101-other"), 101, 3, [
            ("InitFromGraph+212", "Compile+40")])

        sig = {}
        for name, b, want in (("v100", b100, SAME), ("v101-same", b101, SAME), ("v101-other", other, OTHER)):
            rep, _ = report_json(lw, ["--tz", "+01:00", b])
            run = crashed_run(rep)
            check(run.get("crash_signed_frames") == want,
                  "%s: signed frames %r, want %r" % (name, run.get("crash_signed_frames"), want))
            check(run.get("crash_signature") == fnv1a64(want),
                  "%s: crash_signature %r is FNV-1a 64 of its frames (%s)" %
                  (name, run.get("crash_signature"), fnv1a64(want)))
            sig[name] = run.get("crash_signature")
            clean = [r for r in (rep or {"runs": []})["runs"] if r["classification"] is None]
            check(all(r["crash_signature"] is None and r["crash_signed_frames"] is None for r in clean),
                  "%s: a run without a crash has a null signature" % name)
            text = lastwords(lw, ["report", "--tz", "+01:00", b]).stdout
            check("signature  %s (%s)\n" % (fnv1a64(want), want) in text,
                  "%s: the text report's signature line: %s" %
                  (name, [l for l in text.splitlines() if l.startswith("signature")]))
        check(sig["v100"] == sig["v101-same"], "the same crash in both versions signs alike: %s" % sig)
        check(sig["v101-other"] != sig["v100"], "another function signs otherwise: %s" % sig)

        db = os.path.join(tmp, "history.db")
        for b in (b100, b101, other):
            r = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", b])
            check(r.returncode == 0, "ingest %s: %s" % (b, r.stderr))

        r = lastwords(lw, ["history", "--db", db, "--by", "signature", "--format", "json"])
        check(r.returncode == 0, "history --by signature --format json: %s" % r.stderr)
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        validate(doc)
        check(doc.get("by") == "signature" and doc.get("groups") == [], "by signature, no rate groups: %r" %
              {k: doc.get(k) for k in ("by", "groups")})
        got = {s["signature"]: s for s in doc.get("signatures", [])}
        check(set(got) == {sig["v100"], sig["v101-other"]}, "two signatures: %s" % sorted(got))
        same = got.get(sig["v100"], {})
        check((same.get("runs"), same.get("versions"), same.get("first_version"), same.get("last_version")) ==
              (2, 2, 100, 101), "the same crash counts once: 2 runs in versions 100 to 101: %s" % same)
        check(same.get("signed_frames") == SAME and same.get("classes") == {"native_crash": 2} and
              same.get("package") == "com.example.vision", "its frames, classes and package: %s" % same)
        check(same.get("first_seen") == "2026-03-05T09:00:04.000000Z" and
              same.get("last_seen") == same.get("first_seen"), "first and last seen: %s" % same)
        new = got.get(sig["v101-other"], {})
        check((new.get("runs"), new.get("versions"), new.get("first_version")) == (1, 1, 101),
              "the other crash: 1 run in version 101: %s" % new)
        check([s["signature"] for s in doc.get("signatures", [])][:1] == [sig["v100"]], "most runs first")
        crashes = doc.get("new_crash_signatures", [])
        check([(c["signature"], c["app_version"], c["previous_version"], c["runs"]) for c in crashes] ==
              [(sig["v101-other"], 101, 100, 1)],
              "the regression check's new crash is version 101's other one alone: %s" % crashes)

        r = lastwords(lw, ["history", "--db", db, "--by", "signature"])
        check(r.returncode == 0, "history --by signature: %s" % r.stderr)
        check("signature %s (com.example.vision): 2 runs in 2 app versions (100 to 101), native_crash 2\n"
              % sig["v100"] in r.stdout, "text: the same crash once: %r" % r.stdout)
        check("signature %s (com.example.vision): 1 run in 1 app version (101), native_crash 1\n"
              % sig["v101-other"] in r.stdout, "text: the other crash: %r" % r.stdout)
        check("  frames %s\n" % SAME in r.stdout, "text: the signed frames: %r" % r.stdout)
        check("com.example.vision app_version 101: new crash signature %s in 1 run (none in 100 or before): %s\n"
              % (sig["v101-other"], OTHER) in r.stdout and
              "new crash signature %s" % sig["v100"] not in r.stdout,
              "text: the new crash among the regressions: %r" % r.stdout)

        # The other groupings still give rates, and the new crashes too.
        r = lastwords(lw, ["history", "--db", db, "--format", "json"])
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        validate(doc)
        check("signatures" not in doc and doc.get("groups") and len(doc.get("new_crash_signatures", [])) == 1,
              "--by candidate: groups, no signatures, the new crash: %s" % r.stdout[:300])

        r = lastwords(lw, ["export", "--db", db, "--format", "ndjson"])
        rows = [json.loads(l) for l in r.stdout.splitlines()] if r.returncode == 0 else []
        signed = sorted(x["crash_signature"] for x in rows if x["crash_signature"])
        check(signed == sorted([sig["v100"], sig["v100"], sig["v101-other"]]),
              "export: the three crashes' signatures: %s" % signed)
    finally:
        shutil.rmtree(tmp)
    return finish("history-signatures: the same crash across versions is one signature")


if __name__ == "__main__":
    raise SystemExit(main())
