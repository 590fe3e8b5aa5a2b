#!/usr/bin/env python3
"""lastwords inspect on the logcat and event-log fixtures.

Fixtures live in fixtures/evidence/logcat/ and fixtures/evidence/event-log/,
one per variant and prefix format, each NAME.txt beside NAME.expected.json.

Two kinds of checks:
  * golden: the exact `lastwords inspect --json` output of each fixture,
    run from the source root with the fixture's relative path, equals
    NAME.expected.json; regenerate on purpose with --update and review the
    diff;
  * meaning: what the records must say whatever the golden files hold,
    written by hand below from reading each fixture (kinds, counts of lines
    and skipped lines, and per record the event, pids, processes, uids, kB
    sizes, oom_score_adj, reasons, signals and formats), plus invariants
    that hold for every record. A golden update cannot hide a wrong answer.

A fixture without an expected file, or without meaning expectations, fails
the test, and so does a fixture that the meaning table lists but that is
missing. The test also checks that it can fail: a fixture altered in a
scratch copy must differ from its golden output.

usage: evidence-logs.py LASTWORDS SOURCE_ROOT [--update]
"""
import json
import os
import shutil
import sys
import tempfile

from helpers import fail, finish, lastwords, option, setup

DIRS = ["fixtures/evidence/logcat", "fixtures/evidence/event-log"]
FORMATS = {"threadtime", "uid", "time", "brief", "tag", "long", "raw"}
LOGCAT_EVENTS = {"lmkd_kill", "am_killing", "am_died", "am_low_memory", "zygote_signal",
                 "crash_begin", "fatal_signal", "java_crash", "binder_failed", "watchdog_kill",
                 "app_watchdog"}
EVENTLOG_EVENTS = {"am_kill", "am_proc_died", "am_anr", "am_crash", "am_proc_start",
                   "killinfo", "am_low_memory"}

def R(event, **kw):
    kw["event"] = event
    return kw


# The kills of lmkd-pasted-*.txt, the same whatever the paste's indentation.
LMKD_PASTED = [
        R("lmkd_kill", line=1, format="threadtime", time="03-09 21:14:02.118", pid=18330,
          uid=10291, process="com.example.podcast", oom_score_adj=900, rss_kb=233120,
          swap_kb=61440, reason="low watermark is breached"),
        R("am_died", line=2, pid=18330, process="com.example.podcast", reason="cch+5 CEM"),
        # wrapped at a space: the continuation is indented deeper than the paste
        R("lmkd_kill", line=3, pid=18412, uid=10302, process="com.example.vision:inference",
          oom_score_adj=250, rss_kb=1482304, swap_kb=0,
          reason="min watermark is breached even after kill"),
        R("zygote_signal", line=5, pid=18412, signo=9),
        # cut mid-number: the continuation is at the paste's margin
        R("lmkd_kill", line=6, pid=18501, uid=10305, process="com.example.notes",
          oom_score_adj=905, rss_kb=40448, swap_kb=0, reason="min watermark is breached"),
    ]

