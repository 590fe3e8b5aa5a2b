#!/usr/bin/env python3
"""Every test program in tests/ runs: a tests/*.c, *.py or *.sh file is
named in tests/meson.build (in code, not in a comment) or run by .ci/run
(tests/cross-32.sh, which .ci/run counts), or is a helper that
a named program uses (#include "helpers.h", `from helpers import`, or its
file name quoted), so that a new test cannot sit unregistered and pass by
never running. As git's t/ does with its test-lint.

Every fuzz harness tests/fuzz/*.c is named there too (one test each).

Every test that meson registers (BUILD/meson-info/intro-tests.json, with
BUILD from $LASTWORDS_BUILD_ROOT) has a timeout of at most 60 s, unless it
is in the slow or bench suite: a longer test is split into parts, not given
more time.

The checks must be able to fail: a program that nothing names, and a test
with a timeout of 61 s, added to the lists they read, are reported.

usage: tree-registered.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import re

from helpers import check, fail, finish, setup

PROGRAM = re.compile(r"\.(c|py|sh)$")
MAX_TIMEOUT = 60
LONG_SUITES = ("slow", "bench")


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


def too_long(tests):
    """The names of the tests (meson's introspection) whose timeout is over
    MAX_TIMEOUT s, or none (0), outside LONG_SUITES, sorted."""
    return sorted(t["name"] for t in tests
                  if not (0 < t["timeout"] <= MAX_TIMEOUT)
                  and not any(s.split(":")[-1] in LONG_SUITES for s in t["suite"]))


def main():
    setup(__doc__)
    code = code_of("tests/meson.build") + code_of("meson.build")
    # .ci/run runs tests/cross-32.sh itself (the 32-bit builds): named there
    # as a command, it counts as named, as quoted.
    code += "\n".join("'%s'" % m for m in re.findall(r"\btests/[\w.-]+\.(?:sh|py)\b",
                                                      code_of(".ci/run")))
    texts = {}
    for n in os.listdir("tests"):
        if PROGRAM.search(n) and os.path.isfile(os.path.join("tests", n)):
            with open(os.path.join("tests", n), errors="replace") as f:
                texts[n] = f.read()
    check(len(texts) > 20, "only %d programs found in tests/" % len(texts))
    for n in unregistered(texts, code):
        fail("tests/%s is not registered in tests/meson.build, and no registered test uses it" % n)

    for n in sorted(os.listdir("tests/fuzz")):
        if n.endswith(".c") and not registered(code, n):
            fail("tests/fuzz/%s is not named in tests/meson.build: no test runs it" % n)

    intro = os.path.join(os.environ.get("LASTWORDS_BUILD_ROOT", ""), "meson-info", "intro-tests.json")
    if check(os.path.exists(intro), "no %s (LASTWORDS_BUILD_ROOT)" % intro):
        with open(intro) as f:
            tests = json.load(f)
        for n in too_long(tests):
            t = [x for x in tests if x["name"] == n][0]
            fail("test %s has a timeout of %s s, over %d s outside %s: split it into parts"
                 % (n, t["timeout"], MAX_TIMEOUT, "/".join(LONG_SUITES)))
        ghost = {"name": "ghost", "timeout": MAX_TIMEOUT + 1, "suite": ["lastwords:analyzer"]}
        check(too_long(tests + [ghost]) == sorted(too_long(tests) + ["ghost"]),
              "a test with a timeout of %d s is not reported" % (MAX_TIMEOUT + 1))

    # The check itself: a program that nothing names is found.
    ghost = "probe-%s.c" % "ghost"  # (spelt so that this file does not name it)
    check(unregistered(dict(texts, **{ghost: "int main(void) { return 1; }\n"}), code) ==
          sorted(unregistered(texts, code) + [ghost]),
          "a program that nothing names is not reported")
    return finish("tree-registered: %d programs in tests/" % len(texts))


if __name__ == "__main__":
    raise SystemExit(main())
