#!/usr/bin/env python3
"""ExitInfoExporter on a JVM against the stand-in android.* classes: a real
ring (the :inference process opened through ProcessStateSummary.open(),
killed mid-inference) and the system's exit records of the app, one for
that kill with the summary the process set, an ANR of the main process
with its trace, and a native crash with its tombstone protobuf. The
export validates against schemas/exit-info.schema.json, holds the
summary, saves the traces under the names the schema gives, byte for
byte, and `lastwords report` on the ring and the export gives the right
verdicts: low_memory in inference joined by the run id, the ANR
confirmed by the record and its trace, the native crash from its record
and its tombstone, read from the
protobuf. Skips (77) without a JDK.

usage: android-exit-info.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from android_jvm import PACKAGE, PROCESS, helpers, killed_run, write_records
from helpers import check, finish, report_json, schema_errors, setup
from jvm import jvm_or_skip
from tombstone_pb import tombstone

ANR_PID, NATIVE_PID = 30001, 30002


def anr_trace(root, pid, process, when):
    """The fixture's ANR trace, of pid and process at when."""
    with open(os.path.join(root, "fixtures", "evidence", "anr", "classic-main-blocked.txt")) as f:
        text = f.read()
    return (text.replace("8123", str(pid)).replace("com.example.notes", process)
            .replace("2024-03-02 10:11:12.480219733+0000", when))


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    tmp = tempfile.mkdtemp(prefix="lw-android-exit-")
    try:
        files = os.path.join(tmp, "files")
        os.mkdir(files)
        pid, ring, run_id, summary, calls, killed_at = killed_run(jvm, files)
        check(summary == run_id and calls == 1,
              "ProcessStateSummary.open() set the run id once: %r %d" % (summary, calls))
        t = int(killed_at * 1000)
        traces = os.path.join(tmp, "given")
        os.mkdir(traces)
        anr = os.path.join(traces, "anr")
        with open(anr, "w") as f:
            f.write(anr_trace(root, ANR_PID, PACKAGE, "2026-11-30 00:28:04.675219733+0000"))
        pb = os.path.join(traces, "pb")
        with open(pb, "wb") as f:
            # written by debuggerd just before the system recorded the exit (1795998400000)
            f.write(tombstone(NATIVE_PID, PROCESS, when="2026-11-30 01:26:39.950+0100"))
        records = os.path.join(tmp, "records.tsv")
        write_records(records, [
            {"pid": pid, "process": PROCESS, "reason": 3, "timestamp": t + 40, "rss": 96 * 1024, "importance": 200,
             "summary": summary},
            {"pid": ANR_PID, "process": PACKAGE, "reason": 6, "importance": 100,
             "timestamp": 1795998484675, "trace": anr,
             "description": "user request after error: Input dispatching timed out"},
            {"pid": NATIVE_PID, "process": PROCESS, "reason": 5, "status": 11,
             "timestamp": 1795998400000, "trace": pb, "description": "crash"},
        ])
        out = os.path.join(tmp, "export")
        p = helpers(jvm, ["export", out, records])
        check("exported true records 3 traces 2" in p.stdout, "the result: %r" % p.stdout)

        with open(os.path.join(out, "exit-info.json")) as f:
            doc = json.load(f)
        for e in schema_errors("schemas/exit-info.schema.json", doc):
            check(False, "exit-info.json against the schema: %s" % e)
        recs = {r["pid"]: r for r in doc["records"]}
        mine = recs.get(pid, {})
        check(mine.get("processStateSummary") == run_id and
              mine.get("processStateSummaryLength") == 32,
              "the killed run's record holds its run id: %r" % mine)
        check(doc.get("packageName") == PACKAGE and "appVersion" not in doc and
              doc.get("device", {}).get("sdkInt") == 30, "the export's head: %r" %
              {k: v for k, v in doc.items() if k != "records"})
        check(recs.get(ANR_PID, {}).get("processStateSummary") is None and
              recs.get(ANR_PID, {}).get("processStateSummaryLength") == 0,
              "no summary is null, length 0: %r" % recs.get(ANR_PID))
        names = sorted(os.listdir(os.path.join(out, "traces")))
        want = ["anr.%d.1795998484675.txt" % ANR_PID, "tombstone.%d.1795998400000.pb" % NATIVE_PID]
        check(names == want, "the traces' names: %s" % names)
        for name, given in zip(want, (anr, pb)):
            with open(os.path.join(out, "traces", name), "rb") as a, open(given, "rb") as b:
                check(a.read() == b.read(), "%s is the trace, byte for byte" % name)

        rep, inputs = report_json(lw, ["--package", PACKAGE, files, out])
        if rep:
            runs = {r["pid"]: r for r in rep["runs"]}
            r = runs.get(pid, {})
            check((r.get("classification"), r.get("last_stage")) == ("low_memory", "inference"),
                  "the ring: low_memory in inference: %r" % {k: r.get(k) for k in (
                      "classification", "evidence_level", "last_stage", "rules")})
            joined = [e.get("joined_by") for e in r.get("exit_records", [])]
            check(joined == ["run id"],
                  "its record joined by the run id: %r" % joined)
            a = runs.get(ANR_PID, {})
            check((a.get("classification"), a.get("evidence_level")) == ("anr", "confirmed"),
                  "the ANR: confirmed by its record and trace: %r %r" % (
                      a.get("classification"), a.get("evidence_level")))
            n = runs.get(NATIVE_PID, {})
            check(n.get("classification") == "native_crash",
                  "the native crash from its record: %r" % n.get("classification"))
            pbx = inputs.get(os.path.join(out, "traces", want[1]), {})
            check(pbx.get("kind") == "tombstone" and "skipped" not in pbx,
                  "the protobuf is read as a tombstone: %r" % pbx)
            check("tombstone" in n.get("rules", []),
                  "the native crash's tombstone, from the protobuf: %r" % n.get("rules"))
    finally:
        shutil.rmtree(tmp)
    return finish("ExitInfoExporter: valid against the schema, the summary, the traces; the "
                  "report's verdicts (run %d)" % pid)


if __name__ == "__main__":
    sys.exit(main())
