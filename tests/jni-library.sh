#!/bin/sh
# liblastwords_jni.so as an APK ships it, for the build's ABI: an ELF shared
# object of the ABI's class and machine (32-bit for arm and x86, which the
# cross builds of tests/cross-32.sh make and no JVM here can load), that
# loads liblastwords.so and exports JNI_OnLoad alone (the natives are
# registered by it, probe/jni.c), besides the _init and _fini that musl's
# start files give every shared object.
#
# usage: jni-library.sh LIBLASTWORDS_JNI CPU_FAMILY
set -u
so=$1
family=$2

. "$(dirname "$0")/helpers.sh"
need readelf

case $family in
arm) class=ELF32 machine=ARM ;;
x86) class=ELF32 machine="Intel 80386" ;;
aarch64) class=ELF64 machine=AArch64 ;;
x86_64) class=ELF64 machine="Advanced Micro Devices X86-64" ;;
*) echo "skip: no expectation for cpu family $family"; exit 77 ;;
esac
h=$(readelf -h "$so") || { echo "FAIL: readelf -h $so"; exit 1; }
echo "$h" | grep -q "Class: *$class" ||
	{ echo "FAIL: $so is not $class: $(echo "$h" | grep Class)"; exit 1; }
echo "$h" | grep -q "Machine: *$machine" ||
	{ echo "FAIL: $so is not for $machine: $(echo "$h" | grep Machine)"; exit 1; }
readelf -d "$so" | grep -q 'NEEDED.*\[liblastwords\.so' ||
	{ echo "FAIL: $so does not load liblastwords.so"; readelf -d "$so"; exit 1; }
exports=$(readelf --dyn-syms -W "$so" |
	awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 != "NOTYPE" &&
		$8 != "_init" && $8 != "_fini" {print $8}' |
	sed 's/@.*//' | sort -u | tr '\n' ' ')
[ "$exports" = "JNI_OnLoad " ] ||
	{ echo "FAIL: $so exports '$exports', not JNI_OnLoad alone"; exit 1; }
echo "pass: $so is $class $machine, over liblastwords.so, exporting $exports"
