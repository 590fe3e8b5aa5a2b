"""What the tests that draw a page in headless Chromium share
(report-html-chromium.py, history-html.py): finding chromium, running it
with --dump-dom on a copy of a page with a measuring script added (the page
itself has none) and with --screenshot on the page itself, and reading the
PNG with zlib and the PNG filters, no module beyond the standard library."""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import zlib

from helpers import check, fail

WIDTH = 1000
MAX_HEIGHT = 15000      # px of one screenshot
CLOSE = 40              # per channel, for anti-aliasing

MEASURE = """<script>
(function () {
  var box = function (e) {
    var r = e.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height];
  };
  var m = {};
%s
  m.height = document.documentElement.scrollHeight;
  document.body.setAttribute("data-measure", JSON.stringify(m));
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


def colour_pixels(png, box, rgb):
    """How many pixels of the colour rgb lie inside box (x, y, w, h), with a
    margin of 3 px (a line's half width)."""
    w, h, bpp, rows = png
    x0, y0 = max(0, int(box[0]) - 3), max(0, int(box[1]) - 3)
    x1, y1 = min(w, int(box[0] + box[2]) + 4), min(h, int(box[1] + box[3]) + 4)
    n = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            i = x * bpp
            if abs(row[i] - rgb[0]) <= CLOSE and abs(row[i + 1] - rgb[1]) <= CLOSE and \
                    abs(row[i + 2] - rgb[2]) <= CLOSE:
                n += 1
    return n


def page_parts(text):
    """(head up to <body>, the body's inside) of a report page."""
    head, body = text.split("<body>\n", 1)
    return head, body.rsplit("</body>", 1)[0]


def draw(cmd, tmp, name, pages, measure_js):
    """Draw pages ([(name, html)]) as one page, each page's body in a <div
    data-page="name">: (measure, png, path) or None. measure_js is
    JavaScript that fills the object m (box(element) gives an element's
    [left, top, width, height]); it runs in a copy that --dump-dom loads,
    and measure is m with the page's "height"."""
    head = page_parts(pages[0][1])[0]
    body = "".join('<div data-page="%s">\n%s</div>\n' % (html.escape(n), page_parts(t)[1])
                   for n, t in pages)
    plain = os.path.join(tmp, name + ".html")
    measured = os.path.join(tmp, name + ".measure.html")
    with open(plain, "w") as f:
        f.write(head + "<body>\n" + body + "</body>\n</html>\n")
    with open(measured, "w") as f:
        f.write(head + "<body>\n" + body + MEASURE % measure_js + "</body>\n</html>\n")
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
