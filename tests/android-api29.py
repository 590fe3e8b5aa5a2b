#!/usr/bin/env python3
"""Below API 30 the Android helpers that need it do nothing (on a JVM
against the stand-in android.* classes at -Dandroid.sdk=29, whose
ActivityManager lacks the API 30 methods there, as a device does):
ProcessStateSummary.open() opens the probe and sets no summary,
ExitInfoExporter.export() writes nothing and says why, and the Collector
still packs the rings, with the exit records named as missing (not
required). Skips (77) without a JDK.

usage: android-api29.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import shutil
import sys
import tempfile

from android_jvm import PROCESS, helpers, killed_run, write_records
from helpers import check, finish, setup
from jvm import jvm_or_skip


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    tmp = tempfile.mkdtemp(prefix="lw-android-29-")
    try:
        files = os.path.join(tmp, "files")
        os.mkdir(files)
        pid, ring, run_id, summary, calls, killed_at = killed_run(jvm, files, sdk=29)
        check(os.path.isfile(ring) and summary is None and calls == 0,
              "API 29: the probe is open, no summary is set: %r %d" % (summary, calls))
        records = os.path.join(tmp, "records.tsv")
        write_records(records, [{"pid": pid, "process": PROCESS, "reason": 3,
                                 "timestamp": int(killed_at * 1000)}])
        out = os.path.join(tmp, "export")
        p = helpers(jvm, ["export", out, records], sdk=29)
        check("sdk 29 exported false records 0" in p.stdout and "API 29" in p.stdout and
              not os.path.exists(out), "API 29: the exporter writes nothing: %r" % p.stdout)
        ext = os.path.join(tmp, "external")
        p = helpers(jvm, ["collect", files, ext, records], sdk=29)
        bundle = p.stdout.split()[-1] if p.stdout.startswith("bundle ") else "-"
        check(bundle != "-" and os.path.isdir(os.path.join(bundle, "rings")) and
              not os.path.exists(os.path.join(bundle, "exit-info.json")),
              "API 29: the Collector packs the rings alone: %r" % p.stdout)
        if bundle != "-":
            with open(os.path.join(bundle, "manifest.json")) as f:
                m = json.load(f)
            ex = [x for x in m["missing"] if x["what"] == "exit records"]
            check(ex and not ex[0]["required"] and m["complete"] is True,
                  "API 29: the exit records are missing, not required: %r" % m["missing"])
    finally:
        shutil.rmtree(tmp)
    return finish("API 29: no summary, no export, the rings collected")


if __name__ == "__main__":
    sys.exit(main())
