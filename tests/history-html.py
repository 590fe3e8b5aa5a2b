#!/usr/bin/env python3
"""`lastwords history --format html`: one self-contained page of trend
charts, on the history fixtures (fixtures/history/, all ingested).

- the page is well formed and safe (no script, image or link element, no
  event handler, nothing outside it, links only within it);
- one chart (a <div class="chart"> with one <svg class="trend">) per
  candidate and per app version of each package, in the statement's order;
  the deaths its bars show, per class and evidence level (data-class,
  data-level, data-n), add up to what `history --by candidate` and `--by
  app_version --format json` count for that group; each bar has a <title>;
- each regression of `history --format json` is named at the top and on
  its group's chart, which is highlighted (class "regression"), and no other
  chart is;
- a process name that is markup comes out as text; with no run since
  --since, the page says there is none to chart;
- the runs with no candidate and those whose app version is unknown
  (ring-less runs among them) are charted too ("no candidate", "app version
  unknown"): on the fixtures and on fixtures/demo alone, in each dimension
  the runs its bars draw (their titles), and those it says it could not
  chart (no time), add up to the runs the page says it has;
- the legend gives every class and level a colour of its own (a level: as
  drawn, at its opacity), each pair at least html_check.MIN_DISTANCE apart;
- in headless Chromium (skipped when it is missing): each chart's box is
  drawn, and the colour of each regression's class shows inside its chart.

usage: history-html.py LASTWORDS SOURCE_ROOT
"""
import glob
import json
import os
import re
import shutil
import sys
import tempfile

from chromium import WIDTH, chromium_cmd, colour_pixels, draw
from helpers import check, fail, finish, lastwords, setup
from html_check import CLASSES, LEVELS, SafePage, check_distinct, check_page, rgb, root_colours

EVIL = '<img src=x onerror=alert(1)>&amp;\'"'

MEASURE = """
  m.charts = [];
  document.querySelectorAll("div.chart").forEach(function (d) {
    var svg = d.querySelector("svg.trend");
    m.charts.push({dimension: d.getAttribute("data-dimension"),
                   package: d.getAttribute("data-package"),
                   group: d.getAttribute("data-group"), svg: svg ? box(svg) : null});
  });
"""


class Charts(SafePage):
    """The charts with their bars, and the regression lines."""

    def __init__(self):
        super().__init__()
        self.charts, self.chart, self.top_regressions = [], None, 0
        self.in_regression, self.text = False, ""
        self.bar_title = None
        self.legend_ul = None
        self.bar_kind = None
        self.legend = {}       # name: (r, g, b) as drawn
        self.legend_item = None
        self.uncharted = {}    # dimension: runs it says it could not chart

    def start(self, tag, a):
        if tag == "li" and "legend" in (self.legend_ul or ""):
            self.legend_item = ["", None]
        if tag == "ul":
            self.legend_ul = a.get("class")
        if tag == "span" and self.legend_item is not None:
            st = dict(x.split(":", 1) for x in (a.get("style") or "").split(";") if ":" in x)
            if st.get("background", "").startswith("#"):
                self.legend_item[1] = rgb(st["background"], float(st.get("opacity", "1")))
        if tag == "p" and a.get("class") == "charted":
            self.uncharted[a.get("data-dimension")] = int(a.get("data-uncharted", "0"))
        if tag == "div" and "chart" in (a.get("class") or "").split():
            self.chart = {"key": (a.get("data-dimension"), a.get("data-package"), a.get("data-group")),
                          "highlighted": "regression" in a["class"].split(), "svgs": 0,
                          "deaths": {}, "regressions": [], "titles": 0, "bars": 0, "runs": 0}
            self.charts.append(self.chart)
        if tag == "ul" and a.get("class") == "regressions":
            self.in_regression = "top"
        if self.chart is not None and tag == "p" and a.get("class") == "regression":
            self.in_regression, self.text = "chart", ""
        if self.chart is not None and tag == "svg" and "trend" in (a.get("class") or "").split():
            self.chart["svgs"] += 1
        if self.chart is not None and tag == "rect" and a.get("class") in ("deaths", "runs"):
            self.chart["bars"] += 1
            self.bar_kind = a["class"]
            if a["class"] == "deaths":
                k = (a.get("data-class"), a.get("data-level"))
                self.chart["deaths"][k] = self.chart["deaths"].get(k, 0) + int(a.get("data-n", "0"))
        if self.chart is not None and tag == "title" and self.stack and self.stack[-1] == "rect":
            self.bar_title = ""

    def end(self, tag):
        if tag == "div" and self.chart is not None and "div" not in self.stack[-1:]:
            self.chart = None
        if tag == "p" and self.in_regression == "chart":
            self.chart["regressions"].append(self.text)
            self.in_regression = False
        if tag == "li" and self.in_regression == "top":
            self.top_regressions += 1
        if tag == "ul":
            self.in_regression = False
            self.legend_ul = None
        if tag == "li" and self.legend_item is not None:
            name = self.legend_item[0].split(":")[0].strip()
            if self.legend_item[1]:
                self.legend[name] = self.legend_item[1]
            self.legend_item = None
        if tag == "title" and self.bar_title is not None:
            self.chart["titles"] += bool(self.bar_title.strip())
            m = re.search(r": (\d+) runs?$", self.bar_title)
            if self.bar_kind == "runs" and m:
                self.chart["runs"] += int(m.group(1))
            self.bar_title = None

    def handle_data(self, data):
        if self.legend_item is not None:
            self.legend_item[0] += data
        if self.in_regression == "chart":
            self.text += data
        if self.bar_title is not None:
            self.bar_title += data