# What each fixture must yield: kind, physical lines, skipped lines and the
# records in order with the fields that matter. Fields not listed are not
# checked here (the golden output pins them).
MEANING = {
    # --- logcat: lmkd ---
    "logcat/lmkd-a11-reason.txt": dict(kind="logcat", lines=6, skipped=0, records=[
        R("lmkd_kill", line=4, format="threadtime", time="03-14 09:12:01.117", pid=4410,
          uid=10088, user=0, process="org.example.notes", oom_score_adj=950, rss_kb=84312,
          swap_kb=None, reason="low watermark is breached and thrashing (37%)"),
        R("am_died", pid=4410, process="org.example.notes", reason="cch+45 CEM", uid=None),
        R("lmkd_kill", pid=4521, uid=10104, process="com.example.weather:widget",
          oom_score_adj=900, rss_kb=30180, reason="min watermark is breached"),
    ]),
    "logcat/lmkd-a11-noreason.txt": dict(kind="logcat", lines=4, skipped=0, records=[
        R("lmkd_kill", pid=7781, uid=10131, process="com.example.reader", oom_score_adj=906,
          rss_kb=56012, swap_kb=None, reason=None),
        R("am_died", pid=7781, reason="cch CEM"),
        R("lmkd_kill", pid=7790, uid=10140, process="com.example.gallery:remote",
          oom_score_adj=800, rss_kb=123904, reason=None),
    ]),
    "logcat/lmkd-a12.txt": dict(kind="logcat", lines=5, skipped=0, records=[
        R("lmkd_kill", pid=12044, uid=10177, user=0, process="com.example.camera",
          oom_score_adj=200, rss_kb=412300, swap_kb=98112, anon_rss_kb=None,
          reason="device is low on swap (102400kB < 314572kB) and thrashing (121%)"),
        R("lmkd_kill", pid=11321, uid=10230, process="com.example.maps", oom_score_adj=700,
          rss_kb=301772, swap_kb=0,
          reason="low watermark is breached and swap is low (4096kB < 314572kB)"),
        R("lmkd_kill", pid=10990, uid=1010045, user=10, process="com.example.music:playback",
          oom_score_adj=250, rss_kb=88810, swap_kb=1024,
          reason="device is stuck in direct reclaim (1200ms > 500ms)"),
        R("zygote_signal", pid=12044, signo=9, process=None),
    ]),
    "logcat/lmkd-kb-swap.txt": dict(kind="logcat", lines=2, skipped=0, records=[
        R("lmkd_kill", pid=2201, uid=10059, process="com.example.chat", oom_score_adj=905,
          rss_kb=70412, swap_kb=0, reason=None),
        R("lmkd_kill", pid=2260, uid=10061, process="com.example.store", oom_score_adj=915,
          rss_kb=120004, swap_kb=20480, reason=None),
    ]),
    "logcat/lmkd-vendor-reason.txt": dict(kind="logcat", lines=3, skipped=0, records=[
        R("lmkd_kill", pid=18820, uid=10512, process="com.example.llm.demo", oom_score_adj=0,
          rss_kb=2301220, swap_kb=40112, reason="cw"),
        R("lmkd_kill", pid=18901, uid=99012, process="com.example.browser:sandboxed_process0",
          oom_score_adj=100, rss_kb=211008, swap_kb=5120,
          reason="vendor kill with the reason 1003, min_score_adj 0"),
        R("zygote_signal", pid=18820, signo=9),
    ]),
    "logcat/lmkd-dmabuf.txt": dict(kind="logcat", lines=2, skipped=0, records=[
        R("lmkd_kill", pid=9130, uid=10220, process="com.example.video", oom_score_adj=250,
          rss_kb=512000, anon_rss_kb=380000, swap_kb=64000, dmabuf_pss_kb=91200,
          dmabuf_rss_kb=120400, reason="min watermark is breached even after kill"),
        R("lmkd_kill", pid=3312, uid=10140, process="com.example.launcher", oom_score_adj=600,
          rss_kb=140000, anon_rss_kb=99000, swap_kb=0, dmabuf_pss_kb=0, dmabuf_rss_kb=0,
          reason=None),
    ]),
    "logcat/lmkd-android8.txt": dict(kind="logcat", lines=4, skipped=0, records=[
        R("lmkd_kill", line=1, pid=2890, uid=10077, process="com.example.oldapp",
          oom_score_adj=906, rss_kb=47100, reason="system is under medium memory pressure"),
        R("am_died", pid=2890, process="com.example.oldapp", reason=None),
        R("lmkd_kill", pid=2911, uid=10081, process="com.example.clock", oom_score_adj=904,
          rss_kb=None, reason=None),
    ]),
    "logcat/lmkd-wrapped.txt": dict(kind="logcat", lines=8, skipped=0, records=[
        R("lmkd_kill", line=2, format="threadtime", pid=22817, uid=10340,
          process="com.example.translate", oom_score_adj=900, rss_kb=611400, swap_kb=21000,
          reason="low watermark is breached"),
        R("lmkd_kill", line=4, pid=22901, uid=10341, process="com.example.dict",
          oom_score_adj=905, rss_kb=84000, swap_kb=0, reason="min watermark is breached"),
        R("lmkd_kill", line=6, format="threadtime", pid=23010, uid=10350,
          process="com.example.books", rss_kb=40960),
        R("lmkd_kill", line=7, pid=23055, uid=10351, process="com.example.news", rss_kb=33000,
          swap_kb=4096, reason=None),
        R("zygote_signal", line=8, pid=22817, signo=9, time="06-11 16:20:47.100"),
    ]),
    # Pasted from a bug tracker: every line indented (two spaces, or a tab).
    "logcat/lmkd-pasted-spaces.txt": dict(kind="logcat", lines=7, skipped=0, records=LMKD_PASTED),
    "logcat/lmkd-pasted-tabs.txt": dict(kind="logcat", lines=7, skipped=0, records=LMKD_PASTED),
    # --- logcat: ActivityManager, Zygote, crashes ---
    "logcat/am-killing.txt": dict(kind="logcat", lines=7, skipped=0, records=[
        R("am_killing", line=2, pid=29112, uid=10188, user=0, process="com.example.shop",
          oom_score_adj=985, reason="empty #33"),
        R("am_killing", pid=29150, uid=1010092, user=10, process="com.example.mail:sync",
          oom_score_adj=995, reason="empty for 1800s"),
        R("am_killing", pid=29304, uid=99017, process="com.example.browser:sandboxed_process3",
          oom_score_adj=100, reason="isolated not needed"),
        R("am_killing", pid=29400, uid=1000, process="com.example.system.helper",
          oom_score_adj=0, reason="stop com.example.system.helper due to from pid 1702"),
        R("am_killing", pid=29510, uid=10210, process="com.example.cam", oom_score_adj=200,
          reason="excessive cpu 23010 during 300050 dur=1300121 limit=2"),
    ]),
    "logcat/am-died.txt": dict(kind="logcat", lines=4, skipped=0, records=[
        R("am_died", pid=8801, process="com.example.fireworks", reason="fore TOP (245,3021)",
          uid=None, oom_score_adj=None),
        R("am_died", pid=8820, process="com.example.radio:player", reason="prcp FGS"),
        R("am_died", pid=8855, process="com.example.legacy", reason=None),
    ]),
    "logcat/am-lowmem.txt": dict(kind="logcat", lines=6, skipped=0, records=[
        R("am_low_memory", line=1, pid=None, process=None),
        R("am_low_memory", line=6, time="01-20 03:34:10.500"),
    ]),
    "logcat/zygote-signal.txt": dict(kind="logcat", lines=5, skipped=0, records=[
        R("zygote_signal", pid=4242, signo=9),
        R("zygote_signal", pid=4301, signo=6),
        R("zygote_signal", pid=4388, signo=11),
        R("zygote_signal", line=5, pid=4391, signo=15),
    ]),
    "logcat/crash-banner.txt": dict(kind="logcat", lines=6, skipped=0, records=[
        R("crash_begin", line=5, format="raw", pid=None, time=None),
        R("fatal_signal", line=6, pid=2031, process="com.example.render", signo=11),
    ]),
    "logcat/fatal-signal.txt": dict(kind="logcat", lines=4, skipped=1, first_skipped_line=4,
                                    records=[
        R("fatal_signal", pid=6020, process="com.example.vision:ml", signo=6),
        R("fatal_signal", pid=6101, process=None, signo=11),
        R("fatal_signal", pid=6150, process=None, signo=7),
    ]),
    "logcat/java-crash.txt": dict(kind="logcat", lines=12, skipped=0, records=[
        R("java_crash", line=2, pid=9100, process="com.example.todo",
          reason="java.lang.IllegalStateException: Could not execute method for android:onClick"),
        R("java_crash", line=7, pid=9230, process="com.example.feed:worker",
          reason="java.lang.OutOfMemoryError: Failed to allocate a 16777232 byte allocation"
                 " with 4194304 free bytes and 9MB until OOM"),
        R("java_crash", line=11, pid=1499, process="system_server",
          reason="java.lang.NullPointerException: Attempt to invoke virtual method"
                 " 'int android.view.Display.getWidth()' on a null object reference"),
    ]),
    "logcat/art-oom.txt": dict(kind="logcat", lines=6, skipped=0, records=[
        R("java_crash", line=1, pid=31000, process=None,
          reason="OutOfMemoryError: Failed to allocate a 48 byte allocation with 1024 free"
                 " bytes and 1024B until OOM, target footprint 268435456, growth limit"
                 " 268435456"),
        R("java_crash", line=4, pid=31000, process="com.example.photos"),
    ]),
    # JavaBinder's failed transactions (with and without the parcel size), a
    # TransactionTooLargeException wherever it is logged (also as the crash's
    # exception, which stays the java_crash's reason), system_server's
    # watchdog killing it (not its other lines), and the lines of a tag that
    # names a watchdog that say they end the process (not the others).
    "logcat/binder-watchdog.txt": dict(kind="logcat", lines=16, skipped=0, records=[
        R("binder_failed", line=2, pid=9811, process=None, parcel_bytes=1572944,
          reason="!!! FAILED BINDER TRANSACTION !!!  (parcel size = 1572944)"),
        R("binder_failed", line=3, pid=9811, parcel_bytes=1572944,
          reason="android.os.TransactionTooLargeException: data parcel size 1572944 bytes"),
        R("java_crash", line=4, pid=9811, process="com.example.vision:inference",
          reason="java.lang.RuntimeException: android.os.TransactionTooLargeException: data"
                 " parcel size 1049276 bytes"),
        R("binder_failed", line=6, pid=9811, parcel_bytes=1049276),
        R("binder_failed", line=8, pid=7020, parcel_bytes=None),
        R("binder_failed", line=9, pid=7021, parcel_bytes=316),
        R("watchdog_kill", line=11, pid=1580, process="system_server",
          reason="Blocked in handler on foreground thread (android.fg)"),
        R("app_watchdog", line=14, pid=9900, process=None,
          reason="inference did not finish within 2500 ms, killing process 9900"),
        R("app_watchdog", line=15, pid=9950, reason="main thread blocked for 5000 ms, calling abort()"),
    ]),
    # --- logcat: prefix formats ---
    "logcat/format-uid.txt": dict(kind="logcat", lines=9, skipped=0, records=[
        R("am_killing", format="uid", pid=5120, uid=10301, process="com.example.dating",
          oom_score_adj=905, reason="empty #17"),
        R("am_died", format="uid", pid=5120, uid=None, reason="cch CEM"),
        R("lmkd_kill", format="uid", pid=5188, uid=10302, rss_kb=66100, swap_kb=2048),
        R("fatal_signal", format="uid", pid=5230, uid=10303, signo=11, process=None),
        R("java_crash", format="uid", pid=5300, uid=10304, process="com.example.cards",
          reason="java.lang.ArithmeticException: divide by zero"),
        R("zygote_signal", format="uid", line=9, pid=5230, signo=11, uid=None),
    ]),
    "logcat/format-brief.txt": dict(kind="logcat", lines=12, skipped=0, records=[
        R("lmkd_kill", format="brief", time=None, pid=7001, uid=10160, rss_kb=90210,
          swap_kb=1200, oom_score_adj=900, reason="low watermark is breached"),
        R("am_killing", format="brief", pid=7010, uid=10161, oom_score_adj=999,
          reason="empty #21"),
        R("am_died", format="brief", pid=7010, process="com.example.scan"),
        R("am_low_memory", format="brief"),
        R("zygote_signal", format="brief", pid=7001, signo=9),
        R("crash_begin", format="raw", line=8),
        R("fatal_signal", format="brief", pid=7044, process="com.example.draw", signo=6),
        R("java_crash", format="brief", pid=7060, process="com.example.quiz",
          reason="java.lang.NullPointerException"),
    ]),
    "logcat/format-time.txt": dict(kind="logcat", lines=8, skipped=0, records=[
        R("lmkd_kill", format="time", time="06-30 23:59:58.000", pid=8101, uid=10170,
          oom_score_adj=900, rss_kb=50100, swap_kb=None, reason="min watermark is breached"),
        R("am_killing", format="time", pid=8120, uid=10171, reason="empty for 1805s"),
        R("am_died", format="time", pid=8120, reason="cch CRE"),
        R("zygote_signal", format="time", pid=8101, signo=9),
        R("fatal_signal", format="time", pid=8150, process="com.example.game", signo=11),
        R("java_crash", format="time", time="07-01 00:00:00.001", pid=8170,
          process="com.example.timer", reason="java.lang.RuntimeException: Unable to start activity"),
    ]),
    "logcat/format-tag.txt": dict(kind="logcat", lines=3, skipped=0, records=[
        R("lmkd_kill", format="tag", pid=4101, uid=10190, rss_kb=70000, swap_kb=0),
        R("am_killing", format="tag", pid=4120, process="com.example.atlas:tiles",
          oom_score_adj=800),
        R("zygote_signal", format="tag", pid=4101, signo=9),
    ]),
    "logcat/format-raw.txt": dict(kind="logcat", lines=15, skipped=0, records=[
        R("crash_begin", format="raw", line=1),
        R("lmkd_kill", format="raw", time=None, pid=3301, uid=10201, rss_kb=120100,
          swap_kb=30000, reason="device is not responding"),
        R("am_killing", format="raw", pid=3310, uid=10201, process="com.example.radio:service"),
        R("am_died", format="raw", pid=3301, reason="prev LAST"),
        R("zygote_signal", format="raw", pid=3301, signo=9),
        R("am_low_memory", format="raw"),
        R("fatal_signal", format="raw", pid=3349, process="com.example.gl", signo=11),
        R("java_crash", format="raw", line=8, pid=3360, process="com.example.crashy",
          reason="java.lang.IllegalArgumentException: bad state, code 3"),
        R("lmkd_kill", format="raw", line=11, pid=3370, process="com.example.tagged",
          rss_kb=9000, swap_kb=0),
        R("java_crash", format="raw", line=13, pid=3380, process="com.example.tagged2",
          reason="java.lang.Error: tagged"),
    ]),
    "logcat/format-long.txt": dict(kind="logcat", lines=14, skipped=0, records=[
        R("lmkd_kill", format="long", line=3, time="09-15 14:02:11.201", pid=6101, uid=10250,
          rss_kb=150100, swap_kb=10240,
          reason="low watermark is breached and thrashing (42%)"),
        R("am_died", format="long", line=6, pid=6101, reason="cch+15 CEM"),
        R("zygote_signal", format="long", line=13, pid=6101, signo=9),
    ]),
    "logcat/format-year-usec-zone.txt": dict(kind="logcat", lines=5, skipped=0, records=[
        R("lmkd_kill", format="threadtime", time="2024-12-31 23:59:59.123456 +0100",
          pid=9901, rss_kb=81000),
        R("am_died", time="2025-01-01 00:00:00.000001 +0100", pid=9901),
        R("am_killing", time="02-29 12:00:00.5", pid=9950),
        R("am_killing", time="1735689600.250", pid=9960),
        R("am_killing", time="45.123", pid=9970),
    ]),
    "logcat/mixed-all.txt": dict(kind="logcat", lines=10, skipped=0, records=[
        R("killinfo", line=4, pid=16001, uid=10320, oom_score_adj=900, rss_kb=402112,
          kill_reason_code=2, free_kb=40960, swap_kb=81920, process=None),
        R("lmkd_kill", line=6, pid=16001, rss_kb=402112, swap_kb=81920),
        R("am_kill", line=7, pid=16010, user=0, process="com.example.helper",
          oom_score_adj=999, reason="empty #30", rss_kb=51200),
        R("am_proc_died", line=8, pid=16001, oom_score_adj=900),
        R("zygote_signal", line=10, pid=16001, signo=9),
    ]),
    "logcat/malformed.txt": dict(kind="logcat", lines=9, skipped=5, first_skipped_line=1,
                                 records=[
        R("lmkd_kill", line=8, pid=5005, process="com.example.good"),
    ]),
    # --- event log ---
    "event-log/am-kill.txt": dict(kind="event-log", lines=6, skipped=0, records=[
        R("am_kill", line=2, format="threadtime", user=0, pid=20101, process="com.example.cache",
          oom_score_adj=906, reason="empty #17", rss_kb=None),
        R("am_kill", pid=20140, process="com.example.sync:bg", oom_score_adj=999,
          reason="empty for 1801s", rss_kb=61440),
        R("am_kill", user=10, pid=20177, process="com.example.work", oom_score_adj=200,
          reason="excessive cpu 1200 during 300000, limit 2", rss_kb=98304),
        R("am_kill", pid=20190, reason="stop com.example.music due to from pid 1250",
          rss_kb=None),
    ]),
    "event-log/am-proc-died.txt": dict(kind="event-log", lines=3, skipped=0, records=[
        R("am_proc_died", pid=21001, process="com.example.old", oom_score_adj=None),
        R("am_proc_died", pid=21010, process="com.example.cache", oom_score_adj=906),
        R("am_proc_died", pid=1990, process="WebViewLoader-arm64-v8a", oom_score_adj=-700),
    ]),
    "event-log/am-anr.txt": dict(kind="event-log", lines=2, skipped=0, records=[
        R("am_anr", pid=22001, process="com.example.slow",
          reason="Input dispatching timed out (b2c1 com.example.slow/com.example.slow.Main"
                 " (server) is not responding. Waited 5001ms for FocusEvent(hasFocus=true))"),
        R("am_anr", pid=22050, process="com.example.recv",
          reason="Broadcast of Intent { act=android.intent.action.SCREEN_ON flg=0x50200010 }"),
    ]),
    # am_crash is written pid first, then user (the caller's: system_server's
    # for a native crash, which names the process only); a recoverable
    # (GWP-ASan) crash is no death and gives no record.
    "event-log/am-crash.txt": dict(kind="event-log", lines=5, skipped=0, records=[
        R("am_crash", pid=23001, user=0, process="com.example.todo",
          reason="java.lang.IllegalStateException: Could not execute method for android:onClick"),
        R("am_crash", pid=23040, user=10, process="com.example.feed",
          reason='java.lang.NumberFormatException: For input string: "1,5", radix 10'),
        R("am_crash", pid=None, user=None, process="com.example.native",
          reason="Native crash: Segmentation fault"),
        R("am_crash", pid=23090, user=0, reason="java.lang.NullPointerException"),
    ]),
    "event-log/am-proc-start.txt": dict(kind="event-log", lines=3, skipped=0, records=[
        R("am_proc_start", user=0, pid=24001, uid=10190, process="com.example.weather",
          reason="service {com.example.weather/com.example.weather.UpdateService}"),
        R("am_proc_start", pid=24020, uid=10191, process="com.example.cam",
          reason="top-activity {com.example.cam/com.example.cam.CameraActivity}"),
        R("am_proc_start", user=10, pid=24030, uid=1010192, process="com.example.work:remote"),
    ]),
    "event-log/killinfo.txt": dict(kind="event-log", lines=4, skipped=0, records=[
        R("killinfo", pid=25001, uid=10200, oom_score_adj=905, rss_kb=98304,
          kill_reason_code=4, free_kb=51200, swap_kb=None, process=None),
        R("killinfo", pid=25010, uid=10201, oom_score_adj=900, rss_kb=301440,
          kill_reason_code=2, free_kb=30720, swap_kb=131072),
        R("killinfo", pid=25020, oom_score_adj=950, rss_kb=4096, kill_reason_code=None,
          free_kb=65536, swap_kb=0),
        R("am_low_memory", line=4, pid=None),
    ]),
    "event-log/format-brief.txt": dict(kind="event-log", lines=8, skipped=0, records=[
        R("am_proc_start", format="brief", time=None, pid=26001, uid=10210,
          process="com.example.editor"),
        R("killinfo", format="brief", pid=26001, rss_kb=120000, kill_reason_code=8,
          swap_kb=2048),
        R("am_kill", format="brief", pid=26010, rss_kb=40960, reason="empty #20"),
        R("am_proc_died", format="brief", pid=26001, oom_score_adj=900),
        R("am_anr", format="brief", pid=26020,
          reason="executing service com.example.slow/.Sync"),
        R("am_crash", format="brief", pid=26030, reason="java.lang.RuntimeException: boom"),
        R("am_low_memory", format="brief"),
    ]),
    "event-log/format-time.txt": dict(kind="event-log", lines=2, skipped=0, records=[
        R("am_kill", format="time", time="11-30 10:00:00.000", pid=27001),
        R("am_proc_died", format="time", pid=27001, oom_score_adj=906),
    ]),
    "event-log/malformed.txt": dict(kind="event-log", lines=7, skipped=5, first_skipped_line=1,
                                    records=[
        R("am_proc_died", line=5, pid=28004),
    ]),
}


