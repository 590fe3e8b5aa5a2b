#!/usr/bin/env python3
"""The sample Gradle module (probe/android/build.gradle.kts), checked
without Gradle, which the machines that test the project do not have:
  - every path it names exists (the CMake file, the Java sources, the
    manifest, the consumer R8 rules), and its CMake path is
    probe/CMakeLists.txt;
  - its Java source directories hold exactly the sources that meson
    compiles into lastwords.jar and lastwords-android.jar, the vocabulary
    enums among them (committed: test java-enums), and nothing generated
    is missing from them;
  - consumer-rules.pro keeps, by name, every class that declares a native
    method, with its native methods;
  - probe/jni.c registers its natives on a class that exists, by the names
    and JNI signatures that class declares, and every native method of it
    is registered: a mismatch fails System.loadLibrary on a device.
A mutation of each (a wrong path, a missing keep rule, a renamed native)
is checked to fail. The CMake build with Gradle's flags is
tests/probe-cmake.sh's.

usage: gradle-module.py SOURCE_ROOT
"""
import os
import re
import sys

from helpers import check, finish

JNI_TYPES = {"void": "V", "boolean": "Z", "byte": "B", "char": "C", "short": "S", "int": "I",
             "long": "J", "float": "F", "double": "D", "String": "Ljava/lang/String;"}


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def gradle_paths(text):
    """(kind, path) of each path the module names: file(...), srcDirs(...),
    consumerProguardFiles(...), manifest.srcFile(...)."""
    out = []
    text = re.sub(r"//[^\n]*", "", text)  # comments, where the README's usage is shown
    for kind in ("file", "java.srcDirs", "consumerProguardFiles", "manifest.srcFile"):
        for args in re.findall(r"(?<![\w.])" + re.escape(kind) + r"\(([^)]*)\)", text):
            out += [(kind, p) for p in re.findall(r'"([^"]+)"', args)]
    return out


def java_natives(text):
    """{name: JNI descriptor} of the native methods declared in a Java source."""
    out = {}
    body = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    for ret, name, params in re.findall(
            r"\bnative\s+([\w\[\]]+)\s+(\w+)\s*\(([^)]*)\)\s*;", body):
        def desc(t):
            t = t.strip()
            dims = t.count("[]")
            base = t.replace("[]", "").strip()
            return "[" * dims + JNI_TYPES.get(base, "L%s;" % base)
        types = [p.strip().rsplit(None, 1)[0] for p in params.split(",") if p.strip()]
        out[name] = "(" + "".join(desc(t) for t in types) + ")" + desc(ret)
    return out


def jni_table(text):
    """(class name, {name: descriptor}) of probe/jni.c's RegisterNatives."""
    cls = re.findall(r'FindClass\(env, "([\w/]+)"\);\s*if \(!cls \|\| \(\*env\)->RegisterNatives',
                     text)
    table = re.search(r"JNINativeMethod methods\[\] = \{(.*?)\n\};", text, re.S)
    entries = re.findall(r'\{ "(\w+)", "([^"]+)", FN\(\w+\) \}', table.group(1) if table else "")
    return (cls[0] if len(cls) == 1 else None), dict(entries)


def keeps(pro):
    """The classes that a -keep rule of pro keeps with their native methods."""
    body = re.sub(r"#[^\n]*", "", pro)
    return set(re.findall(r"-keep(?:classmembers|classeswithmembers|classeswithmembernames)?"
                          r"(?:,\w+)*\s+class\s+([\w.$]+)\s*\{[^}]*\bnative\s+<methods>\s*;",
                          body))


def meson_java_sources(root):
    """The probe's Java sources that probe/meson.build compiles into its jars."""
    text = read(os.path.join(root, "probe", "meson.build"))
    return {os.path.normpath(os.path.join(root, "probe", p))
            for p in re.findall(r"'(java/dev/lastwords/[\w/]+\.java)'", text)}