def ingest(lw, db, bundles):
    p = lastwords(lw, ["ingest", "--db", db] + bundles)
    check(p.returncode == 0, "ingest exits %d: %s" % (p.returncode, p.stderr[-300:]))


def history_json(lw, db, by):
    p = lastwords(lw, ["history", "--db", db, "--by", by, "--format", "json"])
    try:
        return json.loads(p.stdout)
    except ValueError:
        fail("history --by %s: no JSON: %s" % (by, p.stderr[-300:]))
        return {"groups": [], "regressions": []}


def page_of(lw, db, name, args=()):
    p = lastwords(lw, ["history", "--db", db, "--format", "html"] + list(args))
    check(p.returncode == 0, "%s: history --format html exits %d: %s" % (name, p.returncode, p.stderr))
    page = Charts()
    check_page(name, p.stdout, page)
    return p.stdout, page


def figures(lw, db, page):
    """The charts against the JSON figures."""
    regs = history_json(lw, db, "candidate")["regressions"]
    for dim in ("candidate", "app_version"):
        for g in history_json(lw, db, dim)["groups"]:
            charts = [c for c in page.charts if c["key"][0] == dim and c["key"][2] == g["group"]]
            if not check(len(charts) == 1 and charts[0]["svgs"] == 1,
                         "%s %s: one chart with one svg: %d" % (dim, g["group"], len(charts))):
                continue
            c = charts[0]
            want = {(cls, lvl): n for cls, x in g["classes"].items()
                    for lvl, n in x.items() if lvl not in ("total", "rate", "interval") and n}
            check(c["deaths"] == want, "%s %s: the bars' deaths %s, the JSON's %s" %
                  (dim, g["group"], c["deaths"], want))
            check(c["titles"] == c["bars"] and c["bars"], "%s %s: %d bars, %d with a title" %
                  (dim, g["group"], c["bars"], c["titles"]))
    check(page.top_regressions == len(regs), "%d regressions at the top for %d" %
          (page.top_regressions, len(regs)))
    for c in page.charts:
        # Only a significant rise is drawn as a regression; every rise is
        # listed at the top, saying which it is.
        mine = [r for r in regs if (r["dimension"], r["package"], r["group"]) == c["key"] and
                r["significant"]]
        check(c["highlighted"] == bool(mine) and len(c["regressions"]) == len(mine),
              "%s: highlighted %s, %d regression lines, for %d regressions" %
              (c["key"], c["highlighted"], len(c["regressions"]), len(mine)))
        for r, text in zip(mine, c["regressions"]):
            check("confirmed %s in %d of %d runs" % (r["class"], r["count"], r["runs"]) in text,
                  "%s: the regression says its counts: %r" % (c["key"], text))
    return regs


