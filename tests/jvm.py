"""What the JVM tests share (tests/jvm-*.py, bench-jni.py): the Java launcher
of the JDK that built lastwords.jar, the class and library paths of the
facade and the test classes, and the environment: libjsig.so preloaded on
request (HotSpot's signal chaining), and the sanitizer runtime first when
the build is sanitized (an ASan library cannot load into a program that
does not start with its runtime).

meson passes these in the environment (tests/meson.build, jvm_env):
  LASTWORDS_JAR       build/probe/lastwords.jar, empty without a JDK
  LASTWORDS_TEST_JAR  the test classes (tests/java/)
  LASTWORDS_JAVAC     the javac that built them
  LASTWORDS_JNI_PATH  the directories of liblastwords_jni.so and the
                      test library liblastwords_jnitest.so
  LASTWORDS_ANDROID_CP  the Android helpers' tests (tests/android-*.py):
                      lastwords-android.jar, the stand-in android.*
                      classes (tests/android-stub/) and their test classes
"""
import os
import re
import subprocess

from helpers import fail, skip


def jvm_or_skip():
    """The Jvm of the environment meson gives; skips (77) without a JDK."""
    jar = os.environ.get("LASTWORDS_JAR", "")
    if not jar:
        skip("no JDK: the Java facade was not built (javac, jar and jni.h)")
    return Jvm(jar, os.environ["LASTWORDS_JAVAC"], os.environ["LASTWORDS_JNI_PATH"],
               os.environ["LASTWORDS_TEST_JAR"], os.environ.get("LASTWORDS_ANDROID_CP", ""))


class Jvm:
    def __init__(self, jar, javac, lib_path, test_jar, android_cp=""):
        """jar: lastwords.jar; javac: the JDK's javac; lib_path: the
        directories of the native libraries; test_jar: more classes, or a
        directory of them; android_cp: the Android helpers' class path."""
        self.jar, self.test_jar, self.lib_path = jar, test_jar, lib_path
        self.android_cp = android_cp
        self.home = os.path.dirname(os.path.dirname(os.path.realpath(javac)))
        self.javac = os.path.join(self.home, "bin", "javac")
        self.java = os.path.join(self.home, "bin", "java")
        self.jsig = os.path.join(self.home, "lib", "libjsig.so")
        self.runtime = sanitizer_runtime(os.path.join(self.lib_path.split(":")[0],
                                                      "liblastwords_jni.so"))

    def command(self, cls, args, vm_options=()):
        """The java command line that runs the test class cls with args."""
        cp = ":".join(x for x in (self.jar, self.test_jar, self.android_cp) if x)
        return ([self.java, "-Xshare:auto", "-cp", cp,
                 "-Djava.library.path=" + self.lib_path] + list(vm_options) + [cls]
                + [str(a) for a in args])

    def env(self, jsig=False):
        """The environment for the JVM: libjsig.so preloaded when jsig, after
        the sanitizer runtime if any."""
        env = dict(os.environ)
        preload = [p for p in (self.runtime, self.jsig if jsig else None) if p]
        if preload:
            env["LD_PRELOAD"] = ":".join(preload)
        elif "LD_PRELOAD" in env:
            del env["LD_PRELOAD"]
        return env

    def run(self, cls, args, jsig=False, vm_options=(), timeout=120, cwd=None):
        """Run the test class; returns the CompletedProcess (text)."""
        try:
            return subprocess.run(self.command(cls, args, vm_options), env=self.env(jsig),
                                  capture_output=True, text=True, timeout=timeout, cwd=cwd)
        except subprocess.TimeoutExpired:
            fail("java %s %s still runs after %d s" % (cls, " ".join(map(str, args)), timeout))
            return None


def sanitizer_runtime(lib):
    """The ASan runtime that lib needs (from ldd), or None."""
    try:
        out = subprocess.run(["ldd", lib], capture_output=True, text=True).stdout
    except OSError:
        return None
    m = re.search(r"=>\s*(\S*lib(?:clang_rt\.)?asan\S*)", out)
    return m.group(1) if m else None