def fixtures():
    out = []
    for d in DIRS:
        for name in sorted(os.listdir(d)):
            if name.endswith(".txt"):
                out.append(os.path.join(d, name))
    return out


def golden(lw, update):
    checked = 0
    for fx in fixtures():
        p = lastwords(lw, ["inspect", "--json", fx])
        if p.returncode != 0:
            fail("inspect --json %s exited %d: %s" % (fx, p.returncode, p.stderr.strip()))
        exp = fx[:-len(".txt")] + ".expected.json"
        if update:
            with open(exp, "w") as f:
                f.write(p.stdout)
            continue
        try:
            with open(exp) as f:
                want = f.read()
        except FileNotFoundError:
            fail("no expected output %s (run with --update)" % exp)
            continue
        if p.stdout != want:
            fail("inspect --json %s differs from %s:\n%s" % (fx, exp, p.stdout))
        checked += 1
    return checked


def invariants(fx, obj):
    """What holds for every record of every fixture."""
    allowed = LOGCAT_EVENTS | EVENTLOG_EVENTS if obj["kind"] == "logcat" else EVENTLOG_EVENTS
    prev = 0
    for i, r in enumerate(obj.get("records", [])):
        where = "%s record %d" % (fx, i)
        if r.get("event") not in allowed:
            fail("%s: event %r not expected in a %s file" % (where, r.get("event"), obj["kind"]))
        if r.get("format") not in FORMATS:
            fail("%s: format %r" % (where, r.get("format")))
        if not isinstance(r.get("line"), int) or r["line"] < prev or r["line"] > obj["lines"]:
            fail("%s: line %r out of order or range" % (where, r.get("line")))
        prev = r.get("line") or prev
        if (r.get("time") is None) != (r.get("format") in ("brief", "tag", "raw")):
            fail("%s: time %r does not fit format %s" % (where, r.get("time"), r.get("format")))
        ev = r.get("event")
        if ev in ("lmkd_kill", "am_killing", "am_kill", "am_proc_died", "am_proc_start",
                  "am_anr", "am_crash", "killinfo", "zygote_signal", "am_died"):
            native = ev == "am_crash" and (r.get("reason") or "").startswith("Native crash")
            if native and (r.get("pid") is not None or not r.get("process")):
                fail("%s: a native am_crash names its process, never system_server's pid" % where)
            if not native and (not isinstance(r.get("pid"), int) or r["pid"] <= 0):
                fail("%s: %s without a pid" % (where, ev))
        if ev in ("lmkd_kill", "am_killing", "am_kill", "am_proc_died", "am_died"):
            if not r.get("process"):
                fail("%s: %s without a process" % (where, ev))
        if ev == "lmkd_kill" and (not isinstance(r.get("uid"), int) or r.get("oom_score_adj") is None):
            fail("%s: lmkd_kill without uid or oom_score_adj" % where)
        if ev in ("zygote_signal", "fatal_signal") and not (1 <= (r.get("signo") or 0) <= 64):
            fail("%s: %s without a signal" % (where, ev))
        if r.get("uid") is not None and r.get("user") != r["uid"] // 100000:
            fail("%s: user %r does not match uid %r" % (where, r.get("user"), r["uid"]))
        for k in ("rss_kb", "swap_kb", "free_kb", "anon_rss_kb", "dmabuf_pss_kb", "dmabuf_rss_kb"):
            if r.get(k) is not None and r[k] < 0:
                fail("%s: negative %s" % (where, k))


