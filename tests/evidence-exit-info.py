#!/usr/bin/env python3
"""lastwords inspect on the exit-info fixtures (fixtures/evidence/exit-info/).

Three kinds of checks:
  * golden: the exact `lastwords inspect --json FIXTURE` output, stored in
    fixtures/evidence/exit-info/<name>.expected.json (name: the fixture's
    file name without its extensions); regenerate on purpose with --update
    and review the diff;
  * meaning: what the records must say whatever the layout (kind, counts,
    key fields worked out here from the fixture text), and the exit status
    and message of the malformed inputs, so a golden update cannot hide a
    wrong answer; every fixture must have an entry here;
  * schema: the JSON exports against schemas/exit-info.schema.json with
    python3-jsonschema (skipped with a message when it is not installed).

usage: evidence-exit-info.py LASTWORDS SOURCE_ROOT [--update]
"""
import calendar
import json
import os
import re
import sys
import time

from helpers import fail, finish, lastwords, option, setup

DIR = "fixtures/evidence/exit-info"
SCHEMA = "schemas/exit-info.schema.json"

checks = 0


def local_ms(text):
    """Dump time "yyyy-MM-dd HH:mm:ss.SSS", as ms with the wall time taken as UTC."""
    base, _, frac = text.partition(".")
    t = calendar.timegm(time.strptime(base, "%Y-%m-%d %H:%M:%S"))
    return t * 1000 + int((frac + "000")[:3])


def minute_ms(y, mo, d, h, mi):
    return calendar.timegm((y, mo, d, h, mi, 0, 0, 0, 0)) * 1000


def kb(value, unit):
    return round(value * {"KB": 1, "MB": 1024, "GB": 1024 * 1024}[unit])


def dump_record(pid, **fields):
    return dict(pid=pid, timestamp_local=True, timestamp_precision_ms=1, **fields)


