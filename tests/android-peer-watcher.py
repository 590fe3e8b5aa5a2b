#!/usr/bin/env python3
"""PeerWatcher on a JVM against the stand-in android.* classes
(tests/java/AndroidPeer.java): the main process's probe records exactly one
peer_died per death of the bound :inference process, with the pid that
getRunningAppProcesses() listed at bind, whichever of binderDied() and
onServiceDisconnected() comes first, also when they come at once on two
threads (50 deaths); none for a clean unbind (nor a death after it), none
for a process that was not listed; one for a binder dead at bind. Skips
(77) without a JDK.

usage: android-peer-watcher.py LASTWORDS SOURCE_ROOT
"""
import json
import shutil
import sys
import tempfile

from helpers import check, finish, lastwords, setup
from jvm import jvm_or_skip


def main():
    lw, root = setup(__doc__.strip().splitlines()[-1])
    jvm = jvm_or_skip()
    tmp = tempfile.mkdtemp(prefix="lw-android-peer-")
    try:
        p = jvm.run("AndroidPeer", [tmp])
        if not check(p and p.returncode == 0 and p.stdout.startswith("ring "),
                     "AndroidPeer: %s %s" % (p and p.returncode, p and p.stderr[-2000:])):
            return finish("peer watcher")
        ring = p.stdout.split()[1]
        d = lastwords(lw, ["dump", "--json", ring])
        check(d.returncode == 0, "dump: %d %s" % (d.returncode, d.stderr))
        pids = [x["value"] for x in map(json.loads, d.stdout.splitlines())
                if x.get("type") == "mark" and x.get("mark") == "peer_died"]
        want = [4101, 4102, 4104] + list(range(5000, 5050))
        check(pids == want, "one peer_died per death, with its pid, none on unbind: %s" % pids)
    finally:
        shutil.rmtree(tmp)
    return finish("PeerWatcher: %d deaths, %d peer_died" % (53, len(pids)))


if __name__ == "__main__":
    sys.exit(main())