def meaning(lw):
    listed = set(MEANING)
    present = set(os.path.relpath(fx, "fixtures/evidence") for fx in fixtures())
    for missing in sorted(listed - present):
        fail("meaning table lists %s, which is not a fixture" % missing)
    for extra in sorted(present - listed):
        fail("fixture %s has no meaning expectations" % extra)
    checked = 0
    for rel in sorted(listed & present):
        fx = os.path.join("fixtures/evidence", rel)
        want = MEANING[rel]
        p = lastwords(lw, ["inspect", "--json", fx])
        try:
            obj = json.loads(p.stdout)[0]
        except (ValueError, IndexError):
            fail("%s: no JSON (exit %d): %s" % (fx, p.returncode, p.stderr.strip()))
            continue
        with open(fx, "rb") as f:
            nlines = f.read().count(b"\n")
        if want["lines"] != nlines:
            fail("%s: the table says %d lines, the file has %d" % (fx, want["lines"], nlines))
        for k in ("kind", "lines", "skipped"):
            if obj.get(k) != want[k]:
                fail("%s: %s is %r, expected %r" % (fx, k, obj.get(k), want[k]))
        if obj.get("first_skipped_line") != want.get("first_skipped_line"):
            fail("%s: first_skipped_line is %r, expected %r"
                 % (fx, obj.get("first_skipped_line"), want.get("first_skipped_line")))
        recs = obj.get("records", [])
        if len(recs) != len(want["records"]):
            fail("%s: %d records, expected %d: %s"
                 % (fx, len(recs), len(want["records"]), [r.get("event") for r in recs]))
        for i, (w, r) in enumerate(zip(want["records"], recs)):
            for k, v in w.items():
                if r.get(k, "<absent>") != v:
                    fail("%s record %d: %s is %r, expected %r" % (fx, i, k, r.get(k, "<absent>"), v))
        invariants(fx, obj)
        # The text output names the kind and the record count.
        t = lastwords(lw, ["inspect", fx])
        head = "%s: %s, %d record%s" % (fx, want["kind"], len(want["records"]),
                                         "" if len(want["records"]) == 1 else "s")
        if t.returncode != 0 or not t.stdout.startswith(head):
            fail("inspect %s: exit %d, first line %r, expected it to start with %r"
                 % (fx, t.returncode, t.stdout.split("\n")[0], head))
        checked += 1
    return checked