# What each fixture must say. "records" maps a record index to the fields it
# must have; "count" is the number of records; "skipped" the lines (or JSON
# fields) not understood.
MEANING = {
    "dump-compact": dict(kind="exit-info-dump", count=3, skipped=0, records={
        0: dump_record(21877, process="com.acme.inference:ml", package="com.acme.inference",
                       uid=10234, real_uid=10234, package_uid=10234, defining_uid=10234, user=0,
                       reason=5, subreason=0, status=11, importance=100,
                       pss_kb=kb(412, "MB"), rss_kb=kb(518, "MB"), pss_text="412MB",
                       timestamp="2025-03-14 09:15:02.907",
                       timestamp_ms=local_ms("2025-03-14 09:15:02.907"),
                       description="crash", state_bytes=16, trace=None, line=5),
        1: dict(reason=6, subreason=41, description="user request after error: Input dispatching timed out",
                trace="/data/system/procexitstore/anr_20311_1741943304016.gz", line=9),
        2: dict(reason=3, importance=400, pss_kb=None, pss_text="0.00", rss_kb=kb(1.1, "GB"),
                rss_text="1.1GB", description=None, state_bytes=None),
    }),
    "dump-anrinfo-eol": dict(kind="exit-info-dump", count=2, skipped=0, records={
        0: dict(pid=7012, reason=6, subreason=38, trace="/data/system/procexitstore/anr_7012_1768918951004.gz",
                description="bg anr: Service did not call startForeground",
                anr_info=dict(anr_id=3, anr_type=38, timeout_ms=10000, user_perceptible=False)),
        1: dict(pid=6540, reason=11, trace=None, description=None, anr_info=None),
    }),
    "dump-anrinfo-ownline": dict(kind="exit-info-dump", count=2, skipped=0, records={
        0: dict(pid=9120, description="Input dispatching timed out", state_bytes=8,
                anr_info=dict(anr_id=11, anr_type=41, timeout_ms=5000, user_perceptible=True)),
        1: dict(pid=8871, reason=2, status=9, pss_kb=None, rss_kb=None, anr_info=None, line=10),
    }),
    "dump-anrinfo-glued": dict(kind="exit-info-dump", count=3, skipped=0, records={
        0: dict(pid=4410, subreason=33, description="app triggered",
                anr_info=dict(anr_id=5, anr_type=33, timeout_ms=0, user_perceptible=True)),
        1: dict(pid=4011, line=9, package="com.acme.player", uid=10311, subreason=22,
                description="remove task", anr_info=None),
        2: dict(pid=3377, package="com.acme.player.companion", uid=10312, reason=1, anr_info=None),
    }),
    "dump-a11-multiline": dict(kind="exit-info-dump", count=2, skipped=0, records={
        0: dump_record(14520, process="com.example.notes", package="com.example.notes", uid=10155,
                       reason=13, subreason=None, status=0, importance=400,
                       pss_kb=kb(36, "MB"), rss_kb=kb(92, "MB"), description="trim empty",
                       state_bytes=None, trace=None, timestamp="2021-06-03 11:20:41.302",
                       timestamp_ms=local_ms("2021-06-03 11:20:41.302"), line=5),
        1: dict(pid=13307, process="com.example.notes:sync", reason=4, subreason=None,
                importance=300, description="crash", line=21),
    }),
    "dump-multiline-subreason": dict(kind="exit-info-dump", count=2, skipped=0, records={
        0: dict(pid=8126, reason=13, subreason=2, description="too many cached",
                pss_kb=kb(143, "MB")),
        1: dict(pid=7702, process="tv.acme.streamer:decoder_sandbox", uid=10091, real_uid=99017,
                package_uid=10091, reason=1, subreason=17, pss_kb=None, rss_kb=None,
                description="isolated not needed"),
    }),
    "dump-embedded": dict(kind="exit-info-dump", count=2, skipped=0, records={
        0: dict(pid=30118, line=30, package="com.acme.inference", uid=10234, reason=3,
                importance=125, pss_kb=kb(655, "MB"), rss_kb=kb(1.2, "GB"), state_bytes=16,
                description=None),
        1: dict(pid=29440, reason=10, subreason=21,
                description="stop com.acme.inference due to from pid 29901"),
    }),
    "dump-multi-package": dict(kind="exit-info-dump", count=5, skipped=0, records={
        0: dict(pid=5510, package="com.acme.browser", uid=10180, real_uid=99003, package_uid=10180,
                process="com.acme.browser:sandboxed_process0:org.chromium.content.app.SandboxedProcessService0:3",
                reason=12),
        1: dict(pid=5402, package="com.acme.browser", uid=10180, reason=5, status=6),
        2: dict(pid=3001, package="com.acme.mail", uid=10190, reason=13, subreason=4,
                description="empty for 1800s"),
        3: dict(pid=2877, package="com.acme.mail", uid=1010190, real_uid=1010190, user=10,
                reason=2, status=9, pss_kb=None),
        4: dict(pid=1200, package="com.acme.clock", uid=10210, reason=16, subreason=25,
                pss_kb=kb(9.8, "MB"), pss_text="9.8MB"),
    }),
    "dump-sizes": dict(kind="exit-info-dump", count=5, skipped=0, records={
        0: dict(pss_kb=kb(221, "MB"), rss_kb=kb(1.5, "GB"), pss_text="221MB", rss_text="1.5GB"),
        1: dict(pss_kb=900, rss_kb=kb(12.5, "MB"), pss_text="900KB", rss_text="12,5MB"),
        2: dict(pss_kb=None, rss_kb=None, pss_text="0,00", rss_text="0.00"),
        3: dict(pss_kb=kb(2.3, "GB"), rss_kb=kb(3.4, "GB"), pss_text="2,3GB"),
        4: dict(pss_kb=kb(1, "GB"), rss_kb=None, rss_text="n/a"),
    }),
    "dump-descriptions": dict(kind="exit-info-dump", count=4, skipped=0, records={
        0: dict(description="bg anr: Input dispatching timed out (4f1c2a0 com.acme.inference/.MainActivity "
                            "(server) is not responding. Waited 5004ms for FocusEvent(hasFocus=false))",
                state_bytes=16, trace="/data/system/procexitstore/anr_6601_1760092800000.gz"),
        1: dict(subreason=1001, description="vendor cleaner: state=frozen trace=off (policy=aggressive)",
                state_bytes=None, trace=None),
        2: dict(description="", state_bytes=None),
        3: dict(description="MemoryLimiter:AnonSwap limit=2048MB usage=2210MB"),
    }),
    "dump-unknown-codes": dict(kind="exit-info-dump", count=2, skipped=2, first_skipped=9, records={
        0: dict(pid=7777, reason=42, subreason=1234, importance=230, trace=None,
                description="anomaly rule 7", state_bytes=16),
        1: dict(pid=7600, reason=17, subreason=0, line=10, description="MemoryLimiter"),
    }),
    "dump-gzip": dict(kind="exit-info-dump", gzipped=True, count=2, skipped=0, records={
        0: dict(pid=12011, reason=14, subreason=20, description="Sync transaction while frozen"),
        1: dict(pid=11800, reason=12, description="depends on provider com.acme.inference.models in "
                                                  "dying proc com.acme.inference:ml (adj 0)"),
    }),
    "tostring-logcat": dict(kind="exit-info-tostring", count=7, skipped=1, first_skipped=9, records={
        0: dict(pid=5001, line=3, reason=3, subreason=0, importance=125, state_bytes=16,
                timestamp="7/24/24, 1:38 PM", timestamp_ms=minute_ms(2024, 7, 24, 13, 38),
                timestamp_local=True, timestamp_precision_ms=60000, package=None, uid=None),
        1: dict(pid=4870, timestamp="5/9/24, 8:44 AM", timestamp_ms=None,
                timestamp_precision_ms=60000, status=9, pss_kb=None),
        2: dict(pid=4650, timestamp="2024-07-24 01:38", timestamp_ms=minute_ms(2024, 7, 24, 1, 38),
                description="stop com.acme.inference due to from pid 4700"),
        3: dict(pid=4400, line=6, timestamp_ms=minute_ms(2024, 7, 23, 23, 2), subreason=3,
                description="too many empty", trace=None),
        4: dict(pid=4120, line=6, timestamp_ms=minute_ms(2024, 7, 23, 22, 15), reason=1, trace=None),
        5: dict(pid=3000, subreason=None, reason=4, timestamp_ms=minute_ms(2024, 7, 20, 9, 5)),
        6: dict(pid=4990, timestamp="7/24/24, 1:02\u202fPM", timestamp_ms=minute_ms(2024, 7, 24, 13, 2),
                trace="/data/system/procexitstore/anr_4990_1721826120000.gz",
                anr_info=dict(anr_id=2, anr_type=41, timeout_ms=5000, user_perceptible=True)),
    }),
    "tostring-json": dict(kind="exit-info-tostring", count=4, skipped=0, records={
        0: dict(pid=16001, line=5, timestamp="24/07/2024, 01:38",
                timestamp_ms=minute_ms(2024, 7, 24, 1, 38), pss_kb=None, rss_kb=None, trace=None),
        1: dict(pid=15880, process="com.acme.inference:ml", reason=5, status=11,
                timestamp="24.07.24, 00:12", timestamp_ms=minute_ms(2024, 7, 24, 0, 12),
                pss_kb=kb(610, "MB"), state_bytes=16, description="crash"),
        2: dict(pid=15502, timestamp_ms=minute_ms(2024, 7, 23, 22, 5),
                description='bg anr: "Broadcast of Intent" timed out',
                trace="/data/system/procexitstore/anr_15502_1721772300000.gz"),
        3: dict(pid=9000, timestamp_ms=minute_ms(2023, 12, 12, 9, 30), pss_kb=kb(12.5, "MB"),
                trace=None),
    }),
    "export-array": dict(kind="exit-info-json", count=3, skipped=0, records={
        0: dict(pid=21877, line=2, process="com.acme.inference:ml", reason=5, subreason=0,
                status=11, importance=100, pss_kb=421888, rss_kb=530432, pss_text=None,
                timestamp="1741943702907", timestamp_ms=1741943702907, timestamp_local=False,
                timestamp_precision_ms=1, description="crash", state="9f1c04d2a7be4e10",
                state_bytes=16, package=None, app_version=None),
        1: dict(pid=20311, line=16, subreason=None, state_bytes=None, state=None),
        2: dict(pid=18002, line=28, pss_kb=None, rss_kb=1153434, description=None),
    }),
    "export-object": dict(kind="exit-info-json", count=3, skipped=0, records={
        0: dict(pid=30118, line=11, package="com.acme.inference", app_version=4021,
                real_uid=10234, package_uid=10234, defining_uid=10234, state="run-7c41e0a2",
                state_bytes=12, description=None, uid=None),
        1: dict(pid=29440, app_version=4019, subreason=21,
                description="stop com.acme.inference due to from pid 29901"),
        2: dict(pid=27001, reason=42, subreason=1234, importance=230),
    }),
    "export-unknown-fields": dict(kind="exit-info-json", count=2, skipped=8, first_skipped=1,
                                  absent=["someone@example.com", "free text that must not be kept",
                                          "ACME0042", "debug menu"], records={
        0: dict(pid=100, line=6, reason=3, package="com.acme.inference"),
        1: dict(pid=None, line=17, process="com.acme.inference:ml", reason=2, status=9),
    }),
    "export-malformed": dict(kind="exit-info-json", exit=4,
                             stderr=r"lastwords: '%s': line 6: malformed JSON at column 5: "
                                    r"expected ',' or '\}', found '\"'\n$"),
    "export-truncated": dict(kind="exit-info-json", exit=4,
                             stderr=r"lastwords: '%s': line 12: malformed JSON at column 15: "
                                    r"expected a closing '\"', found the end of the input\n$"),
}


