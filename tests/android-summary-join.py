#!/usr/bin/env python3
"""ProcessStateSummary: the run id that the :inference process hands to
setProcessStateSummary() at open (ProcessStateSummary.open(), on a JVM
against the stand-in android.* classes) is the 32 ASCII bytes of the
ring's run id, and the exit record that ExitInfoExporter writes with it
joins that ring exactly, by the run id, even when its pid and time would
not (another pid, three days after the run). The same record with another
run's id joins nothing. Skips (77) without a JDK.

usage: android-summary-join.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from android_jvm import PACKAGE, PROCESS, helpers, killed_run, write_records
from helpers import check, finish, report_json, setup
from jvm import jvm_or_skip


def export_and_report(lw, jvm, tmp, files, name, record):
    out = os.path.join(tmp, name)
    records = out + ".tsv"
    write_records(records, [record])
    helpers(jvm, ["export", out, records])
    with open(os.path.join(out, "exit-info.json")) as f:
        doc = json.load(f)
    rep, _ = report_json(lw, ["--package", PACKAGE, files, out])
    return doc["records"][0], rep


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    tmp = tempfile.mkdtemp(prefix="lw-android-join-")
    try:
        files = os.path.join(tmp, "files")
        os.mkdir(files)
        pid, ring, run_id, summary, calls, killed_at = killed_run(jvm, files)
        check(summary == run_id and len(summary.encode("ascii")) == 32 and calls == 1,
              "the summary is the run id's 32 ASCII bytes, set once: %r (%d calls)" %
              (summary, calls))
        far = {"pid": pid + 7, "process": PROCESS, "reason": 2, "status": 9, "importance": 200,
               "timestamp": int(killed_at * 1000) + 3 * 86400 * 1000}

        rec, rep = export_and_report(lw, jvm, tmp, files, "joined", dict(far, summary=summary))
        check(rec.get("processStateSummary") == run_id, "exported: %r" % rec)
        if rep:
            r = [x for x in rep["runs"] if x.get("run_id") == run_id]
            joined = [e.get("joined_by") for e in (r[0].get("exit_records", []) if r else [])]
            check(joined == ["run id"], "the record of pid %d, three days on, joins the ring "
                  "of pid %d by its run id: %r" % (pid + 7, pid, joined))
            check(not rep.get("unmatched_exit_records"), "nothing unmatched: %r" %
                  rep.get("unmatched_exit_records"))

        other = "0123456789abcdef0123456789abcdef"
        rec, rep = export_and_report(lw, jvm, tmp, files, "other", dict(far, summary=other))
        if rep:
            r = [x for x in rep["runs"] if x.get("run_id") == run_id]
            check(r and not r[0].get("exit_records"),
                  "another run's id joins nothing: %r" % (r and r[0].get("exit_records")))
    finally:
        shutil.rmtree(tmp)
    return finish("ProcessStateSummary: the run id joins its ring exactly (run %d)" % pid)


if __name__ == "__main__":
    sys.exit(main())