def can_fail(lw):
    """The golden comparison notices a changed kB size, a changed pid and a
    line that no longer parses (a test that cannot fail tests nothing)."""
    src = "fixtures/evidence/logcat/lmkd-a12.txt"
    with open(src) as f:
        text = f.read()
    with open(src[:-len(".txt")] + ".expected.json") as f:
        want = json.load(f)[0]
    edits = [("412300kB rss", "412301kB rss", "rss_kb"),
             ("(12044)", "(12045)", "pid"),
             ("oom_score_adj 700", "oom_score_adj seven", "skipped")]
    tmp = tempfile.mkdtemp(prefix="evidence-logs-")
    try:
        for old, new, what in edits:
            path = os.path.join(tmp, "altered.txt")
            with open(path, "w") as f:
                f.write(text.replace(old, new, 1))
            p = lastwords(lw, ["inspect", "--json", path])
            got = json.loads(p.stdout)[0]
            got["file"] = want["file"]
            if got == want:
                fail("altering %s (%s -> %s) went unnoticed" % (what, old, new))
    finally:
        shutil.rmtree(tmp)


def main():
    lw, _ = setup(__doc__)
    update = option("--update")
    n = golden(lw, update)
    if update:
        print("updated expected outputs; review the diff")
        return 0
    m = meaning(lw)
    can_fail(lw)
    return finish("%d golden outputs and %d meaning checks" % (n, m))


if __name__ == "__main__":
    sys.exit(main())