def fixture_name(fn):
    """dump-gzip.txt.gz -> dump-gzip"""
    return fn.split(".", 1)[0]


def fixtures():
    return sorted(f for f in os.listdir(DIR) if not f.endswith(".expected.json"))


def golden(lw, update):
    for fn in fixtures():
        path = os.path.join(DIR, fn)
        exp_path = os.path.join(DIR, fixture_name(fn) + ".expected.json")
        p = lastwords(lw, ["inspect", "--json", path], text=False)
        if update:
            with open(exp_path, "wb") as f:
                f.write(p.stdout)
            continue
        if not os.path.exists(exp_path):
            fail("%s: no %s (run with --update and review it)" % (fn, exp_path))
            continue
        with open(exp_path, "rb") as f:
            if f.read() != p.stdout:
                fail("%s: inspect --json differs from %s" % (fn, exp_path))


def check_fields(where, have, want):
    global checks
    for key, value in want.items():
        checks += 1
        if key not in have and value is None:
            continue
        if have.get(key, "<absent>") != value:
            fail("%s: %s is %r, expected %r" % (where, key, have.get(key, "<absent>"), value))


def meaning(lw):
    global checks
    names = {fixture_name(f): f for f in fixtures()}
    for name in sorted(set(MEANING) - set(names)):
        fail("%s: described in MEANING but no such fixture" % name)
    for name, fn in sorted(names.items()):
        want = MEANING.get(name)
        if want is None:
            fail("%s: fixture without checks in MEANING" % fn)
            continue
        path = os.path.join(DIR, fn)
        p = lastwords(lw, ["inspect", "--json", path], text=False)
        checks += 1
        if p.returncode != want.get("exit", 0):
            fail("%s: exit %d, expected %d" % (fn, p.returncode, want.get("exit", 0)))
        try:
            got = json.loads(p.stdout)[0]
        except (ValueError, IndexError):
            fail("%s: no JSON on stdout" % fn)
            continue
        check_fields(fn, got, {"kind": want["kind"], "gzipped": want.get("gzipped", False)})
        if "stderr" in want:
            err = p.stderr.decode()
            checks += 1
            if not re.match(want["stderr"] % re.escape(path), err):
                fail("%s: stderr %r does not match %r" % (fn, err, want["stderr"]))
            if "records" in got:
                fail("%s: records printed for a refused file" % fn)
            continue
        if p.stderr:
            fail("%s: unexpected stderr %r" % (fn, p.stderr.decode()))
        check_fields(fn, got, {"skipped": want["skipped"],
                               "first_skipped_line": want.get("first_skipped")})
        records = got.get("records", [])
        checks += 1
        if len(records) != want["count"]:
            fail("%s: %d records, expected %d" % (fn, len(records), want["count"]))
        for i, fields in want["records"].items():
            if i < len(records):
                check_fields("%s record %d" % (fn, i), records[i], fields)
        for text in want.get("absent", []):
            checks += 1
            if text.encode() in p.stdout:
                fail("%s: stripped text %r appears in the output" % (fn, text))
        q = lastwords(lw, ["inspect", path], text=False)
        checks += 1
        if q.returncode != 0 or ("%d record" % want["count"]).encode() not in q.stdout:
            fail("%s: text output (exit %d) does not say %d records"
                 % (fn, q.returncode, want["count"]))


