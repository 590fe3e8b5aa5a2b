#!/usr/bin/env python3
"""`lastwords report --format html`: one self-contained page that says what
the JSON report says.

For each scenario bundle of fixtures/scenarios/ (with its args), the demo,
and a bundle whose exit record's description is markup:
- the page is well formed (every element closed in order, void elements
  aside), holds no script, no event handler, no link or source outside it
  (a link goes to an id of the page);
- a summary table first: the deaths, confirmed before supported before
  unconfirmed, then the clean runs inside a <details>, each row linking to
  its run's section; a clean run's section is folded in a <details>;
- each run with a ring has one <svg class="timeline"> in its section (a
  ring-less run none, and a note saying why), with an RSS line when the run
  has samples, a death marker when the JSON has a death, and one evidence
  marker per placed piece of evidence, each marker with a non-empty
  <title>;
- one <section class="run"> per run of the JSON report, in order, whose
  data-process, data-pid, data-ring, data-class and data-level give the
  run's verdict; a ring-less run's section says why no ring has it;
- each evidence line, missing line, rule and recovery action of the run is
  in its section as escaped text, and the open stage is marked;
- the exit status is the JSON report's;
- markup in a description, and in a file name that the timeline's
  tooltips show, comes out as text, never as elements;
- every time the page shows (text and tooltips) says its zone: " UTC" after
  a time on the runs' clocks, the device's zone ("UTC+01:00", or its name)
  after a time the device logged, which the page's first paragraph names;
- each evidence marker of a timeline has a visible label (a <text
  class="ev-label">, not only its <title>) saying its kind in words;
- the page's CSS gives every class and every level a colour of its own,
  each pair at least html_check.MIN_DISTANCE apart.

usage: report-html.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail.
"""
import json
import os
import re
import shlex
import shutil
import sys
import tempfile

from helpers import check, finish, run, setup
from html_check import SafePage, check_class_level_colours, check_page, unzoned_times
EVIL = '</td></tr></table><script>alert("x")</script><img src=x onerror=alert(1)>&amp;\''
EVIL_NAME = '<img src=x onerror=alert(1)>&amp;\'"<title>.json'


class Page(SafePage):
    """Collects the run sections with their text, the summary's rows and
    the timelines' markers."""

    def __init__(self):
        super().__init__()
        self.sections, self.current = [], None
        self.summary = []      # (in a <details>, the row's cells' text, its link)
        self.row = None
        self.in_summary = False
        self.marker = None     # a marker waiting for its <title>
        self.title = None      # the text of the <title> being read
        self.label = None      # the evidence label being read

    def where(self):
        return "details" in self.stack

    def start(self, tag, a):
        if tag == "section" and a.get("class") == "run":
            self.current = {"attrs": a, "text": [], "svgs": 0, "rss": 0, "death": [],
                            "evidence": [], "labels": [], "folded": self.where()}
            self.sections.append(self.current)
        if tag == "table" and a.get("class") == "summary":
            self.in_summary = True
        if tag == "tr" and "table" in self.stack and self.in_summary:
            self.row = {"folded": self.where(), "cells": [], "link": None}
        if tag == "td" and self.row is not None:
            self.row["cells"].append("")
        if tag == "a" and self.row is not None:
            self.row["link"] = a.get("href", "")[1:]
        if self.current is not None and tag == "svg" and a.get("class") == "timeline":
            self.current["svgs"] += 1
        if self.current is not None and tag == "text" and a.get("class") == "ev-label" and \
                "svg" in self.stack:
            self.label = [a.get("data-kind"), ""]
        if self.current is not None and tag == "polyline" and a.get("class") == "rss":
            self.current["rss"] += 1
        if self.marker is not None:
            if tag != "title":
                self.errors.append("a %s marker without a <title>" % self.marker)
            if tag == "title":
                self.title = ""
                self.marker_kind = self.marker
            self.marker = None
        if self.current is not None and tag == "g" and a.get("class") in ("evidence", "death"):
            self.marker = a["class"]

    def end(self, tag):
        if tag == "text" and self.label is not None:
            self.current["labels"].append(tuple(self.label))
            self.label = None
        if tag == "section":
            self.current = None
        if tag == "table":
            self.in_summary = False
        if tag == "tr" and self.row is not None:
            if self.row["cells"]:
                self.summary.append(self.row)
            self.row = None
        if tag == "title" and self.title is not None and self.current is not None:
            self.current[self.marker_kind].append(self.title)
            self.title = None

    def handle_data(self, data):
        if self.current is not None:
            self.current["text"].append(data)
        if self.title is not None:
            self.title += data
        if self.label is not None:
            self.label[1] += data
        if self.row is not None and self.row["cells"]:
            self.row["cells"][-1] += data


