#!/usr/bin/env python3
"""Each piece of a bug report goes through the existing parsers (issue 11,
part 2): every real sample of ../shared/corpus (dumps, tombstones, ANR
traces, logcats, event logs), put into a bug report where a device's
dumpstate puts it (tests/bugreports.py: a section of the main text, with
logcat's "-v uid" column where it prints one; or an FS/data/ entry), gives
the records it gives inspected alone, the same fields, at the main text's
lines for a section. Skips (77) when the corpus is absent.

usage: evidence-bugreport-corpus.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import tempfile

from bugreports import BugReport, kinds
from helpers import check, corpus_or_skip, finish, lastwords, setup

# What differs in a section, by design: its line is the main text's, and
# its logcat lines are dumpstate's "-v uid" ones.
DIFFER = ("line", "format")


def records(lw, path):
    p = lastwords(lw, ["inspect", "--json", path])
    try:
        return {x["file"]: x for x in json.loads(p.stdout)}
    except ValueError:
        return {}


def strip(recs):
    return [{k: v for k, v in r.items() if k not in DIFFER} for r in recs or []]


def main():
    lw, root = setup(__doc__)
    corpus = corpus_or_skip(root)
    files = sorted(os.path.join(corpus, f) for f in os.listdir(corpus) if f.endswith(".txt"))
    found = kinds(lw, files)
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            kind = found.get(f)
            br = BugReport("2025-06-10 23:59:00", "UTC", 0)
            with open(f, errors="surrogateescape") as fh:
                text = fh.read()
            if not br.add(kind, f, text):
                continue
            n += 1
            z = br.write_zip(os.path.join(tmp, "%d.zip" % n))
            alone = next(iter(records(lw, f).values()), {})
            got = records(lw, z)
            if kind == "tombstone":
                piece = "%s:FS/data/tombstones/tombstone_00" % z
            elif kind == "anr-trace":
                piece = "%s:FS/data/anr/%s" % (z, br.anrs[0][0])
            else:
                title = {"logcat": "SYSTEM LOG", "event-log": "EVENT LOG",
                         "exit-info-dump": "DUMP OF SERVICE activity"}[kind]
                piece = "%s:%s:%s" % (z, br.main_name(), title)
            mine = got.get(piece, {})
            name = os.path.basename(f)
            check(mine.get("kind") == kind, "%s (%s): read as %s" % (name, kind, mine.get("kind")))
            want = alone.get("records") or []
            have = mine.get("records") or []
            same = strip(have) == strip(want) if kind not in ("tombstone", "anr-trace") else have == want
            if not check(same and want, "%s: its %d records in the bug report are those read alone (%d)"
                         % (name, len(have), len(want))):
                for a, b in zip(strip(want), strip(have)):
                    if a != b:
                        print("  alone   %s\n  in it   %s" % (a, b))
                        break
    return finish("%d corpus samples read through a bug report" % n)


if __name__ == "__main__":
    raise SystemExit(main())
