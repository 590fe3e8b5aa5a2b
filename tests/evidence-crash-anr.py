#!/usr/bin/env python3
"""lastwords inspect on the tombstone and ANR trace fixtures.

Two kinds of checks:
  * golden: the exact `lastwords inspect --json` output for each fixture of
    fixtures/evidence/tombstone/ and fixtures/evidence/anr/, stored next to
    it as <name>.expected.json (name without .txt or .gz); regenerate on
    purpose with --update and review the diff;
  * meaning: what each record must say whatever the layout (pid, signal,
    code name, fault address, abort message, frames and their runtime marks,
    the main thread's state and lock owner...), written here from reading
    the fixtures, so a golden update cannot hide a wrong answer. Every
    fixture must have its meaning checks, and the checker is shown to fail
    on a wrong record before it is trusted.
Also: texts that only mention signals, tombstone words or thread dumps are
not taken for a tombstone or an ANR trace.

usage: evidence-crash-anr.py LASTWORDS SOURCE_ROOT [--update]
"""
import json
import os
import sys
import tempfile

from helpers import fail, finish, lastwords, option, setup

DIRS = ["fixtures/evidence/tombstone", "fixtures/evidence/anr"]

def stem(name):
    for ext in (".txt", ".gz"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    return name


def fixtures():
    out = []
    for d in DIRS:
        for name in sorted(os.listdir(d)):
            if not name.endswith(".expected.json"):
                out.append(os.path.join(d, name))
    return out


def inspect(lw, path):
    p = lastwords(lw, ["inspect", "--json", path], text=False)
    if p.returncode < 0:
        fail("inspect %s killed by signal %d" % (path, -p.returncode))
    return p


# --- meaning -----------------------------------------------------------------

MALI = "/vendor/lib64/egl/libGLES_mali.so"
TFL_GPU = "tflite::gpu::(anonymous namespace)::DelegateKernel::Invoke(TfLiteContext*)+96"

PASTED_TOMB = dict(
    line=2, logcat_prefixed=True, pid=12870, tid=12911, thread="whisper-0",
    process="com.example.asr", cmdline="com.example.asr", uid=10244, abi="arm64",
    timestamp="2025-05-22 18:03:41.300117702+0200", signo=11, code_name="SEGV_MAPERR",
    fault_addr="0x10", cause="null pointer dereference", nframes=4,
    runtimes=["ggml", "ggml", None, None], runtime_frames=2, first_runtime="ggml",
    frame={0: dict(symbol="ggml_vec_dot_f16+88")})
PASTED_ANR = dict(
    line=1, layout="art", pid=14502, time="2025-02-14 08:31:09.114270391+0100",
    cmdline="com.example.tts", has_java_threads=True, thread_count=3, main_found=True,
    main_state="Blocked", main_tid=1, main_sys_tid=14502,
    main_lock="<0x0b16a7e2> (a com.example.tts.engine.VoiceBank)", lock_owner_tid=17,
    main_top_frame="com.example.tts.engine.VoiceBank.voice(VoiceBank.kt:131)")

# Per fixture: file fields (kind, gzipped, skipped) and "records", each a
# dict of record fields, plus the pseudo-fields nframes (how many frames),
# runtimes (each frame's runtime mark, in order) and frame ({index: fields}).
CHECKS = {
    "tombstone/plain-gpu-delegate.txt": dict(kind="tombstone", skipped=0, records=[dict(
        line=1, logcat_prefixed=False, pid=23817, tid=23901, uid=10287, thread="inference-0",
        process="com.example.vision", cmdline="com.example.vision", abi="arm64",
        timestamp="2024-09-12 21:04:33.518042611+0200", signo=11, signal="SIGSEGV", code=1,
        code_name="SEGV_MAPERR", fault_addr="0x40", cause="null pointer dereference",
        abort_message=None, protobuf=False,
        # the other thread after "--- --- ---" is kept apart, with its frames
        threads=1, nframes=10,
        runtimes=["gles", "gles", "gles", "tflite-gpu", "tflite-gpu", "tflite", "tflite",
                  "tflite", None, None],
        runtime_frames=8, first_runtime="gles",
        frame={0: dict(index=0, pc="0x8fb51c", library=MALI, symbol=None,
                       build_id="5d1c0f3e6a0b4a8c9e2d7f10aa34c6e1", file_offset=None),
               2: dict(symbol="clEnqueueNDRangeKernel+392"),
               4: dict(symbol=TFL_GPU),
               9: dict(symbol="__pthread_start(void*)+204")})]),
    "tombstone/abort-message.txt": dict(kind="tombstone", skipped=0, records=[dict(
        pid=9044, tid=9102, thread="llm-loader", process="com.example.chat", uid=10196,
        signo=6, signal="SIGABRT", code=-6, code_name="SI_TKILL", fault_addr=None,
        abort_message="ggml.c:1504: GGML_ASSERT(ctx->mem_buffer != NULL) failed: "
                      "can't allocate 2147483648 bytes",
        nframes=6, runtimes=[None, "ggml", "ggml", "ggml", None, None],
        runtime_frames=3, first_runtime="ggml",
        frame={0: dict(symbol="abort+164",
                       library="/apex/com.android.runtime/lib64/bionic/libc.so")})]),
    "tombstone/sender-no-fault-addr.txt": dict(kind="tombstone", skipped=0, records=[dict(
        pid=14220, tid=14263, thread="RenderWorker", process="com.example.render",
        signo=11, code=0, code_name="SI_USER", fault_addr=None, cause=None,
        timestamp="2020-11-03 17:22:10+0100",
        nframes=6, runtimes=["vulkan", "vulkan", "ggml", None, None, None],
        runtime_frames=3, first_runtime="vulkan",
        frame={1: dict(library="/system/lib64/libvulkan.so")})]),
    "tombstone/apk-library.txt": dict(kind="tombstone", skipped=0, records=[dict(
        pid=3310, tid=3377, abi="arm", uid=None, signo=11, code=2, code_name="SEGV_ACCERR",
        fault_addr="0xe8c3f010",
        # the "stack:" section's "#00  c2a1d3b0" is not a frame
        nframes=8,
        runtimes=["opencl", "opencl", "mnn", "mnn", "executorch", None, None, None],
        runtime_frames=5, first_runtime="opencl",
        frame={3: dict(library="/data/app/com.example.scan-8sW0rAxYzQ1b2C3d4E5f6==/base.apk!libMNN.so",
                       symbol="MNN::Session::run() const+72", runtime="mnn",
                       file_offset="0x3c000", build_id=None),
               4: dict(symbol=None, runtime="executorch"),
               7: dict(symbol=None)})]),
    "tombstone/logcat-threadtime.txt": dict(kind="tombstone", skipped=0, logs=['crash_begin', 'fatal_signal', 'zygote_signal', 'am_died'], records=[dict(
        line=5, logcat_prefixed=True, pid=5521, tid=5563, thread="ort-worker",
        process="com.example.speech", uid=10233, signo=11, code=2, code_name="SEGV_ACCERR",
        fault_addr="0x7c19a00000", cause=None,
        nframes=8,
        runtimes=[None, "nnapi", "nnapi", "onnxruntime", "onnxruntime", "onnxruntime",
                  "onnxruntime", None],
        runtime_frames=6, first_runtime="nnapi")]),
    "tombstone/logcat-brief-old.txt": dict(kind="tombstone", skipped=0, logs=['fatal_signal', 'am_died'], records=[dict(
        line=2, logcat_prefixed=True, pid=2345, tid=2360, thread="GLThread 87",
        process="com.example.game", signo=11, code=1, code_name="SEGV_MAPERR",
        fault_addr="0x0", abi=None,
        nframes=5, runtimes=["gles", "gles", "gles", None, None], first_runtime="gles",
        frame={0: dict(symbol="rb_vbo_cache_vertex_attrib+21"),
               2: dict(library="/system/lib/libEGL.so", symbol="eglSwapBuffers+164")})]),
    "tombstone/logcat-adebug.txt": dict(kind="tombstone", skipped=0, logs=['fatal_signal', 'am_died'], records=[dict(
        line=2, logcat_prefixed=True, pid=3904, tid=3931, thread="AsyncTask #2",
        process="com.example.ocr", signo=6, code=-6, code_name="SI_TKILL", fault_addr=None,
        abort_message="tensorflow/lite/kernels/reshape.cc:66 num_input_elements != "
                      "num_output_elements (1200 != 1024)",
        nframes=9, runtimes=[None] * 5 + ["tflite"] * 3 + [None],
        frame={0: dict(symbol="tgkill+12")})]),
    "tombstone/logcat-time-fdebug.txt": dict(kind="tombstone", skipped=0, logs=['fatal_signal'], records=[dict(
        line=2, logcat_prefixed=True, pid=8810, tid=8862, thread="GLThread 412",
        process="com.example.camera", signo=7, signal="SIGBUS", code=1, code_name="BUS_ADRALN",
        fault_addr="0x7a1f3c2e91", nframes=5, runtimes=["gles"] * 4 + [None])]),
    "tombstone/logcat-ide.txt": dict(kind="tombstone", skipped=2, records=[dict(
        line=2, logcat_prefixed=True, pid=7690, tid=7712, thread="vk-render",
        process="com.example.maps", uid=10178, signo=11, code_name="SEGV_MAPERR",
        fault_addr="0x8", cause="null pointer dereference", timestamp="2020-12-01 08:15:44+0000",
        nframes=3, runtimes=["vulkan", "vulkan", None])]),
    "tombstone/logcat-uid.txt": dict(kind="tombstone", skipped=0, logs=['fatal_signal'], records=[dict(
        line=2, pid=26410, tid=26455, thread="llm-worker", process="com.example.notes",
        uid=10302, fault_addr="0x18", nframes=3, runtimes=["ggml", "opencl", "opencl"],
        first_runtime="ggml")]),
    "tombstone/two-crashes.txt": dict(kind="tombstone", skipped=0, logs=['crash_begin', 'fatal_signal', 'am_died', 'fatal_signal', 'am_died'], records=[
        dict(line=2, pid=18201, tid=18244, thread="nn-exec", signo=6, code_name="SI_QUEUE",
             fault_addr=None,
             abort_message="Check failed: status == ANEURALNETWORKS_NO_ERROR (4 vs. 0) "
                           "compilation failed",
             nframes=4, runtimes=[None, "nnapi", "nnapi", "tflite"], first_runtime="nnapi"),
        dict(line=21, pid=18544, tid=18590, thread="mnn-infer", signo=11,
             code_name="SEGV_MAPERR", fault_addr="0x0", cause="null pointer dereference",
             abort_message=None, nframes=2, runtimes=["mnn", None])]),
    # Pasted from a bug tracker, every line indented (four spaces, or a tab):
    # still a tombstone in a logcat, read as the unindented one would be.
    "tombstone/pasted-spaces.txt": dict(kind="tombstone", skipped=0,
                                        logs=['fatal_signal', 'am_died'], records=[PASTED_TOMB]),
    "tombstone/pasted-tabs.txt": dict(kind="tombstone", skipped=0,
                                      logs=['fatal_signal', 'am_died'], records=[PASTED_TOMB]),
    # Only the Fatal signal line and the start of the report: the pid, tid,
    # signal and fault address come from the Fatal line.
    "tombstone/cut-off.txt": dict(kind="tombstone", skipped=0, logs=['crash_begin', 'fatal_signal'], records=[dict(
        line=3, logcat_prefixed=True, pid=30112, tid=30160, thread="et-runner",
        process="example.assist", signo=11, code=2, code_name="SEGV_ACCERR",
        fault_addr="0x6f3a000010", abi="arm64", uid=None, nframes=0, runtime_frames=0,
        first_runtime=None)]),

    "anr/classic-main-blocked.txt": dict(kind="anr-trace", skipped=0, records=[dict(
        line=2, layout="art", pid=8123, time="2024-03-02 10:11:12.480219733+0000",
        cmdline="com.example.notes", subject=None, has_java_threads=True, thread_count=4,
        main_found=True, main_state="Blocked", main_tid=1, main_sys_tid=8123,
        main_lock="<0x0c0ffee1> (a com.example.notes.db.NoteCache)", lock_owner_tid=23,
        main_top_frame="com.example.notes.db.NoteCache.get(NoteCache.kt:52)")]),
    "anr/classic-dalvik.txt": dict(kind="anr-trace", skipped=0, records=[dict(
        layout="art", pid=2761, main_found=True, main_state="MONITOR", main_tid=1,
        main_sys_tid=2761, lock_owner_tid=18,
        main_lock="<0x41b62e10> (a com.example.mail.store.MessageStore)")]),
    "anr/classic-two-processes.txt": dict(kind="anr-trace", skipped=0, records=[
        dict(line=1, pid=6620, main_state="Native", main_lock=None, lock_owner_tid=None,
             main_top_frame="android.os.BinderProxy.transactNative(Native method)"),
        # a native process: its main thread is the one whose sysTid is the pid
        dict(line=15, pid=611, cmdline="/system/bin/surfaceflinger", has_java_threads=False,
             thread_count=2, main_found=True, main_state=None, main_tid=None,
             main_sys_tid=611)]),
    "anr/subject-no-java.txt": dict(kind="anr-trace", skipped=0, records=[dict(
        line=1, layout="subject", pid=20417, rss_kb=398104,
        subject="Broadcast of Intent { act=android.intent.action.SCREEN_OFF flg=0x50200010 }",
        time="2024-07-01 07:20:51.334019877+0200", cmdline="com.example.radio",
        has_java_threads=False, thread_count=None, main_found=False, main_state=None,
        main_top_frame=None)]),
    "anr/subject-native-only.txt": dict(kind="anr-trace", skipped=0, records=[dict(
        layout="subject", pid=9955, rss_kb=655300, has_java_threads=False, thread_count=3,
        main_found=True, main_sys_tid=9955, main_tid=None, main_state=None,
        main_top_frame="#00 pc 00000000000896ec  /apex/com.android.runtime/lib64/bionic/"
                       "libc.so (syscall+28) (BuildId: 9c1e7a3b5d2f4e6a)")]),
    "anr/subject-java.txt": dict(kind="anr-trace", skipped=0, records=[dict(
        layout="subject", pid=4410, rss_kb=288640, has_java_threads=True, thread_count=2,
        subject="executing service com.example.fit/.sync.StepSyncService",
        time="2024-04-02 09:54:31.226017334+0200", main_found=True, main_state="Native",
        main_lock="<0x09a8b7c6> (a java.util.concurrent.CountDownLatch$Sync)",
        lock_owner_tid=None, main_top_frame="jdk.internal.misc.Unsafe.park(Native method)")]),
    # Pasted with every line indented: thread headers are told from their
    # blocks by the section's margin.
    "anr/pasted-spaces.txt": dict(kind="anr-trace", skipped=0, records=[PASTED_ANR]),
    "anr/pasted-tabs.txt": dict(kind="anr-trace", skipped=0, records=[PASTED_ANR]),
    "anr/anr_2024-05-18-09-30-41-009.gz": dict(kind="anr-trace", gzipped=True, skipped=0,
        records=[dict(layout="art", pid=15402, cmdline="com.example.translate",
                      thread_count=3, main_state="Waiting", main_sys_tid=15402,
                      main_lock="<0x0e1f2a3b> (a java.lang.Object)", lock_owner_tid=None,
                      main_top_frame="java.lang.Object.wait(Native method)")]),
}


def check_result(name, got, want):
    """The differences between one file's inspect result and its checks."""
    errs = []
    for key in ("kind", "gzipped", "skipped"):
        if key in want and got.get(key) != want[key]:
            errs.append("%s: %s is %r, expected %r" % (name, key, got.get(key), want[key]))
    # A logcat with a tombstone is also read as logcat: its log events come
    # after the tombstones, and are checked by their event names.
    everything = got.get("records", [])
    records = [r for r in everything if r.get("record") != "log"]
    logs = [r.get("event") for r in everything if r.get("record") == "log"]
    if logs != want.get("logs", []):
        errs.append("%s: log events %r, expected %r" % (name, logs, want.get("logs", [])))
    if len(records) != len(want["records"]):
        errs.append("%s: %d records, expected %d" % (name, len(records), len(want["records"])))
    for i, (exp, rec) in enumerate(zip(want["records"], records)):
        frames = rec.get("frames", [])
        for key, value in exp.items():
            where = "%s record %d" % (name, i)
            if key == "nframes":
                have = len(frames)
            elif key == "runtimes":
                have = [f.get("runtime") for f in frames]
            elif key == "frame":
                for idx, fields in value.items():
                    if idx >= len(frames):
                        errs.append("%s: no frame %d" % (where, idx))
                        continue
                    for fk, fv in fields.items():
                        if frames[idx].get(fk) != fv:
                            errs.append("%s frame %d: %s is %r, expected %r"
                                        % (where, idx, fk, frames[idx].get(fk), fv))
                continue
            elif key not in rec:
                errs.append("%s: no field %s" % (where, key))
                continue
            else:
                have = rec[key]
            if have != value:
                errs.append("%s: %s is %r, expected %r" % (where, key, have, value))
    return errs


def selftest():
    """The checker must notice a wrong record, or its passes mean nothing."""
    want = CHECKS["tombstone/plain-gpu-delegate.txt"]
    rec = dict(want["records"][0])
    frames = []
    for i, rt in enumerate(rec.pop("runtimes")):
        frames.append(dict(index=i, runtime=rt, symbol=None, library=None, pc="0x0"))
    for idx, fields in rec.pop("frame").items():
        frames[idx].update(fields)
    rec.pop("nframes")
    rec["frames"] = frames
    good = dict(kind="tombstone", skipped=0, records=[rec])
    if check_result("selftest", good, want):
        fail("checker self-test: a matching record was rejected: %s"
             % check_result("selftest", good, want))
    for key, bad in (("pid", 1), ("code_name", "SEGV_ACCERR"), ("first_runtime", None)):
        wrong = json.loads(json.dumps(good))
        wrong["records"][0][key] = bad
        if not check_result("selftest", wrong, want):
            fail("checker self-test: a wrong %s went unnoticed" % key)
    wrong = json.loads(json.dumps(good))
    wrong["records"][0]["frames"][3]["runtime"] = None
    if not check_result("selftest", wrong, want):
        fail("checker self-test: a lost runtime mark went unnoticed")
    wrong = json.loads(json.dumps(good))
    wrong["records"].append(wrong["records"][0])
    if not check_result("selftest", wrong, want):
        fail("checker self-test: an extra record went unnoticed")


# --- not a tombstone, not an ANR trace ----------------------------------------

NEGATIVE = {
    # a logcat that mentions signals, with no report after them
    "signals.txt": (
        "06-01 10:00:00.100  1201  1290 I Zygote  : Process 4411 exited due to signal 9 (Killed)\n"
        "06-01 10:00:00.101  1201  1290 I ActivityManager: Process com.example.a (pid 4411) has died\n"
        "06-01 10:00:00.200  4500  4500 I Process : Sending signal. PID: 4500 SIG: 9\n"
        "06-01 10:00:00.300  4600  4650 D Worker  : signal 3 (SIGQUIT) received, dumping\n"),
    # libc's Fatal line alone, then an app that logs under the tag DEBUG
    "fatal-alone.txt": (
        "06-01 10:00:01.000  4700  4710 F libc    : Fatal signal 6 (SIGABRT), code -1 (SI_QUEUE) "
        "in tid 4710 (w), pid 4700 (com.example.b)\n"
        "06-01 10:00:01.100  4800  4800 D DEBUG   : button pressed, signal sent\n"
        "06-01 10:00:01.200  1201  1290 I ActivityManager: Process com.example.b (pid 4700) has died\n"),
    # a pid/tid line without a signal line
    "pid-line.txt": "pid: 12, tid: 13, name: x  >>> y <<<\nsomething else\n",
    # a Java thread dump in a logcat, with no ANR header
    "thread-dump.txt": (
        "06-01 10:00:02.000  4900  4920 W example.c: \"worker\" prio=5 tid=20 Runnable\n"
        "06-01 10:00:02.000  4900  4920 W example.c:   | sysTid=4920 nice=0 cgrp=top-app\n"
        "06-01 10:00:02.000  4900  4920 W example.c:   at java.lang.Thread.run(Thread.java:1012)\n"),
    # a Subject line that is not a trace's
    "subject.txt": "Subject: meeting notes\n\nCmd line: see below\n",
}


def negatives(lw, tmp):
    for name, text in NEGATIVE.items():
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        p = inspect(lw, path)
        try:
            kind = json.loads(p.stdout)[0]["kind"]
        except (ValueError, IndexError, KeyError):
            fail("%s: inspect printed no JSON" % name)
            continue
        if kind in ("tombstone", "anr-trace"):
            fail("%s: detected as %s" % (name, kind))


def main():
    lw, _ = setup(__doc__)
    update = option("--update")

    selftest()
    seen = set()
    checked = 0
    for fx in fixtures():
        rel = os.path.relpath(fx, "fixtures/evidence")
        seen.add(rel)
        exp_path = os.path.join(os.path.dirname(fx), stem(os.path.basename(fx)) + ".expected.json")
        p = inspect(lw, fx)
        if p.returncode != 0 or p.stderr:
            fail("inspect %s: exit %d: %s" % (fx, p.returncode, p.stderr.decode(errors="replace")))
        if update:
            with open(exp_path, "wb") as f:
                f.write(p.stdout)
        else:
            try:
                with open(exp_path, "rb") as f:
                    want = f.read()
            except FileNotFoundError:
                fail("no expected output %s (run with --update)" % exp_path)
                want = None
            if want is not None and p.stdout != want:
                fail("inspect --json %s differs from %s:\n%s"
                     % (fx, exp_path, p.stdout.decode(errors="replace")))
        try:
            got = json.loads(p.stdout)[0]
        except (ValueError, IndexError):
            fail("%s: inspect printed no JSON" % fx)
            continue
        if rel not in CHECKS:
            fail("%s: no meaning checks in %s" % (fx, os.path.basename(__file__)))
            continue
        for e in check_result(fx, got, CHECKS[rel]):
            fail(e)
        checked += 1
    for rel in sorted(set(CHECKS) - seen):
        fail("fixtures/evidence/%s: checked here but missing" % rel)
    for d in DIRS:
        names = set(os.listdir(d))
        for name in sorted(names):
            if name.endswith(".expected.json") and not any(
                    n != name and not n.endswith(".expected.json") and stem(n) + ".expected.json" == name
                    for n in names):
                fail("%s/%s: expected output without a fixture" % (d, name))

    with tempfile.TemporaryDirectory() as tmp:
        negatives(lw, tmp)

    return finish("%d fixtures checked, %d negative samples" % (checked, len(NEGATIVE)))


if __name__ == "__main__":
    sys.exit(main())
