#!/usr/bin/env python3
"""What lastwords writes for machines is valid UTF-8 whatever bytes the
evidence holds, and a NUL byte does not cut a field short:
- inspect --json of an exit-info dump whose descriptions are random bytes
  (control bytes, NUL, bytes 0x80 to 0xff) gives each description as
  Python decodes those bytes with errors="replace" (U+FFFD for each
  maximal subpart of a bad sequence), the NUL as \\u0000;
- a C0 80 pair (NUL in modified UTF-8) reads as a NUL;
- the JSON report, the NDJSON export and history --format json of a
  bundle with such a description decode as strict UTF-8 and keep the text
  after the NUL; the CSV export decodes too, the NUL as U+FFFD.

usage: output-utf8.py LASTWORDS SOURCE_ROOT
"""
import csv
import io
import json
import os
import random
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, setup

RECORD = (b"        ApplicationExitInfo #%d:\n"
          b"          timestamp=2026-11-30 01:28:04.873 pid=%d realUid=10187 packageUid=10187 "
          b"definingUid=10187 user=0\n"
          b"          process=com.example.demo:inference reason=3 (LOW_MEMORY) subreason=0 (UNKNOWN) "
          b"status=0\n"
          b"          importance=125 pss=104MB rss=118MB description=<%s> state=empty trace=null\n")
HEAD = (b"ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)\n"
        b"  package: com.example.demo\n"
        b"    Historical Process Exit for uid=10187\n")
# Bad bytes of every kind, a NUL with text after it, and an escape sequence.
HOSTILE = (b"cr\xff\xfeash \xc3 \xe0\x80\x80 \xed\xa0\x80 \xf0\x9f\x98 \xf4\x90\x80\x80 "
           b"\x1b[2J A\x00after-the-nul \xc0\x80 \xe2\x82\xac")


def random_bytes(rng):
    """Bytes a parser keeps as they are: no line ends; no 0xc0, which
    lastwords reads with the 0x80 after it as a NUL (checked on its own)."""
    pool = [b for b in range(256) if b not in (0x0a, 0x0d, 0xc0)]
    weights = [1 if b < 0x80 else 4 for b in pool]
    out = bytes(rng.choices(pool, weights, k=rng.randrange(0, 40)))
    if rng.random() < 0.3:
        out += "é€😀".encode()[rng.randrange(0, 9):]
    return out


def strict(data, what):
    """data decoded as strict UTF-8, or None with a failure."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s is not valid UTF-8: %s" % (what, e))
        return None


def main():
    lw, root = setup("usage: output-utf8.py LASTWORDS SOURCE_ROOT")
    rng = random.Random(10)
    with tempfile.TemporaryDirectory() as tmp:
        # The parser and the JSON writer against Python's decoder.
        descs = [random_bytes(rng) for _ in range(300)] + [HOSTILE]
        dump = os.path.join(tmp, "exit-info.txt")
        with open(dump, "wb") as f:
            f.write(HEAD + b"".join(RECORD % (i, 20000 + i, d) for i, d in enumerate(descs)))
        p = lastwords(lw, ["inspect", "--json", dump], text=False)
        check(p.returncode == 0, "inspect --json exits %d: %r" % (p.returncode, p.stderr))
        text = strict(p.stdout, "inspect --json")
        records = json.loads(text)[0]["records"] if text else []
        check(len(records) == len(descs), "inspect reads %d records, want %d" % (len(records), len(descs)))
        wrong = 0
        for d, r in zip(descs, records):
            want = "<%s>" % d.replace(b"\xc0\x80", b"\x00").decode("utf-8", "replace")
            if r.get("description") != want and wrong < 5:
                check(False, "description of %r: %r, want %r" % (d, r.get("description"), want))
            wrong += r.get("description") != want
        check(wrong == 0, "%d of %d descriptions as Python decodes them" % (len(descs) - wrong, len(descs)))
        check(b"\\u0000after-the-nul" in p.stdout, "the NUL is written as \\u0000, the text after it kept")

        # The report, the history and the export of a bundle.
        bundle = os.path.join(tmp, "demo")
        shutil.copytree("fixtures/demo", bundle)
        path = os.path.join(bundle, "dumpsys-exit-info.txt")
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data.replace(b"description=crash state", b"description=" + HOSTILE + b" state", 1))
        want = HOSTILE.replace(b"\xc0\x80", b"\x00").decode("utf-8", "replace")
        p = lastwords(lw, ["report", "--tz", "+01:00", "--format", "json", bundle], text=False)
        text = strict(p.stdout, "report --format json")
        report = json.loads(text) if text else {"runs": []}
        found = [e["description"] for r in report["runs"] for e in r["exit_records"]
                 if e["description"] and e["description"].startswith("cr")]
        check(found == [want], "the report's description: %r, want %r" % (found, want))
        evidence = [e for r in report["runs"] for e in r["evidence"] if "after-the-nul" in e]
        check(len(evidence) == 1, "the evidence line quotes the description past the NUL: %r" % evidence)

        db = os.path.join(tmp, "history.db")
        p = lastwords(lw, ["ingest", "--db", db, "--tz", "+01:00", bundle])
        check(p.returncode == 0, "ingest: %d %s" % (p.returncode, p.stderr))
        p = lastwords(lw, ["export", "--db", db, "--format", "ndjson"], text=False)
        text = strict(p.stdout, "export --format ndjson")
        rows = [json.loads(line) for line in text.splitlines()] if text else []
        found = [r["exit_description"] for r in rows if r["exit_description"]]
        check(found == [want], "the NDJSON row's description: %r, want %r" % (found, want))
        found = [e for r in rows for e in r["evidence"] if "after-the-nul" in e]
        check(len(found) == 1, "the NDJSON row's evidence keeps the description past the NUL: %r" % found)
        p = lastwords(lw, ["export", "--db", db, "--format", "csv"], text=False)
        text = strict(p.stdout, "export --format csv")
        table = list(csv.reader(io.StringIO(text, newline=""))) if text else [["exit_description"]]
        col = table[0].index("exit_description")
        found = [c[col] for c in table[1:] if c[col]]
        check(found == [want.replace("\x00", "\ufffd")],
              "the CSV cell, the NUL as U+FFFD: %r" % found)
        p = lastwords(lw, ["history", "--db", db, "--format", "json", "--by", "process"], text=False)
        check(p.returncode == 0, "history exits %d" % p.returncode)
        strict(p.stdout, "history --format json")
    return finish("output-utf8: %d descriptions, the report, the history and the export" % len(descs))


sys.exit(main())
