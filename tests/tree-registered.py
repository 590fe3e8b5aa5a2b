#!/usr/bin/env python3
"""Every test program in tests/ runs: a tests/*.c, *.py or *.sh file is
named in tests/meson.build (in code, not in a comment), or is a helper that
a named program uses (#include "helpers.h", `from helpers import`, or its
file name quoted), so that a new test cannot sit unregistered and pass by
never running. As git's t/ does with its test-lint.

The check must be able to fail: a program that nothing names, added to the
list it reads, is reported.

usage: tree-registered.py LASTWORDS SOURCE_ROOT
"""
import os
import re

from helpers import check, fail, finish, setup

PROGRAM = re.compile(r"\.(c|py|sh)$")


def code_of(meson_build):
    """The meson file without its comments."""
    with open(meson_build) as f:
        return "\n".join(line.split("#", 1)[0] for line in f)


def registered(code, name):
    """Whether meson code names tests/<name>: as 'name' or as its stem
    ('probe-events' in a list whose entries get '.c' added)."""
    stem = PROGRAM.sub("", name)
    return re.search(r"'(tests/)?(%s|%s)'" % (re.escape(name), re.escape(stem)), code) is not None


def uses(src, name):
    """Whether a program's text uses the helper file name."""
    stem = PROGRAM.sub("", name)
    return (('#include "%s"' % name) in src or
            re.search(r"^\s*(from|import) %s\b" % re.escape(stem), src, re.M) is not None or
            re.search(r"[\"'/]%s[\"']" % re.escape(name), src) is not None)


def unregistered(texts, code):
    """The programs (name -> text) that neither meson code names nor a
    named program uses, sorted."""
    named = {n for n in texts if registered(code, n)}
    # Helpers of helpers (symbols.py uses helpers.py): repeat until no change.
    while True:
        more = {n for n in set(texts) - named if any(uses(texts[u], n) for u in named)}
        if not more:
            break
        named |= more
    return sorted(set(texts) - named)


def main():
    setup(__doc__)
    code = code_of("tests/meson.build") + code_of("meson.build")
    texts = {}
    for n in os.listdir("tests"):
        if PROGRAM.search(n) and os.path.isfile(os.path.join("tests", n)):
            with open(os.path.join("tests", n), errors="replace") as f:
                texts[n] = f.read()
    check(len(texts) > 20, "only %d programs found in tests/" % len(texts))
    for n in unregistered(texts, code):
        fail("tests/%s is not registered in tests/meson.build, and no registered test uses it" % n)

    # The check itself: a program that nothing names is found.
    ghost = "probe-%s.c" % "ghost"  # (spelt so that this file does not name it)
    check(unregistered(dict(texts, **{ghost: "int main(void) { return 1; }\n"}), code) ==
          sorted(unregistered(texts, code) + [ghost]),
          "a program that nothing names is not reported")
    return finish("tree-registered: %d programs in tests/" % len(texts))


if __name__ == "__main__":
    raise SystemExit(main())
