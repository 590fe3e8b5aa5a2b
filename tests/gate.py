#!/usr/bin/env python3
"""lastwords gate on a device matrix that the real probe writes in forked
children (tests/gate-matrix.c, two devices):

- the matrix alone says re-enable (exit 0): every checklist item holds, the
  matrix's cells are as the runs left them (first_load passed after its two
  deaths, cache_rebuild's scenario read from the rings' mark, the
  scenarios not run said so), and the JSON follows schemas/gate.schema.json;
  the text and the HTML page say the same, the page with the class and
  level colours of the report's page (one table, html.c), each of its
  times saying UTC;
- each mutation fails exactly one item (exit 15, not yet): a device's cold
  start missing (app_starts), the suspect loaded after the quarantine in
  another scenario (suspect_isolated), a clean run with a session left open
  (released), a device's re-verification missing (reverified), and the
  re-verification dying on one device (reverified);
- the original deaths read from the history (--history DB, ingested from
  their bundles) re-enable as the bundles do; without them, or without a
  device's re-verification, reverified fails (and, with no death at all,
  suspect_isolated: the re-verification runs are then mere loads); a
  database that is not there
  exits 11;
- a stable candidate given that never ran fails stable_revertible; the
  stable candidate's receipt is asked for only when the app records
  receipts: with none recorded the matrix re-enables, with receipts of
  another candidate only stable_revertible fails, naming the receipt;
- a manifest's scenario outside the vocabulary is named, not guessed; a
  device model is escaped in the page; an input that cannot be read exits
  4 whatever the verdict; a missing --candidate is a usage error.

usage: gate.py LASTWORDS SOURCE_ROOT GATE_MATRIX
"""
import json
import os
import shutil
import tempfile

from helpers import check, finish, lastwords, run, schema_errors, setup, vocab
from html_check import check_class_level_colours, root_colours, unzoned_times

ITEMS = ["app_starts", "stable_revertible", "suspect_isolated", "released", "reverified"]
EXIT_NOT_YET = 15
MARK, MARK_RECEIPT = 4, 12  # vocab.h: the event type mark, the mark receipt


def gate(lw, inputs, extra=(), fmt="json"):
    p = lastwords(lw, ["gate", "--candidate", "model-v3"] + list(extra) + ["--format", fmt] + inputs)
    g = None
    if fmt == "json" and p.stdout:
        g = json.loads(p.stdout)
        for e in schema_errors("schemas/gate.schema.json", g):
            check(False, "gate %s: schema: %s" % (" ".join(extra), e))
    return p, g


def failing(g):
    return [c["item"] for c in g["checklist"] if not c["holds"]]