def bundles(root, tmp):
    base = os.path.join(root, "fixtures", "scenarios")
    out = []
    for name in sorted(os.listdir(base)):
        d = os.path.join(base, name)
        if not os.path.isdir(os.path.join(d, "bundle")):
            continue
        args = shlex.split(open(os.path.join(d, "args")).read()) if os.path.exists(os.path.join(d, "args")) else []
        args = [os.path.join(d, a) if a.startswith("rings/") or a.startswith("../") else a for a in args]
        out.append((name, args + [os.path.join(d, "bundle")]))
    out.append(("demo", ["--tz", "+01:00", os.path.join(root, "fixtures", "demo")]))
    evil = os.path.join(tmp, "markup-description")
    shutil.copytree(os.path.join(base, "memory-limiter-reason-17", "bundle"), evil)
    p = os.path.join(evil, "exit-info.json")
    doc = json.load(open(p))
    doc["records"][0]["description"] = EVIL
    json.dump(doc, open(os.path.join(evil, EVIL_NAME), "w"))
    os.unlink(p)
    out.append(("markup-description", [evil]))
    return out


LEVELS = ["confirmed", "supported", "unconfirmed"]


def summary(name, page, rep):
    """The summary rows: deaths surest first, then the clean runs folded."""
    runs = rep["runs"]
    deaths = [i for i, r in enumerate(runs) if r["classification"]]
    deaths.sort(key=lambda i: LEVELS.index(runs[i]["evidence_level"]))
    clean = [i for i, r in enumerate(runs) if not r["classification"]]
    rows = [(row["folded"], row["link"]) for row in page.summary]
    want = [(False, "run-%d" % i) for i in deaths] + [(True, "run-%d" % i) for i in clean]
    check(rows == want, "%s: summary rows %s, expected %s" % (name, rows, want))
    for row in page.summary:
        r = runs[int(row["link"][4:])]
        check(r["process"] in row["cells"][1] and
              row["cells"][2] == (r["classification"] or "none") and
              row["cells"][3] == (r["evidence_level"] or "-"),
              "%s: summary row %s for %s" % (name, row["cells"], r["process"]))
    for sec, r in zip(page.sections, runs):
        check(sec["folded"] == (r["classification"] is None),
              "%s: %s pid %d folded only when clean" % (name, r["process"], r["pid"]))


