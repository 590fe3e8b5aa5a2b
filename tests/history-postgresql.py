#!/usr/bin/env python3
"""The trend queries past one machine, on a real PostgreSQL server: the
fixtures of fixtures/history ingested, their `lastwords export --format
ndjson` rows loaded as schemas/verdict-row.postgresql.sql says (the
README's loading step), and the statements "totals", "rates",
"regressions" and "signatures" of schemas/history-queries.postgresql.sql
giving the figures of `lastwords history --format json` for every case of
fixtures/history/expected.json (all runs, a date, a time of day) and every
--by grouping (signature: from the export's crash_signature).

The server is started by the test under a temporary directory (initdb,
then pg_ctl on a unix socket there and no TCP port; as nobody through
setpriv when the test runs as root, since PostgreSQL refuses root), and
always stopped. Skipped (77) without Debian's postgresql
(/usr/lib/postgresql/*/bin) or where the server cannot start.

usage: history-postgresql.py LASTWORDS SOURCE_ROOT
"""
import csv
import glob
import io
import json
import os
import pwd
import re
import shutil
import sys
import tempfile

from helpers import check, fail, finish, lastwords, run, setup, skip

FIXTURES = "fixtures/history"
TABLE = "schemas/verdict-row.postgresql.sql"
QUERIES = "schemas/history-queries.postgresql.sql"
NULL = "\\N"


def server_bin():
    dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                  key=lambda d: [int(x) for x in re.findall(r"\d+", d)])
    for d in reversed(dirs):
        if all(os.access(os.path.join(d, p), os.X_OK) for p in ("initdb", "pg_ctl", "psql")):
            return d
    skip("no PostgreSQL server (apt-get install postgresql): no initdb, pg_ctl and psql "
         "under /usr/lib/postgresql/*/bin")


def as_server_user(tmp):
    """The command prefix that runs the server's programs: as nobody when
    this runs as root, the directory handed to that user."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if not setpriv:
        skip("running as root without setpriv: PostgreSQL will not run as root")
    nobody = pwd.getpwnam("nobody")
    os.chown(tmp, nobody.pw_uid, nobody.pw_gid)
    return [setpriv, "--reuid=%d" % nobody.pw_uid, "--regid=%d" % nobody.pw_gid, "--clear-groups"]


def statements(path):
    text = open(path).read()
    parts = re.split(r"^-- name: (\S+)\n", text, flags=re.M)
    return dict((parts[i], parts[i + 1]) for i in range(1, len(parts), 2))


class Server:
    def __init__(self, bindir, tmp):
        self.bindir, self.tmp = bindir, tmp
        self.data = os.path.join(tmp, "data")
        self.prefix = as_server_user(tmp)
        self.started = False

    def tool(self, name, args):
        return run(self.prefix + [os.path.join(self.bindir, name)] + args, cwd=self.tmp)

    def start(self):
        p = self.tool("initdb", ["-D", self.data, "--auth=trust", "--username=lw", "--encoding=UTF8",
                                 "--locale=C", "--no-sync"])
        if p.returncode != 0:
            skip("initdb cannot make a cluster here: %s" % (p.stderr.strip() or p.stdout.strip())[-600:])
        log = os.path.join(self.tmp, "server.log")
        p = self.tool("pg_ctl", ["-D", self.data, "-l", log, "-w", "-t", "60", "-o",
                                 "-c listen_addresses='' -k %s -c fsync=off" % self.tmp, "start"])
        self.started = True  # stopped in any case: pg_ctl may time out with a server up
        if p.returncode != 0:
            text = open(log).read() if os.path.exists(log) else p.stderr
            skip("the PostgreSQL server does not start here: %s" % text.strip()[-600:])

    def stop(self):
        if self.started:
            self.tool("pg_ctl", ["-D", self.data, "-m", "immediate", "-w", "stop"])
            self.started = False

    def psql(self, args, what, script=None):
        """psql with ON_ERROR_STOP, its output as CSV rows (NULL as \\N);
        script, when given, is its standard input (where it sets :by and
        :since)."""
        p = run([os.path.join(self.bindir, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "--csv",
                 "-P", "null=" + NULL, "-h", self.tmp, "-U", "lw", "-d", "postgres"] + args,
                input=script)
        if p.returncode != 0:
            fail("%s: psql exits %d: %s" % (what, p.returncode, p.stderr.strip()))
            return []
        return list(csv.reader(io.StringIO(p.stdout)))


def load_step(root):
    """The loading step as the header of verdict-row.postgresql.sql writes
    it: its -c commands, for the file verdicts.ndjson."""
    head = open(os.path.join(root, TABLE)).read()
    cmds = re.findall(r'-c "(.*?)"(?: \\)?$', head, flags=re.M)
    check(len(cmds) == 2 and "verdicts.ndjson" in cmds[0],
          "%s: its header gives the \\copy and INSERT commands: %s" % (TABLE, cmds))
    return cmds


def value(x):
    return None if x == NULL else x


def rates_groups(rows):
    """The "rates" rows (a header, then rows) as lastwords' groups."""
    groups = []
    for grp, runs, died, first_seen, cls, level, n in (tuple(map(value, r)) for r in rows[1:]):
        if not groups or groups[-1]["group"] != grp:
            groups.append({"group": grp, "runs": int(runs), "died": int(died),
                           "first_seen": first_seen, "counts": {}})
        if cls is not None:
            groups[-1]["counts"].setdefault(cls, {})[level] = int(n)
    return groups


