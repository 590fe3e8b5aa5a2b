#!/usr/bin/env python3
"""lastwords gate on a device matrix that the real probe writes in forked
children (tests/gate-matrix.c, two devices, every scenario, app version 7):

- the matrix alone says re-enable (exit 0): every checklist item holds, the
  matrix's cells are as the runs left them (first_load passed after its two
  deaths, cache_rebuild's scenario read from the rings' mark, every
  scenario passed), and the JSON follows schemas/gate.schema.json; its
  scope names the release, both devices and the eight scenarios, and its
  sentence, built here from the devices and vocab.h's scenarios, is the one
  the text and the HTML page print; the page has the class and level
  colours of the report's page (one table, html.c), each of its times
  saying UTC;
- each mutation fails exactly the items it should (exit 15, not yet): a
  device's cold start missing (app_starts, and covered: cold_start never
  ran there), one device missing one scenario (covered alone, naming the
  pair, in the sentence too), the suspect loaded after the quarantine in
  another scenario (suspect_isolated), a clean run with a session left open
  (released), a device's re-verification missing (reverified), the
  re-verification dying on one device (reverified), and the
  re-verification run by the older app version 6 (reverified: it proves
  nothing for 7);
- the release: a cold start of app version 6 mixed in is named (in the
  scope's count and sentence, the input's versions, the text's notes, the
  page) and changes nothing; when it is a device's only cold start,
  app_starts and covered fail; --app-version 7 is the same verdict,
  --app-version 99 (no input's) is not yet saying so, with every item that
  needs the release's clean runs failing; rings that record no app version
  all count, the sentence saying the gate cannot tell builds apart;
- --require: cold_start,first_load re-enables a matrix that runs only those
  (which without it fails covered, naming the six others per device);
  names are kept once, in order; an unknown name (named), an empty list or
  name, and a bad --app-version are usage errors (exit 2, nothing printed);
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
  4 whatever the verdict; a missing --candidate, or digest 0 (no
  candidate) for --candidate or --stable, is a usage error.

usage: gate.py LASTWORDS SOURCE_ROOT GATE_MATRIX
"""
import json
import os
import shutil
import tempfile

from helpers import check, finish, lastwords, run, schema_errors, setup, vocab
from html_check import check_class_level_colours, root_colours, unzoned_times

ITEMS = ["app_starts", "stable_revertible", "suspect_isolated", "released", "reverified", "covered"]
RELEASE, OLDER = 7, 6  # tests/gate-matrix.c: the app versions of its runs
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


def lacking(g, item):
    return g["checklist"][ITEMS.index(item)]["missing"] if g else None


