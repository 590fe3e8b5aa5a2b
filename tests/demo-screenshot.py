#!/usr/bin/env python3
"""Make man/demo-report.png, the README's picture: the demo's HTML report
(`lastwords report --format html --tz +01:00 fixtures/demo`, as the
README's first command reports it) drawn by headless Chromium in a
1200x900 window. The PNG carries the SHA-256 of the page it shows in a
tEXt chunk (keyword "lastwords-html-sha256"), so tests/docs-readme.py can
tell a stale picture from a current one without comparing pixels.

Run it after a change to the HTML report: `meson compile -C build
demo-screenshot`.

usage: demo-screenshot.py LASTWORDS SOURCE_ROOT
"""
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

PNG = "man/demo-report.png"
KEYWORD = b"lastwords-html-sha256"
MAX_BYTES = 200 * 1024
COMMAND = ["report", "--format", "html", "--tz", "+01:00", "fixtures/demo"]


def demo_html(lw):
    """The page, as bytes."""
    return subprocess.run([lw] + COMMAND, check=True, capture_output=True, timeout=60).stdout


def with_text(png, keyword, text):
    """png with a tEXt chunk keyword=text after its IHDR."""
    ihdr_end = 8 + 8 + struct.unpack(">I", png[8:12])[0] + 4
    body = keyword + b"\0" + text
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body + \
        struct.pack(">I", zlib.crc32(b"tEXt" + body) & 0xffffffff)
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def text_chunk(png, keyword):
    """The text of png's tEXt chunk keyword, or None."""
    pos = 8
    while pos + 8 <= len(png):
        n, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + n]
        if kind == b"tEXt" and body.startswith(keyword + b"\0"):
            return body[len(keyword) + 1:]
        pos += 12 + n
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    lw, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.chdir(root)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("demo-screenshot: needs chromium", file=sys.stderr)
        return 1
    page = demo_html(lw)
    with tempfile.TemporaryDirectory(prefix="lw-screenshot-") as tmp:
        html, out = os.path.join(tmp, "demo.html"), os.path.join(tmp, "out.png")
        with open(html, "wb") as f:
            f.write(page)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                        "--force-device-scale-factor=1",
                        "--user-data-dir=" + os.path.join(tmp, "profile"),
                        "--screenshot=" + out, "--window-size=1200,900", "file://" + html],
                       check=True, capture_output=True, timeout=120)
        with open(out, "rb") as f:
            png = f.read()
    png = with_text(png, KEYWORD, hashlib.sha256(page).hexdigest().encode())
    if len(png) > MAX_BYTES:
        print("demo-screenshot: %d bytes, over %d" % (len(png), MAX_BYTES), file=sys.stderr)
        return 1
    with open(PNG + ".tmp", "wb") as f:
        f.write(png)
    os.rename(PNG + ".tmp", PNG)
    print("demo-screenshot: %s, %d bytes" % (PNG, len(png)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
