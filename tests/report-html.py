#!/usr/bin/env python3
"""`lastwords report --format html`: one self-contained page that says what
the JSON report says.

For each scenario bundle of fixtures/scenarios/ (with its args), the demo,
and a bundle whose exit record's description is markup:
- the page is well formed (every element closed in order, void elements
  aside), holds no script, no event handler, no link or source outside it;
- one <section class="run"> per run of the JSON report, in order, whose
  data-process, data-pid, data-ring, data-class and data-level give the
  run's verdict; a ring-less run's section says why no ring has it;
- each evidence line, missing line, rule and recovery action of the run is
  in its section as escaped text, and the open stage is marked;
- the exit status is the JSON report's;
- markup in a description comes out as text, never as elements.

usage: report-html.py LASTWORDS SOURCE_ROOT
Exit status: 0 pass, 1 fail.
"""
import html.parser
import json
import os
import re
import shlex
import shutil
import sys
import tempfile

from helpers import check, finish, run, setup

VOID = {"meta", "br", "hr", "img", "input", "link", "wbr", "col", "area", "base", "source"}
EVIL = '</td></tr></table><script>alert("x")</script><img src=x onerror=alert(1)>&amp;\''


class Page(html.parser.HTMLParser):
    """Checks nesting and collects the run sections with their text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.sections, self.tags = [], [], [], set()
        self.current = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        a = dict(attrs)
        for k, v in attrs:
            if k.startswith("on") or k in ("href", "src", "action") or "javascript:" in (v or ""):
                self.errors.append("attribute %s=%r on <%s>" % (k, v, tag))
        if tag == "section" and a.get("class") == "run":
            self.current = {"attrs": a, "text": []}
            self.sections.append(self.current)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag == "section":
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current["text"].append(data)


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
    json.dump(doc, open(p, "w"))
    out.append(("markup-description", [evil]))
    return out


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
            page.feed(h.stdout)
            page.close()
            check(h.stdout.startswith("<!DOCTYPE html>") and h.stdout.rstrip().endswith("</html>"),
                  "%s: a whole page" % name)
            check(not page.errors and not page.stack, "%s: well formed: %s %s" % (name, page.errors[:3], page.stack))
            check("script" not in page.tags and "img" not in page.tags and "link" not in page.tags,
                  "%s: no script, image or link elements: %s" % (name, sorted(page.tags)))
            check(not re.search(r"https?://|url\(", h.stdout), "%s: nothing outside the page" % name)
            check(len(page.sections) == len(rep["runs"]),
                  "%s: %d run sections for %d runs" % (name, len(page.sections), len(rep["runs"])))
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
                    check(line in text, "%s: %r is in its section" % (where, line))
                for act in r["recovery"]["actions"]:
                    check(act["action"] in text and act["why"] in text,
                          "%s: the action %s and why" % (where, act["action"]))
                if r["stage_open"]:
                    check("open stage" + r["open_stage"] in text, "%s: the open stage is named" % where)
                for rec in r["exit_records"]:
                    if rec["description"]:
                        check(rec["description"] in text, "%s: the exit description is there as text" % where)
            if name == "markup-description":
                text = "".join("".join(sec["text"]) for sec in page.sections)
                check(EVIL in text and "<script" not in h.stdout and "<img" not in h.stdout,
                      "markup in a description is text: %s" % h.stdout[h.stdout.find("alert") - 80:][:200])
        r = run([lw, "report", "--format", "htm", os.path.join(root, "fixtures", "demo")])
        check(r.returncode == 2 and "html" in r.stderr, "--format htm: usage error listing html: %s" % r.stderr)
    return finish("report-html: %d reports checked" % len(cases))


sys.exit(main())
