#!/usr/bin/env python3
"""The command line's help, as people expect it of git, adb and sqlite3:

- `lastwords --help`, `-h`, `help` and `help help` print the same text on stdout, exit 0,
  list every command of main.c's command table (and no other) and mention
  --version; `lastwords` alone prints it on stderr and exits 2;
- for every command of that table, `lastwords help CMD` and `lastwords CMD
  --help` print the same text on stdout with nothing on stderr and exit 0:
  the command's summary, its synopsis (the very one its usage errors print),
  its options one a line, and an example;
- the options it lists are exactly the long options that the command's
  getopt_long() tables accept (read from analyzer/cmd-CMD.c, the tables it
  shares from main.c, and JOIN_OPTIONS), but for one the
  command refuses by name ("check takes no --format"); each listed option
  is accepted when run, and lastwords(1) names it;
- every example runs as written, in order, in one fresh directory that has
  the source tree's fixtures/ (pull against the stand-in adb of
  tests/fake-adb.py playing the demo's device), and exits 0 (gate: 15, not
  yet, as the demo alone cannot re-enable a candidate);
- `lastwords help nope` is a usage error (exit 2, on stderr).

usage: cli-help.py LASTWORDS SOURCE_ROOT
"""
import os
import re
import shlex
import subprocess
import tempfile

from helpers import check, fail, finish, setup
from pull_scenario import Env, demo_device

# The exit status of each example that does not exit 0, and why.
EXAMPLE_STATUS = {"gate": 15}  # one bundle is no device matrix: not yet


def command_table():
    """The command names of main.c's table, in its order."""
    text = open("analyzer/main.c").read()
    table = re.search(r"struct command commands\[\] = \{(.*?)\n\};", text, re.S).group(1)
    return re.findall(r'\{ "([a-z]+)", cmd_', table)


def option_tables(name):
    """The long options the command's getopt_long() tables accept."""
    src = open("analyzer/cmd-%s.c" % name).read()
    texts = [src]
    main_c = open("analyzer/main.c").read()
    for shared in ("parse_json_options", "parse_report_options"):
        if shared + "(" in src:  # the body of its definition in main.c
            body = re.search(r"\nint %s\(.*?\n\}\n" % shared, main_c, re.S)
            texts.append(body.group(0))
    join = re.search(r"#define JOIN_OPTIONS\b(.*?[^\\])\n", open("analyzer/commands.h").read(), re.S)
    names = set()
    for text in texts:
        for table in re.findall(r"struct option opts\[\] = \{(.*?)\n\t*\};", text, re.S):
            if "JOIN_OPTIONS" in table:
                table += join.group(1)
            names |= set(re.findall(r'\{ "([a-z-]+)", (?:no|required)_argument', table))
    return names


def sections(help_text):
    """{heading: [lines]} of a command's help: the first line, then the
    blocks that start "usage:", "options:" and "example:"."""
    out, cur = {"summary": [help_text.splitlines()[0]]}, None
    for line in help_text.splitlines()[1:]:
        m = re.match(r"(usage|options|example):", line)
        if m:
            cur = m.group(1)
            out[cur] = [line[len(cur) + 1:].strip()] if line[len(cur) + 1:].strip() else []
        elif cur and line.strip():
            out[cur].append(line)
        elif not line.strip():
            cur = None if cur != "usage" else None
    return out


def listed_options(opt_lines):
    """[(long option, its short letter or None, takes a value)] of the
    options block."""
    got = []
    for line in opt_lines:
        if not line.startswith("  ") or line.startswith("   "):
            continue  # a meaning on a line of its own
        spec = re.split(r"\s{2,}", line.strip())[0]
        short = re.match(r"-([a-zA-Z]), ", spec)
        for m in re.finditer(r"--([a-z-]+)( \S+)?", spec):
            got.append((m.group(1), short and short.group(1), bool(m.group(2))))
    return got


def main():
    lw, root = setup(__doc__)
    with tempfile.TemporaryDirectory(prefix="lw-cli-help-") as tmp:
        checks(lw, root, tmp)
    return finish("cli-help: every command's help lists its options and an example that runs")