def zone_of(rep):
    """The device's zone as the page labels its times."""
    tz = rep["timezone"]
    if tz["name"]:
        return tz["name"]
    m = tz["offset_minutes"]
    return "UTC%s%02d:%02d" % ("-" if m < 0 else "+", abs(m) // 60, abs(m) % 60)


LOCAL = re.compile(r"(?<!\d)(\d{4}-\d\d-\d\d |\d\d-\d\d )\d\d:\d\d:\d\d(\.\d+)?")
UTC = re.compile(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d{1,3})?\d*Z")


def labelled(s, zone):
    """s as the page writes it: each time labelled with its zone."""
    s = UTC.sub(lambda m: "%s %s%s UTC" % (m.group(1), m.group(2), m.group(3) or ""), s)
    return LOCAL.sub(lambda m: m.group(0) if s[m.end():].startswith((" UTC", " " + zone))
                     else m.group(0) + " " + zone, s)


def label_word(kind):
    return "ANR trace" if kind == "anr_trace" else kind.replace("_", " ")


def timeline(where, sec, r, zone):
    """The run's SVG and its markers, against its JSON timeline."""
    t = r["timeline"]
    text = "".join(sec["text"])
    if t is None:
        check(sec["svgs"] == 0 and "No timeline" in text, "%s: no timeline, and why" % where)
        return
    check(sec["svgs"] == 1, "%s: %d timelines" % (where, sec["svgs"]))
    check(sec["rss"] == (1 if t["points"] else 0), "%s: the RSS line" % where)
    check(len(sec["death"]) == (1 if t["death"] else 0) and all(sec["death"]),
          "%s: the death marker and its title: %s" % (where, sec["death"]))
    placed = [e for e in t["evidence"] if e["t_ms"] is not None]
    check(len(sec["evidence"]) == len(placed) and all(sec["evidence"]),
          "%s: %d evidence markers with titles for %d" % (where, len(sec["evidence"]), len(placed)))
    for title, e in zip(sec["evidence"], placed):
        check(title.startswith(e["kind"] + ": ") and labelled(e["what"], zone) in title and
              e["file"] in title, "%s: the %s marker says what it is: %r" % (where, e["kind"], title))
    want = sorted((e["kind"], label_word(e["kind"])) for e in placed)
    check(sorted(sec["labels"]) == want, "%s: the evidence markers' visible labels %s, for %s" %
          (where, sorted(sec["labels"]), want))


def main():
    lw, root = setup(__doc__)
    with tempfile.TemporaryDirectory(prefix="lw-html-") as tmp:
        cases = bundles(root, tmp)
        for name, args in cases:
            j = run([lw, "report", "--format", "json"] + args, cwd=root)
            h = run([lw, "report", "--format", "html"] + args, cwd=root)
            check(h.returncode == j.returncode, "%s: html exits %d, json %d" % (name, h.returncode, j.returncode))
            if not j.stdout.strip():
                check(False, "%s: no JSON report: %s" % (name, j.stderr))
                continue
            rep = json.loads(j.stdout)
            page = Page()
            check_page(name, h.stdout, page)
            zone = zone_of(rep)
            bad = unzoned_times(h.stdout, zone)
            check(not bad, "%s: %d times without their zone (UTC or %s): %s" % (name, len(bad), zone, bad[:4]))
            intro = h.stdout.split("<h1>", 1)[-1].split("</p>", 1)[0]
            check("read as " + zone_of(dict(timezone=dict(rep["timezone"], name=None))) in intro and
                  "Each time says its zone" in intro, "%s: the first paragraph names the zone: %r" % (name, intro))
            check_class_level_colours(name, h.stdout)
            check(len(page.sections) == len(rep["runs"]),
                  "%s: %d run sections for %d runs" % (name, len(page.sections), len(rep["runs"])))
            summary(name, page, rep)
            for sec, r in zip(page.sections, rep["runs"]):
                a, text = sec["attrs"], "".join(sec["text"])
                where = "%s: %s pid %d" % (name, r["process"], r["pid"])
                check((a.get("data-process"), a.get("data-pid"), a.get("data-ring"), a.get("data-class"),
                       a.get("data-level")) ==
                      (r["process"], str(r["pid"]), r["ring"], r["classification"] or "",
                       r["evidence_level"] or ""),
                      "%s: section attributes %s" % (where, a))
                if r["no_ring"]:
                    check(r["no_ring"]["why_text"] in text and "link liblastwords" in text,
                          "%s: the ring-less run says why no ring has it" % where)
                for line in r["evidence"] + r["missing"] + r["rules"]:
                    check(labelled(line, zone) in text, "%s: %r is in its section" % (where, line))
                for act in r["recovery"]["actions"]:
                    check(act["action"] in text and act["why"] in text,
                          "%s: the action %s and why" % (where, act["action"]))
                timeline(where, sec, r, zone)
                if r["stage_open"]:
                    check("open stage" + r["open_stage"] in text, "%s: the open stage is named" % where)
                for rec in r["exit_records"]:
                    if rec["description"]:
                        check(labelled(rec["description"], zone) in text, "%s: the exit description is there as text" % where)
            if name == "markup-description":
                text = "".join("".join(sec["text"]) for sec in page.sections)
                check(EVIL in text and "<script" not in h.stdout and "<img" not in h.stdout,
                      "markup in a description is text: %s" % h.stdout[h.stdout.find("alert") - 80:][:200])
                titles = [t for sec in page.sections for t in sec["evidence"]]
                check(any(EVIL_NAME in t for t in titles),
                      "markup in a file name is text in the timeline's tooltips: %s" % titles)
        r = run([lw, "report", "--format", "htm", os.path.join(root, "fixtures", "demo")])
        check(r.returncode == 2 and "html" in r.stderr, "--format htm: usage error listing html: %s" % r.stderr)
    return finish("report-html: %d reports checked" % len(cases))


sys.exit(main())
