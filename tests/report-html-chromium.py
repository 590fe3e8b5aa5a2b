#!/usr/bin/env python3
"""`lastwords report --format html` drawn by a real browser: Debian's
headless Chromium renders the demo's page and every scenario's.

For each page, a copy with a measuring script added (the page itself has
none) is loaded with --dump-dom, which gives the layout: each run section's
box, its <svg class="timeline"> boxes and its RSS line's box. Then the page
itself is drawn with --screenshot at the height it measured, and the PNG is
decoded (zlib, the PNG filters: no module beyond the standard library).

- each dead run with a ring (data-class set, data-ring not none) has one
  timeline, whose box is drawn (at least 400 x 100 px), and a ring-less dead
  run none;
- where the run's JSON timeline has RSS points, the RSS line's colour
  (#1565c0) shows in the screenshot inside the line's box;
- the demo: both deaths, the crash and the kill, show their timeline;
- each evidence marker's label (text.ev-label) is laid out with a box
  inside its timeline's, no two labels' boxes meet, and none meets the RSS
  line's box or the plot's (so the labels can be read in a screenshot).

The scenarios are drawn a few at a time (BATCH), their pages' bodies one
after the other in one page (they share its style), so that Chromium
starts a few times, not twice per scenario. One part per run (one meson
test each): "demo", or "scenarios-K", the K-th batch of scenarios in name
order; a scenario past the last part fails the test (add a part). The
screenshots stay in the build directory (report-html-chromium/PART.png)
for a person to look at.

Skipped (77) when chromium is not installed (.ci/install-deps --tests).

usage: report-html-chromium.py LASTWORDS SOURCE_ROOT PART
"""
import json
import os
import sys
import tempfile

from chromium import MAX_HEIGHT, WIDTH, chromium_cmd, colour_pixels, draw
from helpers import check, fail, finish, lastwords, setup, skip
from scenarios import read_scenario, scenario_names

BATCH = 6
PARTS = ["demo"] + ["scenarios-%d" % k for k in range(1, 16)]
RSS = (0x15, 0x65, 0xc0)
MIN_PIXELS = 12

MEASURE = """
  m.runs = [];
  document.querySelectorAll("section.run").forEach(function (s) {
    var page = s.closest("[data-page]");
    var rss = s.querySelector("svg.timeline polyline.rss");
    m.runs.push({
      page: page ? page.getAttribute("data-page") : "",
      pid: s.getAttribute("data-pid"),
      cls: s.getAttribute("data-class"),
      ring: s.getAttribute("data-ring"),
      box: box(s),
      svgs: Array.prototype.map.call(s.querySelectorAll("svg.timeline"), box),
      rss: rss ? box(rss) : null,
      plots: Array.prototype.map.call(s.querySelectorAll("svg.timeline rect.plot"), box),
      labels: Array.prototype.map.call(s.querySelectorAll("svg.timeline text.ev-label"),
        function (t) { return {kind: t.getAttribute("data-kind"), text: t.textContent, box: box(t)}; })
    });
  });
"""


def meet(a, b):
    """Whether boxes a and b ([left, top, width, height]) share more than
    a pixel's edge."""
    return a[0] + 1 < b[0] + b[2] and b[0] + 1 < a[0] + a[2] and \
        a[1] + 1 < b[1] + b[3] and b[1] + 1 < a[1] + a[3]


def check_labels(where, r, m):
    """The evidence labels: one per placed piece of evidence, inside the
    timeline, apart from each other, the RSS line and the plot."""
    placed = [e for e in r["timeline"]["evidence"] if e["t_ms"] is not None]
    labels = m["labels"]
    check(len(labels) == len(placed), "%s: %d evidence labels laid out for %d markers" %
          (where, len(labels), len(placed)))
    svg = m["svgs"][0]
    for i, a in enumerate(labels):
        b = a["box"]
        check(b[2] > 0 and b[3] > 0 and b[0] >= svg[0] - 1 and b[0] + b[2] <= svg[0] + svg[2] + 1 and
              b[1] >= svg[1] - 1, "%s: the label %r (%s) inside the timeline %s" % (where, a["text"], b, svg))
        for c in labels[i + 1:]:
            check(not meet(b, c["box"]), "%s: the labels %r %s and %r %s overlap" %
                  (where, a["text"], b, c["text"], c["box"]))
        for other in ([m["rss"]] if m["rss"] else []) + m["plots"]:
            check(not meet(b, other), "%s: the label %r %s lies over the chart %s" % (where, a["text"], b, other))