def checks(lw, root, tmp):
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    os.symlink(os.path.join(root, "fixtures"), os.path.join(work, "fixtures"))

    def run(cmd, env=None):
        """cmd run in the work directory (where an option's value names a
        file), its output as text, a signal a failure."""
        p = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True,
                           errors="replace", timeout=60)
        if p.returncode < 0:
            fail("%s killed by signal %d" % (" ".join(cmd), -p.returncode))
        return p
    names = command_table()
    check(len(names) >= 13, "main.c's command table has %d commands" % len(names))
    man = open("man/lastwords.1").read()

    top = run([lw, "--help"])
    check(top.returncode == 0 and not top.stderr, "--help exits %d: %s" % (top.returncode, top.stderr))
    for alias in (["help"], ["-h"], ["help", "help"]):
        p = run([lw] + alias)
        check(p.returncode == 0 and p.stdout == top.stdout,
              "lastwords %s prints what --help prints (exit %d)" % (alias[0], p.returncode))
    p = run([lw])
    check(p.returncode == 2 and p.stderr == top.stdout and not p.stdout,
          "lastwords alone: the usage on stderr, exit 2 (got %d)" % p.returncode)
    listed = re.search(r"\ncommands:\n(.*?)\n\n", top.stdout, re.S)
    listed = [l.split()[0] for l in listed.group(1).splitlines()] if listed else []
    check(listed == names + ["help"],
          "lastwords --help lists the command table and help: %s, table %s" % (listed, names))
    check("--version" in top.stdout, "lastwords --help mentions --version")

    for name in names:
        a, b = run([lw, "help", name]), run([lw, name, "--help"])
        if not check(a.returncode == 0 and not a.stderr and a.stdout,
                     "help %s exits %d: %s" % (name, a.returncode, a.stderr)):
            continue
        check(b.returncode == 0 and not b.stderr and b.stdout == a.stdout,
              "%s --help prints what help %s prints (exit %d)\n%s\n%s" %
              (name, name, b.returncode, b.stdout, a.stdout))
        s = sections(a.stdout)
        check(s["summary"][0].startswith("lastwords %s: " % name),
              "help %s starts with its summary: %r" % (name, s["summary"][0]))
        check(s.get("usage") and s["usage"][0].startswith("lastwords " + name),
              "help %s has its synopsis: %r" % (name, s.get("usage")))
        check(s.get("options"), "help %s lists its options" % name)
        check(s.get("example") and len(s["example"]) == 1,
              "help %s has one example line: %r" % (name, s.get("example")))

        # The synopsis is the one the usage errors print.
        p = run([lw, name, "--no-such-option"])
        err = p.stderr.split("\nusage: ", 1)
        synopsis = "\n".join(s.get("usage", []))
        check(p.returncode == 2 and len(err) == 2 and err[1].rstrip("\n") == synopsis,
              "%s's usage error prints the help's synopsis: %r, help %r" %
              (name, p.stderr, synopsis))

        opts = listed_options(s.get("options", []))
        longs = {o for o, _, _ in opts}
        table = option_tables(name)
        check("help" in longs, "help %s lists --help" % name)
        for o in sorted(table - longs):
            p = run([lw, name, "--" + o, "x", "y", "z"], env=dict(os.environ, ADB="/bin/false"))
            check(p.returncode == 2 and "takes no --%s" % o in p.stderr,
                  "%s accepts --%s, which its help does not list" % (name, o))
        for o, short, value in opts:
            check(o in table, "help %s lists --%s, which its getopt table lacks" % (name, o))
            p = run([lw, name, "--" + o] + (["x"] if value else []),
                    env=dict(os.environ, ADB="/bin/false"))
            check("unknown option" not in p.stderr,
                  "%s --%s is refused as unknown: %s" % (name, o, p.stderr))
            check(o == "help" or "Fl Fl " + o in man or short and "Fl %s Ar" % short in man,
                  "lastwords(1) names %s --%s" % (name, o))

    p = run([lw, "help", "nope"])
    check(p.returncode == 2 and not p.stdout and "unknown command 'nope'" in p.stderr,
          "help nope: exit %d, %r" % (p.returncode, p.stderr[:80]))

    # The examples, as written, in the command table's order (ingest makes
    # the database that history and export read).
    env = Env(lw, root, tmp)
    _, scen, log = env.case([demo_device(root, "emulator-5554")])
    for name in names:
        example = sections(run([lw, "help", name]).stdout).get("example", [""])[0].strip()
        words = shlex.split(example)
        if not check(words[:2] == ["lastwords", name],
                     "help %s's example runs lastwords %s: %r" % (name, name, example)):
            continue
        p = run([lw] + words[1:], env=env.env(scen, log))
        want = EXAMPLE_STATUS.get(name, 0)
        check(p.returncode == want and (p.stdout.strip() or name in ("check", "trace", "export", "pull")),
              "help %s's example `%s` exits %d (want %d), printing %d bytes: %s" %
              (name, example, p.returncode, want, len(p.stdout), p.stderr[-400:]))
    for made in ("demo.pftrace", "history.db", "verdicts.ndjson", "pulled/manifest.json"):
        path = os.path.join(work, made)
        check(os.path.exists(path) and os.path.getsize(path) > 0, "the examples made %s" % made)


if __name__ == "__main__":
    raise SystemExit(main())