def totals(name, text, page):
    """In each dimension, the runs drawn and those said to be in no chart
    add up to the page's runs; the legend's colours apart."""
    m = re.search(r"<p[^>]*>(\d+) runs? in (\d+) bundles?", text)
    if not check(m is not None, "%s: the page says how many runs it has" % name):
        return
    runs = int(m.group(1))
    for dim in ("candidate", "app_version"):
        drawn = sum(c["runs"] for c in page.charts if c["key"][0] == dim)
        left = page.uncharted.get(dim, 0)
        check(drawn + left == runs, "%s: by %s, %d runs drawn and %d said to be in no chart, of the "
              "page's %d" % (name, dim, drawn, left, runs))
    want = CLASSES + LEVELS
    check(all(w in page.legend for w in want), "%s: the legend has a colour for each class and level: %s" %
          (name, sorted(page.legend)))
    check_distinct(name + ": the legend", {w: page.legend[w] for w in want if w in page.legend})
    return runs


def evil_bundle(tmp):
    """A scenario's ring whose process name is markup, dead in inference."""
    src = glob.glob("fixtures/scenarios/lmk-confirmed/bundle/*.jsonl")[0]
    d = os.path.join(tmp, "evil")
    os.mkdir(d)
    with open(src) as f, open(os.path.join(d, "evil.jsonl"), "w") as out:
        for line in f:
            x = json.loads(line)
            if x.get("type") == "ring":
                x["process"] = "com.evil" + EVIL
                x["run_id"] = "1" * 32
            out.write(json.dumps(x, separators=(",", ":")) + "\n")
    return d


def browser(tmp, text, page, regs):
    cmd = chromium_cmd()
    if not cmd:
        print("chromium is not installed: the page is not drawn (.ci/install-deps --tests)")
        return
    got = draw(cmd, tmp, "history", [("history", text)], MEASURE)
    if got is None:
        return
    measure, png, path = got
    check(len(measure["charts"]) == len(page.charts), "chromium: %d charts laid out for %d" %
          (len(measure["charts"]), len(page.charts)))
    for m in measure["charts"]:
        box = m["svg"]
        check(box and box[2] >= 400 and box[3] >= 50, "chromium: %s %s: the chart's box %s" %
              (m["dimension"], m["group"], box))
    for r in regs:
        m = [x for x in measure["charts"]
             if (x["dimension"], x["package"], x["group"]) == (r["dimension"], r["package"], r["group"])]
        colour = root_colours(text).get("class-" + r["class"])
        if not m or not colour or not m[0]["svg"]:
            continue
        n = colour_pixels(png, m[0]["svg"], colour)
        check(n >= 20, "chromium: %s %s: %s's colour in its chart: %d pixels (%s)" %
              (r["dimension"], r["group"], r["class"], n, path))
    print("chromium: %d charts drawn, screenshot %s (%dx%d)" % (len(measure["charts"]), path, WIDTH, png[1]))


def main():
    lw, _ = setup(__doc__)
    keep = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", tempfile.gettempdir()), "history-html")
    shutil.rmtree(keep, ignore_errors=True)
    os.makedirs(keep)
    with tempfile.TemporaryDirectory(prefix="lw-history-html-") as tmp:
        db = os.path.join(tmp, "history.db")
        ingest(lw, db, sorted(glob.glob("fixtures/history/bundles/*")))
        text, page = page_of(lw, db, "fixtures")
        regs = figures(lw, db, page)
        totals("fixtures", text, page)
        check(len(regs) >= 2, "the fixtures have regressions: %d" % len(regs))
        browser(keep, text, page, regs)
        ingest(lw, db, [evil_bundle(tmp)])
        text, page = page_of(lw, db, "markup")
        check(any(c["key"][1] == "com.evil" + EVIL for c in page.charts),
              "a package name that is markup is text: %s" % [c["key"][1] for c in page.charts])
        n = len(page.charts)
        text, page = page_of(lw, db, "empty", ["--since", "2100-01-01"])
        check(not page.charts and "No run" in text and "since 2100-01-01" in text,
              "no run since: a page that says so")
        demo = os.path.join(tmp, "demo.db")
        ingest(lw, demo, ["fixtures/demo"])
        text, page = page_of(lw, demo, "demo")
        figures(lw, demo, page)
        check(totals("demo", text, page) == 5, "demo: the page says 5 runs")
        check(sum(c["key"][0] == "candidate" and c["key"][2] == "none" for c in page.charts) == 1 and
              sum(c["key"][0] == "app_version" and c["key"][2] == "unknown" for c in page.charts) == 1 and
              "no candidate" in text and "app version unknown" in text,
              "demo: a chart of the runs with no candidate, and one of those of no known version")
    return finish("history-html: %d charts" % n)


sys.exit(main())