def lastwords_groups(out):
    return [{"group": g["group"], "runs": g["runs"], "died": g["died"], "first_seen": g["first_seen"],
             "counts": {c: {lv: n for lv, n in x.items() if lv in ("confirmed", "supported", "unconfirmed")
                            and n} for c, x in g["classes"].items() if x["total"]}}
            for g in out["groups"]]


def regression_rows(rows):
    out = []
    for r in rows[1:]:
        dim, package, prev, grp, cls, pc, pr, c, n, stages = map(value, r)
        out.append((dim, package, grp, prev, cls, int(c), int(n), int(pc), int(pr),
                    tuple(json.loads(stages).items())))
    return out


def lastwords_regressions(out):
    return [(r["dimension"], r["package"], r["group"], r["previous"], r["class"], r["count"], r["runs"],
             r["previous_count"], r["previous_runs"], tuple(r["stages"].items()))
            for r in out["regressions"]]


def signature_rows(rows):
    return [tuple(value(x) for x in r) for r in rows[1:]]


def lastwords_signatures(out):
    s = lambda x: None if x is None else str(x)
    return [(x["package"], x["signature"], str(x["runs"]), str(x["versions"]), s(x["first_version"]),
             s(x["last_version"]), x["first_seen"], x["last_seen"]) for x in out["signatures"]]


