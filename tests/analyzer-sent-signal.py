#!/usr/bin/env python3
"""A crash record of a signal that a process sent (si_code <= 0: abort(),
kill, tgkill) has no fault address: si_addr shares its bytes with the
sender's pid and uid. dump and inspect say "sent by pid N" where a fault
says "at 0xADDR", in the timeline and in the last words; a sent signal
whose sender is not known says "sent by a process"; a fault still gives
its address. dump --json keeps the slot's fields (si_code, sender_pid).

usage: analyzer-sent-signal.py LASTWORDS SOURCE_ROOT
"""
import json
import os
import struct
import sys
import tempfile

from helpers import check, finish, lastwords, ring_edit, setup

SENDER, UID = 4321, 10187


def sent_abort(sender):
    """A slot editor: the crash record becomes SIGABRT from tgkill()."""
    def edit(ticket, s):
        if s[16] != 6:  # LW_EV_CRASH
            return
        s[18] = 6  # SIGABRT
        # a: si_addr, which for a sent signal is si_pid and si_uid; b: SI_TKILL
        struct.pack_into("<QqQI", s, 32, UID << 32 | sender, -6, struct.unpack_from("<Q", s, 48)[0],
                         sender)
    return edit


def main():
    lw, root = setup("usage: analyzer-sent-signal.py LASTWORDS SOURCE_ROOT")
    src = "fixtures/rings/crashed-delegate.lwr"
    with tempfile.TemporaryDirectory() as tmp:
        for sender, want in ((SENDER, "sent by pid %d" % SENDER), (0, "sent by a process")):
            ring = os.path.join(tmp, "abort-%d.lwr" % sender)
            ring_edit(src, ring, slot=sent_abort(sender))
            with open(ring, "r+b") as f:  # crash_signo, outside the header's checksum
                f.seek(324)
                f.write(struct.pack("<I", 6))
            p = lastwords(lw, ["dump", ring])
            check(p.returncode == 0, "dump exits %d: %s" % (p.returncode, p.stderr))
            lines = [l for l in p.stdout.splitlines() if "SIGABRT" in l and "CRASH" in l]
            check(len(lines) == 2, "a CRASH line and the last words: %r" % lines)
            for line in lines:
                check("SIGABRT (SI_TKILL) %s in delegate_prepare" % want in line,
                      "dump: %r says %r" % (line, want))
                check(" at 0x" not in line, "dump: no fault address for a sent signal: %r" % line)
            p = lastwords(lw, ["inspect", ring])
            check("SIGABRT (SI_TKILL) %s in delegate_prepare" % want in p.stdout and " at 0x" not in p.stdout,
                  "inspect says %r: %r" % (want, p.stdout))
            p = lastwords(lw, ["dump", "--json", ring])
            crash = [json.loads(l) for l in p.stdout.splitlines() if '"crash"' in l]
            check(len(crash) == 1 and crash[0]["si_code"] == -6 and crash[0].get("sender_pid") == (sender or None),
                  "dump --json: si_code -6, sender_pid %s: %r" % (sender or None, crash))
        p = lastwords(lw, ["dump", src])
        check("SIGSEGV (SEGV_MAPERR) at 0x10 in delegate_prepare" in p.stdout,
              "a fault still gives its address")
    return finish("analyzer-sent-signal: sent signals and a fault")


sys.exit(main())