def main():
    lw, root, generator = setup("usage: gate.py LASTWORDS SOURCE_ROOT GATE_MATRIX", 1)
    generator = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", ""), generator)
    with open("schemas/gate.schema.json") as f:
        enum = json.load(f)["definitions"]["scenario"]["enum"]
    check(enum == vocab("LW_SCENARIOS"), "schemas/gate.schema.json scenarios %r, vocab.h %r"
          % (enum, vocab("LW_SCENARIOS")))
    tmp = tempfile.mkdtemp(prefix="lw-gate-")
    try:
        p = run([generator, tmp])
        if not check(p.returncode == 0, "gate-matrix: %s%s" % (p.stdout, p.stderr)):
            return finish("gate")
        mdir, xdir = os.path.join(tmp, "matrix"), os.path.join(tmp, "extra")
        matrix = sorted(os.path.join(mdir, d) for d in os.listdir(mdir))

        p, g = gate(lw, matrix)
        check(p.returncode == 0 and g and g["verdict"] == "re-enable" and not failing(g),
              "the matrix: exit %d, %s, failing %r" % (p.returncode, g and g["verdict"],
                                                      g and failing(g)))
        if g:
            cells = {(c["device"], c["scenario"]): c for c in g["matrix"]}
            check(g["devices"] == ["Pixel 8", "SM-S918B"], "devices %r" % g["devices"])
            for dev in g["devices"]:
                fl = cells[(dev, "first_load")]
                check(fl["state"] == "passed" and fl["deaths"] == 2 and fl["runs"] == 3,
                      "%s first_load: %r" % (dev, fl))
                check(cells[(dev, "cold_start")]["state"] == "passed" and
                      cells[(dev, "cache_rebuild")]["state"] == "passed" and
                      cells[(dev, "concurrent")]["state"] == "not_run",
                      "%s: cells %r" % (dev, [(k[1], c["state"]) for k, c in cells.items()
                                              if k[0] == dev]))
            froms = {os.path.basename(i["path"]): i["scenario_from"] for i in g["inputs"]}
            check(froms["Pixel_8-cache_rebuild"] == "mark" and froms["Pixel_8-cold_start"] ==
                  "manifest" and froms["Pixel_8-history"] is None, "scenario sources %r" % froms)
            check(g["stable_from"] == "advice" and g["stable_candidate"] ==
                  lastwords(lw, ["digest", "model-v2"]).stdout.split()[0],
                  "stable %r from %r" % (g["stable_candidate"], g["stable_from"]))
            check(all(c["proof"] for c in g["checklist"]), "an item holds with no proof")
        text = lastwords(lw, ["gate", "--candidate", "model-v3"] + matrix).stdout
        check("verdict    re-enable" in text and "first_load           passed (after 2 earlier "
              "deaths)" in text, "text:\n%s" % text)
        html = lastwords(lw, ["gate", "--candidate", "model-v3", "--format", "html"] + matrix).stdout
        check('data-verdict="re-enable"' in html and html.count('data-holds="yes"') == 5 and
              "<script" not in html, "the page does not say re-enable")
        check_class_level_colours("gate page", html)
        check(not unzoned_times(html, "UTC"), "the gate page's times without a zone: %s" %
              unzoned_times(html, "UTC"))
        report = lastwords(lw, ["report", "--format", "html"] + matrix).stdout
        check(root_colours(html) == root_colours(report), "the gate page's colours %s, the report's %s" %
              (root_colours(html), root_colours(report)))

        def without(*names):
            return [m for m in matrix if os.path.basename(m) not in names]

        mutations = [
            ("a missing cold start", without("SM-S918B-cold_start"), "app_starts"),
            ("the suspect loaded after the quarantine",
             matrix + [os.path.join(xdir, "Pixel_8-suspect-loaded")], "suspect_isolated"),
            ("an unpaired stage", matrix + [os.path.join(xdir, "Pixel_8-unpaired")], "released"),
            ("the original path not re-run", without("SM-S918B-reverify"), "reverified"),
            ("a death on one device",
             without("SM-S918B-reverify") + [os.path.join(xdir, "SM-S918B-reverify-died")],
             "reverified"),
        ]
        for what, inputs, item in mutations:
            p, g = gate(lw, inputs)
            check(p.returncode == EXIT_NOT_YET and g and g["verdict"] == "not yet" and
                  failing(g) == [item], "%s: exit %d, failing %r, expected [%r]"
                  % (what, p.returncode, g and failing(g), item))
        # The original deaths from the history rather than the bundles.
        db = os.path.join(tmp, "history.db")
        deaths = [m for m in matrix if "-death-" in m]
        p = lastwords(lw, ["ingest", "--db", db] + deaths)
        check(p.returncode == 0, "ingest of the deaths: %s" % p.stderr)
        rest = [m for m in matrix if m not in deaths]
        p, g = gate(lw, rest, ["--history", db])
        check(p.returncode == 0 and g and not failing(g) and
              sum("(history: " in line for c in g["checklist"] for line in c["proof"]) == 4,
              "--history: exit %d, failing %r" % (p.returncode, g and failing(g)))
        # Without them the re-verification runs are loads of the suspect too.
        p, g = gate(lw, rest)
        check(p.returncode == EXIT_NOT_YET and g and
              failing(g) == ["suspect_isolated", "reverified"],
              "without the deaths: failing %r" % (g and failing(g)))
        p, g = gate(lw, [m for m in rest if not m.endswith("SM-S918B-reverify")], ["--history", db])
        check(p.returncode == EXIT_NOT_YET and g and failing(g) == ["reverified"] and
              sum("(history: SM-S918B, first_load, in delegate_prepare)" in line
                  for line in g["checklist"][4]["missing"]) == 2,
              "--history without SM-S918B's re-verification: %r" % (g and g["checklist"][4]))
        p = lastwords(lw, ["gate", "--candidate", "model-v3", "--history",
                           os.path.join(tmp, "none.db")] + rest)
        check(p.returncode == 11, "--history of no database: exit %d" % p.returncode)
        p, g = gate(lw, matrix, ["--stable", "model-v9"])
        check(p.returncode == EXIT_NOT_YET and g and failing(g) == ["stable_revertible"],
              "--stable model-v9: failing %r" % (g and failing(g)))

        # The stable candidate's receipt is asked for only when the app
        # records receipts (lastwords(1), gate): with every receipt mark
        # made another (runtime_version), the matrix still re-enables; with
        # the receipts naming another candidate, stable_revertible fails
        # and says so.
        from helpers import ring_edit
        for what, code, item, said in (("no receipt recorded", 6, [], None),
                                        ("receipts of another candidate only", 12,
                                         ["stable_revertible"], "no receipt of ")):
            copy = os.path.join(tmp, "receipts-%d" % code)
            shutil.copytree(mdir, copy)
            edited = 0
            for dp, _, fs in os.walk(copy):
                for f in fs:
                    if not f.endswith(".lwr"):
                        continue
                    found = []

                    def receipt(ticket, slot, code=code, found=found):
                        if slot[16] == MARK and slot[18] == MARK_RECEIPT:
                            slot[18] = code
                            slot[32:40] = (0x1234).to_bytes(8, "little")
                            found.append(ticket)
                    ring_edit(os.path.join(dp, f), os.path.join(dp, f), slot=receipt)
                    edited += len(found)
            p, g = gate(lw, sorted(os.path.join(copy, d) for d in os.listdir(copy)))
            missing = g and g["checklist"][ITEMS.index("stable_revertible")]["missing"]
            check(edited > 0 and g and failing(g) == item and
                  (said is None or any(said in m for m in missing)),
                  "%s (%d receipts edited): exit %d, failing %r, missing %r" %
                  (what, edited, p.returncode, g and failing(g), missing))

        # A manifest's unknown scenario, and a device model to escape.
        odd = os.path.join(tmp, "odd")
        shutil.copytree(os.path.join(mdir, "Pixel_8-repeated_entry"), odd)
        with open(os.path.join(odd, "manifest.json"), "w") as f:
            json.dump({"kind": "lastwords-pull", "device": {"model": "<b>Pixel</b> & 'x'"},
                       "scenario": "warm_start"}, f)
        p, g = gate(lw, matrix + [odd])
        unk = [i for i in (g or {}).get("inputs", []) if i["path"] == odd]
        check(unk and unk[0]["unknown_scenario"] == "warm_start" and
              unk[0]["scenario"] == "repeated_entry" and unk[0]["scenario_from"] == "mark",
              "an unknown scenario: %r" % unk)
        html = lastwords(lw, ["gate", "--candidate", "model-v3", "--format", "html"] +
                         matrix + [odd]).stdout
        check("&lt;b&gt;Pixel&lt;/b&gt; &amp; &#39;x&#39;" in html and "<b>Pixel" not in html,
              "the device model is not escaped in the page")
        p, _ = gate(lw, matrix + [os.path.join(tmp, "no-such-bundle")])
        check(p.returncode == 4 and "no-such-bundle" in p.stderr, "an unreadable input: exit %d, %r"
              % (p.returncode, p.stderr))
        p = lastwords(lw, ["gate"] + matrix)
        check(p.returncode == 2 and "--candidate" in p.stderr, "no --candidate: exit %d"
              % p.returncode)
    finally:
        shutil.rmtree(tmp)
    return finish("gate: the matrix re-enables; %d mutations each fail one item" % 5)


if __name__ == "__main__":
    raise SystemExit(main())
