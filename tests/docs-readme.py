#!/usr/bin/env python3
"""The README as a newcomer runs it:

- its quick start is the two commands, exactly as written here; the report
  its first command ends with runs from the source root and says what the
  README says of it (native_crash and low_memory, both confirmed);
- its command table lists exactly the commands of main.c's table, in its
  order, each with the summary its `lastwords help CMD` prints;
- its pull-then-report block runs as written against the stand-in adb of
  tests/fake-adb.py playing the demo's device (exit 0 both);
- every file it links or shows exists; its picture is a PNG under 200 KB
  that tests/demo-screenshot.py made of the demo's HTML report as
  lastwords writes it now (the page's SHA-256 in the PNG's tEXt chunk): a
  change to the page that leaves the picture stale fails here, with the
  command that makes it again. No pixel is compared.

usage: docs-readme.py LASTWORDS SOURCE_ROOT
"""
import hashlib
import os
import re
import subprocess
import tempfile

from helpers import check, finish, run, setup
from pull_scenario import Env, demo_device

QUICK_START = [
    ".ci/install-deps && meson setup build && meson compile -C build && "
    "build/analyzer/lastwords report --tz +01:00 fixtures/demo",
    ".ci/run",
]
PNG_MAX = 200 * 1024
KEYWORD = b"lastwords-html-sha256"
HTML = ["report", "--format", "html", "--tz", "+01:00", "fixtures/demo"]


def blocks(text, lang):
    return re.findall(r"^```%s\n(.*?)^```$" % lang, text, re.M | re.S)


def text_chunk(png, keyword):
    pos = 8
    while pos + 8 <= len(png):
        n, kind = int.from_bytes(png[pos:pos + 4], "big"), png[pos + 4:pos + 8]
        body = png[pos + 8:pos + 8 + n]
        if kind == b"tEXt" and body.startswith(keyword + b"\0"):
            return body[len(keyword) + 1:].decode()
        pos += 12 + n
    return None


def main():
    lw, root = setup(__doc__)
    readme = open("README.md").read()
    sh = blocks(readme, "sh")
    check([b.strip() for b in sh[:2]] == QUICK_START,
          "the README's quick start is the two commands: %r" % sh[:2])

    p = run([lw, "report", "--tz", "+01:00", "fixtures/demo"])
    check(p.returncode == 0 and "verdict    native_crash, confirmed" in p.stdout and
          "verdict    low_memory, confirmed" in p.stdout,
          "the quick start's report exits %d: %s" % (p.returncode, p.stdout[-300:]))

    # The command table, against main.c's and each command's help.
    table = re.search(r"\n\| command \| what it does \|\n\|---\|---\|\n((?:\|.*\|\n)+)", readme)
    rows = [re.match(r"\| `(\w+)` \| (.*) \|$", l).groups() for l in table.group(1).splitlines()] \
        if check(table, "the README has the command table") else []
    main_c = open("analyzer/main.c").read()
    names = re.findall(r'\{ "([a-z]+)", cmd_',
                       re.search(r"struct command commands\[\] = \{(.*?)\n\};", main_c, re.S).group(1))
    check([n for n, _ in rows] == names,
          "the README's commands %s are main.c's %s" % ([n for n, _ in rows], names))
    for name, what in rows:
        h = run([lw, "help", name]).stdout.splitlines()
        check(h and h[0] == "lastwords %s: %s" % (name, what),
              "the README says %s: %r; its help: %r" % (name, what, h[:1]))

    # The pull-then-report block, as written, against the demo's device.
    pulls = [b for b in sh if "lastwords pull" in b]
    if check(len(pulls) == 1, "the README has one pull block"):
        with tempfile.TemporaryDirectory(prefix="lw-readme-") as tmp:
            env = Env(lw, root, tmp)
            case, scen, log = env.case([demo_device(root, "emulator-5554")])
            e = env.env(scen, log)
            e["PATH"] = os.path.dirname(lw) + os.pathsep + e.get("PATH", "")
            p = subprocess.run(["sh", "-ec", pulls[0]], cwd=case, env=e, capture_output=True,
                               text=True, timeout=60)
            check(p.returncode == 0 and "verdict    native_crash, confirmed" in p.stdout,
                  "the README's pull and report exit %d: %s" % (p.returncode, p.stderr[-300:]))

    # Links and the picture.
    for target in re.findall(r"\]\(([^)#:]+)\)", readme):
        check(os.path.exists(target), "the README links %s, which exists" % target)
    pics = re.findall(r"!\[[^]]+\]\(([^)]+\.png)\)", readme)
    if check(len(pics) == 1, "the README shows one picture: %s" % pics):
        png = open(pics[0], "rb").read() if os.path.exists(pics[0]) else b""
        check(png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) < PNG_MAX,
              "%s is a PNG under %d bytes (%d)" % (pics[0], PNG_MAX, len(png)))
        page = run([lw] + HTML, text=False).stdout
        want = hashlib.sha256(page).hexdigest()
        got = text_chunk(png, KEYWORD)
        check(got == want,
              "%s is stale: it shows a page of SHA-256 %s, the demo's page is now %s; make it "
              "again with `meson compile -C BUILD demo-screenshot` and look at it" %
              (pics[0], got, want))
    return finish("docs-readme: the README runs as written, its table and picture current")


if __name__ == "__main__":
    raise SystemExit(main())