def check_page(name, rep, runs, png):
    """One report's runs, as measured and drawn."""
    check(len(runs) == len(rep["runs"]), "%s: %d sections for %d runs" % (name, len(runs), len(rep["runs"])))
    drawn = 0
    for m, r in zip(runs, rep["runs"]):
        where = "%s: %s pid %s" % (name, r["process"], r["pid"])
        check(m["pid"] == ("" if r["pid"] is None else str(r["pid"])),
              "%s: the sections in the runs' order" % where)
        if not r["classification"]:
            continue
        if r["timeline"] is None:
            check(not m["svgs"], "%s: a ring-less death has no timeline" % where)
            continue
        if not check(len(m["svgs"]) == 1, "%s: %d timelines for one death" % (where, len(m["svgs"]))):
            continue
        box = m["svgs"][0]
        check(box[2] >= 400 and box[3] >= 100, "%s: the timeline's box %s" % (where, box))
        check_labels(where, r, m)
        if r["timeline"]["points"]:
            n = colour_pixels(png, m["rss"], RSS) if m["rss"] and box[1] + box[3] <= png[1] else 0
            if check(n >= MIN_PIXELS, "%s: the RSS line's colour in its box %s: %d pixels" %
                     (where, m["rss"], n)):
                drawn += 1
    return drawn


def main():
    lw, root, part = setup(__doc__, extra=1)
    if part not in PARTS:
        print(__doc__, file=sys.stderr)
        return 2
    names = scenario_names()
    if not check(len(names) <= BATCH * (len(PARTS) - 1),
                 "%d scenarios: more than the parts draw (%d of %d each): add a part to PARTS "
                 "and tests/meson.build" % (len(names), len(PARTS) - 1, BATCH)):
        return finish("report-html-chromium")
    cmd = chromium_cmd()
    if not cmd:
        skip("chromium is not installed (.ci/install-deps --tests)")
    keep = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", tempfile.gettempdir()),
                        "report-html-chromium")
    os.makedirs(keep, exist_ok=True)
    if part == "demo":
        reports = [("demo", ["--tz", "+01:00", "fixtures/demo"])]
    else:
        k = int(part.split("-")[1])
        reports = []
        for n in names[BATCH * (k - 1):BATCH * k]:
            _, args, forms = read_scenario(n)
            reports.append((n, args + forms[0]))
    pages = []
    for name, args in reports:
        j = lastwords(lw, ["report", "--format", "json"] + args)
        h = lastwords(lw, ["report", "--format", "html"] + args)
        try:
            pages.append((name, json.loads(j.stdout), h.stdout))
        except ValueError:
            fail("%s: no JSON report: %s" % (name, j.stderr[-300:]))
    deaths = drawn = 0
    # the demo alone, as a person sees it; or a batch of scenarios
    for batch in [pages]:
        name = part
        got = draw(cmd, keep, name, [(n, h) for n, _, h in batch], MEASURE)
        if got is None:
            continue
        measure, png, path = got
        check(png[0] == WIDTH and png[1] >= min(int(measure["height"]), MAX_HEIGHT),
              "%s: a screenshot of %dx%d" % (name, png[0], png[1]))
        for n, rep, _ in batch:
            runs = [m for m in measure["runs"] if m["page"] == n]
            deaths += sum(1 for r in rep["runs"] if r["classification"] and r["timeline"]
                          and r["timeline"]["points"])
            drawn += check_page(n, rep, runs, png)
        if part == "demo":
            demo = [r for r in batch[0][1]["runs"] if r["outcome"] in ("crashed", "died")]
            check(len(demo) == 2, "demo: the crash and the kill")
    check(pages, "%s: no page to draw" % part)
    return finish("report-html-chromium %s: %d pages, %d deaths' RSS lines drawn of %d (screenshot "
                  "in %s)" % (part, len(pages), drawn, deaths, keep))


sys.exit(main())
