#!/usr/bin/env python3
"""Each rule's one-line meaning is written twice in analyzer/classify.c, on
purpose: as the comment directly above the rule's function, where a reader
of the code meets it, and as the `meaning` of its row in the rules table,
which `lastwords rules` and the report print. They must be the same words
(whitespace aside). Checked: every row with a function (.fire) has its
comment, equal to the row's meaning; `lastwords rules` prints each row's
meaning; and the check refuses a planted mismatch and a missing comment.

usage: rules-meanings.py LASTWORDS SOURCE_ROOT
"""
import re

from helpers import check, fail, finish, lastwords, setup

ROW = re.compile(r'\{ "([a-z-]+)", "((?:[^"\\]|\\.)*)",\s*(?:\.fire = (rule_\w+))?')


def words(text):
    return " ".join(text.split())


def comment_above(src, fn):
    """The text of the comment that ends on the line before fn's
    definition, or None."""
    m = re.search(r"(/\*(?:(?!\*/).)*\*/)\n(?:static )?int %s\(" % re.escape(fn), src, re.S)
    if not m:
        return None
    body = m.group(1)[2:-2]
    return words(" ".join(line.strip().lstrip("*") for line in body.split("\n")))


def problems(src):
    """(rows found, messages) for classify.c's text src."""
    table = src[src.index("const struct rule rules[] = {"):]
    table = table[:table.index("\n};")]
    rows = ROW.findall(table)
    out = []
    for rid, meaning, fn in rows:
        if not fn:
            continue  # an exit row: the table is its one home
        said = comment_above(src, fn)
        if said is None:
            out.append("rule %s: %s() has no comment above it" % (rid, fn))
        elif said != words(meaning):
            out.append("rule %s: the comment above %s() says %r, the table %r"
                       % (rid, fn, said, meaning))
    return rows, out


def main():
    lw, _ = setup(__doc__)
    with open("analyzer/classify.c") as f:
        src = f.read()
    rows, msgs = problems(src)
    for m in msgs:
        fail(m)
    fired = [r for r in rows if r[2]]
    check(len(rows) >= 30 and len(fired) >= 25,
          "only %d rows, %d with a function, found in the table" % (len(rows), len(fired)))

    p = lastwords(lw, ["rules"])
    printed = {}
    for line in p.stdout.splitlines():
        rid, _, meaning = line.partition(" ")
        printed[rid] = words(meaning)
    for rid, meaning, _ in rows:
        check(printed.get(rid) == words(meaning),
              "lastwords rules prints %s as %r, the table says %r" % (rid, printed.get(rid), meaning))

    # The check must refuse what it is there to refuse.
    rid, meaning, fn = fired[0]
    planted = src.replace("/* %s" % meaning[:20], "/* not %s" % meaning[:20], 1)
    check(planted != src and problems(planted)[1],
          "a comment that differs from its row's meaning (%s) is not reported" % rid)
    gone = re.sub(r"/\*[^/]*\*/\n(static int %s\()" % fn, r"\1", src, count=1)
    check(gone != src and problems(gone)[1],
          "a rule function without its comment (%s) is not reported" % fn)
    return finish("rules-meanings: %d rules, %d with a function of their own" % (len(rows), len(fired)))


if __name__ == "__main__":
    raise SystemExit(main())