def reenable_sentence(devices, scenarios, all_scenarios):
    """The scope's sentence for a re-enable (lastwords(1), gate), from its
    parts."""
    subset = scenarios != all_scenarios
    return ("re-enable for these %d devices (%s) and %d scenarios%s of app version %d; "
            "other devices%s untested" %
            (len(devices), ", ".join(devices), len(scenarios),
             " (%s)" % ", ".join(scenarios) if subset else "", RELEASE,
             " and scenarios" if subset else ""))


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

        scenarios = vocab("LW_SCENARIOS")
        devices = ["Pixel 8", "SM-S918B"]
        sentence = reenable_sentence(devices, scenarios, scenarios)
        p, g = gate(lw, matrix)
        check(p.returncode == 0 and g and g["verdict"] == "re-enable" and not failing(g),
              "the matrix: exit %d, %s, failing %r" % (p.returncode, g and g["verdict"],
                                                      g and failing(g)))
        cells = {}
        if g:
            cells = {(c["device"], c["scenario"]): c for c in g["matrix"]}
            check(g["devices"] == devices, "devices %r" % g["devices"])
            for dev in g["devices"]:
                fl = cells[(dev, "first_load")]
                check(fl["state"] == "passed" and fl["deaths"] == 2 and fl["runs"] == 3,
                      "%s first_load: %r" % (dev, fl))
                check(all(cells[(dev, s)]["state"] == "passed" and cells[(dev, s)]["other_runs"] == 0
                          for s in scenarios),
                      "%s: cells %r" % (dev, [(k[1], c["state"]) for k, c in cells.items()
                                              if k[0] == dev]))
            sc = g["scope"]
            check(sc["app_version"] == RELEASE and sc["app_version_from"] == "newest" and
                  sc["release_runs"] == sum(i["runs"] for i in g["inputs"]) and
                  sc["other_versions"] == [] and sc["other_versions_text"] is None and
                  all(i["app_versions"] == [RELEASE] for i in g["inputs"]),
                  "the matrix's release: %r" % {k: v for k, v in sc.items() if k != "seen"})
            check(sc["devices"] == devices and sc["required"] == scenarios and
                  sc["required_from"] == "default" and
                  sc["seen"] == [{"device": d, "scenarios": scenarios} for d in devices],
                  "the matrix's scope: %r" % sc)
            check(sc["sentence"] == sentence, "the sentence %r, expected %r"
                  % (sc["sentence"], sentence))
            froms = {os.path.basename(i["path"]): i["scenario_from"] for i in g["inputs"]}
            check(froms["Pixel_8-cache_rebuild"] == "mark" and froms["Pixel_8-cold_start"] ==
                  "manifest" and froms["Pixel_8-history"] is None, "scenario sources %r" % froms)
            check(g["stable_from"] == "advice" and g["stable_candidate"] ==
                  lastwords(lw, ["digest", "model-v2"]).stdout.split()[0],
                  "stable %r from %r" % (g["stable_candidate"], g["stable_from"]))
            check(all(c["proof"] for c in g["checklist"]), "an item holds with no proof")
        text = lastwords(lw, ["gate", "--candidate", "model-v3"] + matrix).stdout
        check("verdict    %s\n" % sentence in text and "first_load           passed (after 2 "
              "earlier deaths)" in text and "release    app version %d" % RELEASE in text,
              "text:\n%s" % text)
        html = lastwords(lw, ["gate", "--candidate", "model-v3", "--format", "html"] + matrix).stdout
        check('data-verdict="re-enable"' in html and html.count('data-holds="yes"') == 6 and
              "<script" not in html, "the page does not say re-enable")
        check('<p class="verdict" data-verdict="re-enable">%s</p>' % sentence in html,
              "the page's verdict is not %r" % sentence)
        check_class_level_colours("gate page", html)
        check(not unzoned_times(html, "UTC"), "the gate page's times without a zone: %s" %
              unzoned_times(html, "UTC"))
        report = lastwords(lw, ["report", "--format", "html"] + matrix).stdout
        check(root_colours(html) == root_colours(report), "the gate page's colours %s, the report's %s" %
              (root_colours(html), root_colours(report)))

        def without(*names):
            return [m for m in matrix if os.path.basename(m) not in names]

        def extra(name):
            return os.path.join(xdir, name)

        mutations = [
            ("a missing cold start", without("SM-S918B-cold_start"), ["app_starts", "covered"]),
            ("a device missing a scenario", without("SM-S918B-background"), ["covered"]),
            ("the suspect loaded after the quarantine",
             matrix + [extra("Pixel_8-suspect-loaded")], ["suspect_isolated"]),
            ("an unpaired stage", matrix + [extra("Pixel_8-unpaired")], ["released"]),
            ("the original path not re-run", without("SM-S918B-reverify"), ["reverified"]),
            ("a death on one device",
             without("SM-S918B-reverify") + [extra("SM-S918B-reverify-died")], ["reverified"]),
            ("the original path re-run by app version %d" % OLDER,
             without("SM-S918B-reverify") + [extra("SM-S918B-reverify-v6")], ["reverified"]),
            ("a device's only cold start of app version %d" % OLDER,
             without("SM-S918B-cold_start") + [extra("SM-S918B-cold_start-v6")],
             ["app_starts", "covered"]),
        ]
        for what, inputs, items in mutations:
            p, g = gate(lw, inputs)
            check(p.returncode == EXIT_NOT_YET and g and g["verdict"] == "not yet" and
                  failing(g) == items, "%s: exit %d, failing %r, expected %r"
                  % (what, p.returncode, g and failing(g), items))
            if g and "covered" in items:
                gone = "cold_start" if "cold start" in what else "background"
                want = "not yet for these 2 devices (%s) and 8 scenarios of app version %d: " \
                       "SM-S918B never ran %s%s" % (", ".join(devices), RELEASE, gone,
                                                   "; app_starts does not hold"
                                                   if "app_starts" in items else "")
                check(lacking(g, "covered") == ["SM-S918B: never ran %s" % gone] and
                      g["scope"]["sentence"] == want and
                      g["scope"]["seen"][1]["scenarios"] == [s for s in scenarios if s != gone],
                      "%s: covered %r, sentence %r, expected %r" %
                      (what, lacking(g, "covered"), g["scope"]["sentence"], want))
            if g and "reverified" in items and "version" in what:
                check(any("by app version %d completed delegate_prepare" % RELEASE in m
                          for m in lacking(g, "reverified")),
                      "%s: %r" % (what, lacking(g, "reverified")))

        # An older pull mixed in: named, set aside, and the verdict as before.
        old = extra("SM-S918B-cold_start-v6")
        p, g = gate(lw, matrix + [old])
        oldtext = "2 runs of app version %d are not this release's (%d): they prove nothing " \
                  "for it" % (OLDER, RELEASE)
        if check(p.returncode == 0 and g and not failing(g), "an older pull mixed in: exit %d, "
                 "failing %r" % (p.returncode, g and failing(g))):
            sc, mine = g["scope"], [i for i in g["inputs"] if i["path"] == old]
            cell = [c for c in g["matrix"] if (c["device"], c["scenario"]) ==
                    ("SM-S918B", "cold_start")][0]
            check(sc["other_versions"] == [{"app_version": OLDER, "runs": 2}] and
                  sc["other_versions_text"] == oldtext and sc["sentence"] == sentence and
                  mine and mine[0]["release_runs"] == 0 and mine[0]["app_versions"] == [OLDER] and
                  cell["other_runs"] == 2 and cell["runs"] == cells[("SM-S918B", "cold_start")]["runs"],
                  "an older pull mixed in: scope %r, input %r, cell %r" % (sc, mine, cell))
        text = lastwords(lw, ["gate", "--candidate", "model-v3"] + matrix + [old]).stdout
        check("note       %s\n" % oldtext in text and
              "note       %s: 2 of its 2 runs are of app version %d, not this release's\n"
              % (old, OLDER) in text, "an older pull mixed in, the text:\n%s" % text)
        html = lastwords(lw, ["gate", "--candidate", "model-v3", "--format", "html"] +
                         matrix + [old]).stdout
        check(oldtext.replace("'", "&#39;") in html, "an older pull mixed in: the page does "
              "not say %r" % oldtext)
        # --app-version: the same release named, or one no input has.
        p, g = gate(lw, matrix, ["--app-version", str(RELEASE)])
        check(p.returncode == 0 and g and g["scope"]["app_version_from"] == "option" and
              g["scope"]["sentence"] == sentence, "--app-version %d: exit %d, %r"
              % (RELEASE, p.returncode, g and g["scope"]))
        p, g = gate(lw, matrix, ["--app-version", "99"])
        want = "not yet: no run of app version 99 in the inputs, only of app version %d" % RELEASE
        check(p.returncode == EXIT_NOT_YET and g and g["scope"]["sentence"] == want and
              g["scope"]["release_runs"] == 0 and
              failing(g) == ["app_starts", "stable_revertible", "reverified", "covered"] and
              "no run of app version 99 in the inputs" in lacking(g, "covered"),
              "--app-version 99: exit %d, failing %r, %r" % (p.returncode, g and failing(g),
                                                            g and g["scope"]["sentence"]))
        text = lastwords(lw, ["gate", "--candidate", "model-v3", "--app-version", "99"] + matrix).stdout
        check("verdict    %s\n" % want in text, "--app-version 99, the text:\n%s" % text)

        # --require: the team's own list.
        few = [m for m in matrix if os.path.basename(m).replace("Pixel_8-", "", 1)
               .replace("SM-S918B-", "", 1) in
               ("history", "death-1", "death-2", "advised", "cold_start", "reverify")]
        check(len(few) == 12, "the two scenarios' bundles: %r" % few)
        p, g = gate(lw, few, ["--require", "cold_start,first_load"])
        want = reenable_sentence(devices, ["cold_start", "first_load"], scenarios)
        check(p.returncode == 0 and g and not failing(g) and
              g["scope"]["required"] == ["cold_start", "first_load"] and
              g["scope"]["required_from"] == "option" and g["scope"]["sentence"] == want,
              "--require cold_start,first_load: exit %d, failing %r, %r" %
              (p.returncode, g and failing(g), g and g["scope"]))
        p, g = gate(lw, few)
        rest6 = ", ".join(s for s in scenarios if s not in ("cold_start", "first_load"))
        check(p.returncode == EXIT_NOT_YET and g and failing(g) == ["covered"] and
              lacking(g, "covered") == ["%s: never ran %s" % (d, rest6) for d in devices],
              "the two scenarios without --require: failing %r, %r" %
              (g and failing(g), lacking(g, "covered")))
        p, g = gate(lw, few, ["--require", "first_load,cold_start,first_load"])
        check(g and g["scope"]["required"] == ["first_load", "cold_start"],
              "--require with a name twice: %r" % (g and g["scope"]["required"]))
        for opt, said in ((["--require", "cold_start,bogus"], "'bogus' is not a scenario"),
                          (["--require", ""], "an empty scenario name"),
                          (["--require", "cold_start,,first_load"], "an empty scenario name"),
                          (["--app-version", "0"], "not '0'"),
                          (["--app-version", "-3"], "not '-3'"),
                          (["--app-version", "7x"], "not '7x'")):
            p = lastwords(lw, ["gate", "--candidate", "model-v3"] + opt + matrix)
            check(p.returncode == 2 and not p.stdout and said in p.stderr,
                  "%s: exit %d, %r" % (" ".join(opt), p.returncode, p.stderr[:200]))
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
        # SM-S918B then never ran first_load at all (covered).
        p, g = gate(lw, [m for m in rest if not m.endswith("SM-S918B-reverify")], ["--history", db])
        check(p.returncode == EXIT_NOT_YET and g and failing(g) == ["reverified", "covered"] and
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

        # Rings that record no app version (the header's app_version 0):
        # the gate cannot tell builds apart, every run counts, and the
        # sentence says so; naming a version then finds none of it.
        import struct
        from helpers import crc32c
        unversioned = os.path.join(tmp, "unversioned")
        shutil.copytree(mdir, unversioned)
        for dp, _, fs in os.walk(unversioned):
            for f in fs:
                if f.endswith(".lwr"):
                    with open(os.path.join(dp, f), "r+b") as ring:
                        data = bytearray(ring.read())
                        struct.pack_into("<Q", data, 88, 0)  # lw_ring_header.app_version
                        struct.pack_into("<I", data, 252, crc32c(bytes(data[0:252])))
                        ring.seek(0)
                        ring.write(data)
        bundles = sorted(os.path.join(unversioned, d) for d in os.listdir(unversioned))
        p, g = gate(lw, bundles)
        want = ("re-enable for these 2 devices (%s) and 8 scenarios (no run records an app "
                "version: the gate cannot tell builds apart); other devices untested"
                % ", ".join(devices))
        check(p.returncode == 0 and g and g["scope"]["app_version"] is None and
              g["scope"]["app_version_from"] is None and g["scope"]["other_versions"] == [] and
              g["scope"]["sentence"] == want,
              "no app version recorded: exit %d, %r" % (p.returncode, g and g["scope"]))
        p, g = gate(lw, bundles, ["--app-version", str(RELEASE)])
        check(p.returncode == EXIT_NOT_YET and g and g["scope"]["sentence"] ==
              "not yet: no run of app version %d in the inputs, only of runs recording no app "
              "version" % RELEASE and g["scope"]["other_versions"][0]["app_version"] is None,
              "no app version recorded, --app-version %d: %r" % (RELEASE, g and g["scope"]))

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
        # digest 0 is the rings' "no candidate": no candidate to gate, nor
        # a stable one to revert to; refused before anything is printed
        for opt in (["--candidate", "0000000000000000"],
                    ["--candidate", "model-v3", "--stable", "0000000000000000"]):
            p = lastwords(lw, ["gate"] + opt + matrix)
            check(p.returncode == 2 and not p.stdout and "(null)" not in p.stderr and
                  "'0000000000000000' is the digest of no candidate" in p.stderr,
                  "%s: exit %d, %r %r" % (" ".join(opt), p.returncode, p.stdout[:80], p.stderr))
    finally:
        shutil.rmtree(tmp)
    return finish("gate: the matrix re-enables; %d mutations fail their items" % 8)


if __name__ == "__main__":
    raise SystemExit(main())
