#!/usr/bin/env python3
"""The guide's "Regression tests for your app" (man/guide.md) works as
written: in a fresh directory, the fixture directory its tree shows is
made, with a copy of fixtures/demo as the bundle and its JSON block as
expect.json; its shell block, run as it is with sh (the built lastwords
first on PATH), exits 0 and prints nothing. With the JSON's first
classification changed to native_crash it exits 1 and prints the line the
guide shows. The JSON block is valid against schemas/expect.schema.json.

usage: docs-guide-check.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import tempfile

from helpers import check, fail, fatal, finish, schema_errors, setup

GUIDE = "man/guide.md"
SECTION = "## Regression tests for your app"


def blocks(text):
    """The fenced blocks of the guide's section: [(language, text)]."""
    start = text.find("\n" + SECTION + "\n")
    if start < 0:
        fatal("%s has no section %r" % (GUIDE, SECTION))
    end = text.find("\n## ", start + 1)
    body = text[start:end if end > 0 else len(text)]
    return re.findall(r"^```(\w*)\n(.*?)^```$", body, re.M | re.S)


def case_dir(tree):
    """The case directory of the tree block: its first line, then the
    line that names a directory under it."""
    lines = tree.splitlines()
    top = lines[0].strip()
    case = next(re.sub(r"^[^\w.]+", "", l).strip() for l in lines[1:] if l.strip().endswith("/"))
    return os.path.join(top, case)


def run(snippet, cwd, lw):
    env = dict(os.environ, PATH=os.path.dirname(lw) + os.pathsep + os.environ.get("PATH", ""))
    return subprocess.run(["sh", "-c", snippet], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)


def main():
    lw, root = setup(__doc__)
    with open(GUIDE) as f:
        got = blocks(f.read())
    by_lang = {}
    for lang, body in got:
        by_lang.setdefault(lang, []).append(body)
    if not (by_lang.get("json") and by_lang.get("sh") and len(by_lang.get("text", [])) == 2):
        fatal("the section's blocks are %r: expected a text tree, JSON, sh and a text output"
              % [lang for lang, _ in got])
    tree, shown = by_lang["text"]
    expect, snippet = by_lang["json"][0], by_lang["sh"][0]
    doc = json.loads(expect)
    for e in schema_errors("schemas/expect.schema.json", doc):
        fail("the guide's expect.json: %s" % e)

    with tempfile.TemporaryDirectory(prefix="lw-readme-") as tmp:
        case = os.path.join(tmp, case_dir(tree))
        shutil.copytree(os.path.join(root, "fixtures/demo"), os.path.join(case, "bundle"))
        with open(os.path.join(case, "expect.json"), "w") as f:
            f.write(expect)
        p = run(snippet, tmp, lw)
        check(p.returncode == 0 and not p.stdout and not p.stderr,
              "the guide's CI step exits %d:\n%s%s" % (p.returncode, p.stdout, p.stderr))

        doc["runs"][0]["classification"] = "native_crash"
        with open(os.path.join(case, "expect.json"), "w") as f:
            json.dump(doc, f, indent=2)
        p = run(snippet, tmp, lw)
        check(p.returncode == 1 and p.stdout.splitlines() == shown.splitlines(),
              "with native_crash expected, the CI step exits %d and prints %r; the guide "
              "shows %r" % (p.returncode, p.stdout, shown))
    return finish("docs-guide-check: the guide's regression test runs as written")


if __name__ == "__main__":
    raise SystemExit(main())