def schema():
    """Exports valid against the schema; unknown fields refused by it."""
    global checks
    try:
        import jsonschema
    except ImportError:
        # The schema is part of what is tested: no validator, no pass.
        fail("python3-jsonschema is not installed (.ci/install-deps --tests installs it)")
        return
    with open(SCHEMA) as f:
        s = json.load(f)
    jsonschema.Draft7Validator.check_schema(s)
    v = jsonschema.Draft7Validator(s)
    for ex in s.get("examples", []):
        checks += 1
        if list(v.iter_errors(ex)):
            fail("%s: its own example does not validate" % SCHEMA)
    validated = 0
    for fn in fixtures():
        if not fn.endswith(".json"):
            continue
        name = fixture_name(fn)
        with open(os.path.join(DIR, fn)) as f:
            text = f.read()
        try:
            doc = json.loads(text)
        except ValueError:
            checks += 1
            if MEANING.get(name, {}).get("exit") != 4:
                fail("%s: not JSON, but not expected to be refused" % fn)
            continue
        errors = list(v.iter_errors(doc))
        checks += 1
        validated += 1
        if name == "export-unknown-fields":
            if not errors:
                fail("%s: the schema accepts unknown fields" % fn)
        elif errors:
            fail("%s: does not validate: %s" % (fn, errors[0].message))
    print("schema: %d JSON fixtures validated against %s" % (validated, SCHEMA))


def main():
    lw, _ = setup(__doc__)
    update = option("--update")
    if not fixtures():
        fail("no fixtures in %s" % DIR)
    golden(lw, update)
    if update:
        print("updated the expected outputs; review the diff")
        return 0
    meaning(lw)
    schema()
    if checks == 0:
        fail("no meaning checks ran")
    return finish("%d fixtures, %d checks" % (len(fixtures()), checks))


if __name__ == "__main__":
    sys.exit(main())
