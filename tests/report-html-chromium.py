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
- the demo: both deaths, the crash and the kill, show their timeline.

The scenarios are drawn a few at a time, their pages' bodies one after the
other in one page (they share its style), so that Chromium starts a few
times, not twice per scenario. The screenshots stay in the build directory
(report-html-chromium/*.png) for a person to look at.

Skipped (77) when chromium is not installed (.ci/install-deps --tests).

usage: report-html-chromium.py LASTWORDS SOURCE_ROOT
"""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from helpers import check, fail, finish, lastwords, setup, skip
from scenarios import read_scenario, scenario_names

WIDTH = 1000
MAX_HEIGHT = 15000      # px of one screenshot
RSS = (0x15, 0x65, 0xc0)
CLOSE = 40              # per channel, for anti-aliasing
MIN_PIXELS = 12

MEASURE = """<script>
(function () {
  var box = function (e) {
    var r = e.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height];
  };
  var runs = [];
  document.querySelectorAll("section.run").forEach(function (s) {
    var page = s.closest("[data-page]");
    var rss = s.querySelector("svg.timeline polyline.rss");
    runs.push({
      page: page ? page.getAttribute("data-page") : "",
      pid: s.getAttribute("data-pid"),
      cls: s.getAttribute("data-class"),
      ring: s.getAttribute("data-ring"),
      box: box(s),
      svgs: Array.prototype.map.call(s.querySelectorAll("svg.timeline"), box),
      rss: rss ? box(rss) : null
    });
  });
  document.body.setAttribute("data-measure", JSON.stringify({
    height: document.documentElement.scrollHeight, runs: runs}));
})();
</script>
"""


def chromium_cmd():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return [path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--force-device-scale-factor=1", "--no-first-run", "--disable-extensions",
                    "--disable-background-networking", "--disable-sync", "--mute-audio"]
    return None


def chromium(cmd, args, timeout=180):
    try:
        return subprocess.run(cmd + args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        fail("chromium %s still runs after %d s" % (" ".join(args[-2:]), timeout))
        return None


def read_png(path):
    """(width, height, rows): each row the pixels' bytes, 3 (RGB) or 4 (RGBA)
    a pixel, from a non-interlaced 8-bit PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or interlace or ctype not in (2, 6):
                raise ValueError("PNG of depth %d, colour type %d, interlace %d" % (depth, ctype, interlace))
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    rows, prev = [], bytes(stride)
    lo7, hi1 = int.from_bytes(b"\x7f" * stride, "big"), int.from_bytes(b"\x80" * stride, "big")
    for y in range(h):
        start = y * (stride + 1)
        f, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            # bytewise (a + b) mod 256 of the whole row at once
            a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            line = bytearray((((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(stride, "big"))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def colour_pixels(png, box):
    """How many pixels of the RSS colour lie inside box (x, y, w, h), with a
    margin of the line's half width."""
    w, h, bpp, rows = png
    x0, y0 = max(0, int(box[0]) - 3), max(0, int(box[1]) - 3)
    x1, y1 = min(w, int(box[0] + box[2]) + 4), min(h, int(box[1] + box[3]) + 4)
    n = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            i = x * bpp
            if abs(row[i] - RSS[0]) <= CLOSE and abs(row[i + 1] - RSS[1]) <= CLOSE and \
                    abs(row[i + 2] - RSS[2]) <= CLOSE:
                n += 1
    return n


def page_parts(text):
    """(head up to <body>, the body's inside) of a report page."""
    head, body = text.split("<body>\n", 1)
    return head, body.rsplit("</body>", 1)[0]


def draw(cmd, tmp, name, pages):
    """Draw pages ([(name, html)]) as one page; (measure, png) or None."""
    head = page_parts(pages[0][1])[0]
    body = "".join('<div data-page="%s">\n%s</div>\n' % (html.escape(n), page_parts(t)[1])
                   for n, t in pages)
    plain = os.path.join(tmp, name + ".html")
    measured = os.path.join(tmp, name + ".measure.html")
    with open(plain, "w") as f:
        f.write(head + "<body>\n" + body + "</body>\n</html>\n")
    with open(measured, "w") as f:
        f.write(head + "<body>\n" + body + MEASURE + "</body>\n</html>\n")
    p = chromium(cmd, ["--window-size=%d,800" % WIDTH, "--dump-dom", "file://" + measured])
    if p is None:
        return None
    m = re.search(r'data-measure="([^"]*)"', p.stdout)
    if not check(m is not None, "%s: chromium measured the page: %s" % (name, p.stderr[-300:])):
        return None
    measure = json.loads(html.unescape(m.group(1)))
    height = min(int(measure["height"]) + 1, MAX_HEIGHT)
    png = os.path.join(tmp, name + ".png")
    p = chromium(cmd, ["--window-size=%d,%d" % (WIDTH, height), "--screenshot=" + png,
                       "file://" + plain])
    if p is None or not check(os.path.exists(png), "%s: a screenshot: %s" % (name, p.stderr[-300:])):
        return None
    try:
        return measure, read_png(png), png
    except (ValueError, zlib.error, struct.error) as e:
        fail("%s: the screenshot does not decode: %s" % (name, e))
        return None


def check_page(name, rep, runs, png):
    """One report's runs, as measured and drawn."""
    check(len(runs) == len(rep["runs"]), "%s: %d sections for %d runs" % (name, len(runs), len(rep["runs"])))
    drawn = 0
    for m, r in zip(runs, rep["runs"]):
        where = "%s: %s pid %d" % (name, r["process"], r["pid"])
        check(m["pid"] == str(r["pid"]), "%s: the sections in the runs' order" % where)
        if not r["classification"]:
            continue
        if r["timeline"] is None:
            check(not m["svgs"], "%s: a ring-less death has no timeline" % where)
            continue
        if not check(len(m["svgs"]) == 1, "%s: %d timelines for one death" % (where, len(m["svgs"]))):
            continue
        box = m["svgs"][0]
        check(box[2] >= 400 and box[3] >= 100, "%s: the timeline's box %s" % (where, box))
        if r["timeline"]["points"]:
            n = colour_pixels(png, m["rss"]) if m["rss"] and box[1] + box[3] <= png[1] else 0
            if check(n >= MIN_PIXELS, "%s: the RSS line's colour in its box %s: %d pixels" %
                     (where, m["rss"], n)):
                drawn += 1
    return drawn


def main():
    lw, root = setup(__doc__)
    cmd = chromium_cmd()
    if not cmd:
        skip("chromium is not installed (.ci/install-deps --tests)")
    keep = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", tempfile.gettempdir()),
                        "report-html-chromium")
    shutil.rmtree(keep, ignore_errors=True)
    os.makedirs(keep)
    reports = [("demo", ["--tz", "+01:00", "fixtures/demo"])]
    for n in scenario_names():
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
    # the demo alone, as a person sees it; then the scenarios a few at a time
    batches = [pages[:1]] + [pages[i:i + 6] for i in range(1, len(pages), 6)]
    for k, batch in enumerate(batches):
        name = "demo" if k == 0 else "scenarios-%d" % k
        got = draw(cmd, keep, name, [(n, h) for n, _, h in batch])
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
        if k == 0:
            demo = [r for r in batch[0][1]["runs"] if r["outcome"] in ("crashed", "died")]
            check(len(demo) == 2, "demo: the crash and the kill")
    return finish("report-html-chromium: %d pages, %d deaths' RSS lines drawn of %d (screenshots "
                  "in %s)" % (len(pages), drawn, deaths, keep))


sys.exit(main())