def main():
    lw, root = setup("usage: history-postgresql.py LASTWORDS SOURCE_ROOT")
    bindir = server_bin()
    for need in (FIXTURES, TABLE, QUERIES):
        if not os.path.exists(need):
            skip("%s is missing" % need)
    cases = json.load(open(os.path.join(FIXTURES, "expected.json")))["cases"]
    stmts = statements(QUERIES)
    bundles_dir = os.path.join(FIXTURES, "bundles")
    bundles = sorted(os.path.join(bundles_dir, n) for n in os.listdir(bundles_dir))
    compared = 0
    tmp = tempfile.mkdtemp(prefix="lw-pg-")
    server = Server(bindir, tmp)
    try:
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        db = os.path.join(work, "history.db")
        p = lastwords(lw, ["ingest", "--db", db] + bundles)
        check(p.returncode == 0, "ingest exits %d: %s" % (p.returncode, p.stderr))
        p = lastwords(lw, ["export", "--db", db, "--format", "ndjson", "-o",
                           os.path.join(work, "verdicts.ndjson")])
        check(p.returncode == 0, "export exits %d: %s" % (p.returncode, p.stderr))
        nrows = len(open(os.path.join(work, "verdicts.ndjson")).read().splitlines())

        server.start()
        cmds = load_step(root)
        os.chdir(work)  # the step names verdicts.ndjson where it lies
        args = ["-f", os.path.join(root, TABLE)]
        for c in cmds:
            args += ["-c", c]
        server.psql(args, "the loading step")
        os.chdir(root)
        rows = server.psql(["-c", "SELECT count(*) FROM lastwords_verdicts"], "count")
        check(rows[1:] == [[str(nrows)]], "%d NDJSON rows loaded, not %s" % (nrows, rows[1:]))
        # The table has the row's columns, in order (jsonb_populate_record
        # would leave a key it lacks behind without a word).
        keys = list(json.loads(open(os.path.join(work, "verdicts.ndjson")).readline()))
        cols = server.psql(["-c", "SELECT column_name FROM information_schema.columns WHERE "
                            "table_name = 'lastwords_verdicts' ORDER BY ordinal_position"], "columns")
        check([c[0] for c in cols[1:]] == keys, "%s has the columns %s, the NDJSON rows %s"
              % (TABLE, [c[0] for c in cols[1:]], keys))

        for case in cases:
            since = case["since"]
            for by in list(case["groupings"]) + ["ring", "sdk", "delegate", "runtime"]:
                where = "%s, --by %s" % (case["name"], by)
                args = ["history", "--db", db, "--by", by, "--format", "json"]
                p = lastwords(lw, args + (["--since", since] if since else []))
                if not check(p.returncode == 0, "%s: history exits %d: %s" % (where, p.returncode, p.stderr)):
                    continue
                out = json.loads(p.stdout)
                params = ["-v", "by=" + by, "-v", "since=" + (since or "")]
                got = {}
                for name in ("totals", "rates", "regressions"):
                    got[name] = server.psql(params, "%s: %s" % (where, name), stmts[name])
                compared += 1
                check(got["totals"][1:] == [[str(out["runs"]), str(out["bundles"])]],
                      "%s: totals %s, lastwords %d runs in %d bundles"
                      % (where, got["totals"][1:], out["runs"], out["bundles"]))
                check(rates_groups(got["rates"]) == lastwords_groups(out),
                      "%s: PostgreSQL's rates differ:\n    postgresql %s\n    lastwords  %s"
                      % (where, json.dumps(rates_groups(got["rates"])), json.dumps(lastwords_groups(out))))
                check(regression_rows(got["regressions"]) == lastwords_regressions(out),
                      "%s: PostgreSQL's regressions differ:\n    postgresql %s\n    lastwords  %s"
                      % (where, regression_rows(got["regressions"]), lastwords_regressions(out)))
                check(out["regressions"] or by != "candidate" or since,
                      "the fixtures have regressions to compare")
            # The crash signatures (history --by signature) from the
            # export's crash_signature.
            where = "%s, --by signature" % case["name"]
            p = lastwords(lw, ["history", "--db", db, "--by", "signature", "--format", "json"] +
                          (["--since", since] if since else []))
            if not check(p.returncode == 0, "%s: history exits %d: %s" % (where, p.returncode, p.stderr)):
                continue
            out = json.loads(p.stdout)
            got = server.psql(["-v", "by=signature", "-v", "since=" + (since or "")], where,
                              stmts["signatures"])
            compared += 1
            check(signature_rows(got) == lastwords_signatures(out),
                  "%s: PostgreSQL's signatures differ:\n    postgresql %s\n    lastwords  %s"
                  % (where, signature_rows(got), lastwords_signatures(out)))
            check(out["signatures"] or since, "the fixtures have a crash signature to compare")
    finally:
        os.chdir(root)
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("%d NDJSON rows in PostgreSQL (%s), %d cases x groupings compared"
                  % (nrows, os.path.basename(os.path.dirname(bindir)), compared))


if __name__ == "__main__":
    sys.exit(main())