def problems(root, gradle, pro, jni_c):
    """What is wrong with the module, as a list of lines; [] when nothing."""
    bad = []
    mod = os.path.join(root, "probe", "android")
    paths = gradle_paths(gradle)
    for kind, p in paths:
        if not os.path.exists(os.path.join(mod, p)):
            bad.append("build.gradle.kts: %s(\"%s\") names %s, which does not exist"
                       % (kind, p, os.path.normpath(os.path.join(mod, p))))
    cmake = re.search(r"cmake\s*\{[^{}]*path\s*=\s*file\(\"([^\"]+)\"\)", gradle)
    if not cmake or os.path.normpath(os.path.join(mod, cmake.group(1))) != \
            os.path.join(root, "probe", "CMakeLists.txt"):
        bad.append("build.gradle.kts: externalNativeBuild's cmake path is not "
                   "probe/CMakeLists.txt: %r" % (cmake.group(1) if cmake else None))
    src_dirs = [os.path.normpath(os.path.join(mod, p)) for k, p in paths if k == "java.srcDirs"]
    in_dirs = set()
    for d in src_dirs:
        for dirpath, _, files in os.walk(d):
            in_dirs |= {os.path.join(dirpath, f) for f in files if f.endswith(".java")}
    want = meson_java_sources(root)
    for f in sorted(want - in_dirs):
        bad.append("build.gradle.kts: %s, which meson compiles into the jars, is in no "
                   "java.srcDirs" % os.path.relpath(f, root))
    for f in sorted(in_dirs - want):
        bad.append("build.gradle.kts: %s is in its java.srcDirs but not in probe/meson.build's "
                   "jars" % os.path.relpath(f, root))
    kept = keeps(pro)
    natives = {}
    for f in sorted(in_dirs):
        n = java_natives(read(f))
        if not n:
            continue
        rel = os.path.relpath(f, os.path.join(root, "probe", "java"))
        cls = rel[:-5].replace(os.sep, ".")
        natives[cls] = n
        if cls not in kept:
            bad.append("consumer-rules.pro: no -keep rule keeps %s's native methods (%s)"
                       % (cls, ", ".join(sorted(n))))
    cls, table = jni_table(jni_c)
    java_cls = cls.replace("/", ".") if cls else None
    if java_cls not in natives:
        bad.append("probe/jni.c: RegisterNatives on %r, which declares no native method here"
                   % cls)
    else:
        declared = natives[java_cls]
        for name, d in sorted(table.items()):
            if declared.get(name) != d:
                bad.append("probe/jni.c: registers %s%s, but %s declares %s" % (
                    name, d, java_cls, declared.get(name, "no such native method")))
        for name in sorted(set(declared) - set(table)):
            bad.append("probe/jni.c: does not register %s.%s%s" % (java_cls, name,
                                                                 declared[name]))
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gradle-module.py SOURCE_ROOT")
    root = os.path.abspath(sys.argv[1])
    gradle = read(os.path.join(root, "probe", "android", "build.gradle.kts"))
    pro = read(os.path.join(root, "probe", "android", "consumer-rules.pro"))
    jni_c = read(os.path.join(root, "probe", "jni.c"))
    bad = problems(root, gradle, pro, jni_c)
    check(not bad, "the Gradle module agrees with the tree:\n  " + "\n  ".join(bad))
    cls, table = jni_table(jni_c)
    check(cls == "dev/lastwords/Native" and len(table) >= 20,
          "probe/jni.c's table was read: %r, %d methods" % (cls, len(table)))
    check(len(gradle_paths(gradle)) >= 4, "the module's paths were read: %r" % gradle_paths(gradle))

    # Each check can fail: one mutation each.
    mutations = [
        ("a path that does not exist", gradle.replace('"../CMakeLists.txt"',
                                                      '"../CMakeList.txt"'), pro, jni_c,
         "does not exist"),
        ("a source directory that misses the facade", gradle.replace(
            'java.srcDirs("../java")', 'java.srcDirs("../java/dev/lastwords/android")'), pro,
         jni_c, "is in no java.srcDirs"),
        ("no keep rule", gradle, pro.replace("-keep class dev.lastwords.Native",
                                             "-keep class dev.lastwords.Probe"), jni_c,
         "no -keep rule keeps dev.lastwords.Native"),
        ("a native registered by another name", gradle, pro,
         jni_c.replace('{ "stageBegin", "(JI)I"', '{ "beginStage", "(JI)I"'),
         "does not register dev.lastwords.Native.stageBegin"),
        ("a native registered with another signature", gradle, pro,
         jni_c.replace('{ "mark", "(JIJ)I"', '{ "mark", "(JII)I"'), "registers mark(JII)I"),
    ]
    for what, g, p, j, text in mutations:
        got = problems(root, g, p, j)
        check(any(text in line for line in got), "%s is found: %r" % (what, got))
    return finish("the Gradle module's paths, sources, R8 rule and JNI table")


if __name__ == "__main__":
    sys.exit(main())
