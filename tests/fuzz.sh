#!/bin/sh
# The libFuzzer harnesses of tests/fuzz/, built with clang, ASan and UBSan
# once (`build`: a meson custom target, into DIR, with STAMP last), then
# each run for SECONDS (`run`: one meson test per harness), seeded with the
# project's fixtures. A crash, leak or sanitizer report fails the run, and
# the input that caused it is kept (printed here) so it can become a
# fixture. Without clang or its libFuzzer runtime the build writes the
# reason in DIR/skip and each run skips (77).
#
# usage: fuzz.sh build SOURCE_ROOT DIR STAMP
#        fuzz.sh run SOURCE_ROOT DIR SECONDS [HARNESS...]
set -u
mode=$1
src=$2
dir=$3
shift 3
if [ "$mode" = run ]; then
	seconds=$1
	shift
	if [ -f "$dir/skip" ]; then
		echo "skip: $(cat "$dir/skip")"
		exit 77
	fi
	[ $# -gt 0 ] || set -- $(cd "$src/tests/fuzz" && ls *.c | sed 's/\.c$//')
	tmp=$(mktemp -d)
	keep="${FUZZ_KEEP:-}"
	trap '[ -z "$keep" ] && rm -rf "$tmp"' EXIT
	unset ASAN_OPTIONS UBSAN_OPTIONS
	failed=0
	for h in "$@"; do
		if [ ! -x "$dir/$h" ]; then
			echo "FAIL: no harness $dir/$h (meson compile -C BUILD tests/fuzz-harnesses)"
			failed=1
			continue
		fi
		mkdir "$tmp/corpus-$h"
		cp "$dir/seeds-$h"/* "$tmp/corpus-$h/" 2>/dev/null
		if TMPDIR="$tmp" "$dir/$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
			-max_len=65536 -print_final_stats=1 -artifact_prefix="$tmp/crash-$h-" "$tmp/corpus-$h" \
			>"$tmp/$h.log" 2>&1; then
			runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$tmp/$h.log" | grep -o '[0-9]*$')
			cov=$(grep -o 'cov: [0-9]*' "$tmp/$h.log" | tail -n 1)
			echo "fuzz $h: ${runs:-?} runs in ${seconds}s, $cov, no crash"
		else
			failed=1
			keep=1
			echo "FAIL: fuzz $h found a problem:"
			grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$tmp/$h.log" | head -n 20
			for c in "$tmp"/crash-"$h"-*; do
				[ -f "$c" ] || continue
				echo "input $c (make it a fixture under fixtures/evidence/fuzz/):"
				od -c "$c" | head -n 20
			done
		fi
	done
	[ $failed -eq 0 ] || echo "fuzz work files kept in $tmp"
	exit $failed
fi
[ "$mode" = build ] || { echo "usage: fuzz.sh build|run SOURCE_ROOT DIR ..." >&2; exit 2; }
stamp=$1
rm -rf "$dir"
mkdir -p "$dir" || exit 1

clang=""
for c in clang clang-14 clang-15 clang-16; do
	if command -v "$c" >/dev/null 2>&1; then
		clang=$c
		break
	fi
done
if [ -z "$clang" ]; then
	echo "clang is not installed (.ci/install-deps --tests installs it)" >"$dir/skip"
	touch "$stamp"
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	>"$tmp/probe.c"
if ! "$clang" -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" >/dev/null 2>&1; then
	echo "$clang has no libFuzzer runtime (libclang-rt-14-dev)" >"$dir/skip"
	touch "$stamp"
	exit 0
fi

# Every analyzer module: the evidence parsers, the seed's reproduction and
# the runs, the crash signatures and the pipeline with its outputs; not the
# commands, main() or the device (device/: adb, bugreportz), nor the history
# store (SQLite, fed only by the report that the harnesses reach).
modules=""
for f in "$src"/analyzer/*.c "$src"/analyzer/evidence/*.c "$src"/analyzer/seed/*.c \
	"$src"/analyzer/runs/*.c "$src"/analyzer/output/*.c "$src"/analyzer/symbols/*.c; do
	case $(basename "$f") in
	main.c | cmd-*.c | history-html.c | history-text.c) ;;
	*) modules="$modules $f" ;;
	esac
done
# The ring JSON reader's schema, embedded as the build embeds it.
python3 "$src/analyzer/embed.py" "$tmp/ring-events-schema.c" \
	"ring_events_schema_json=$src/schemas/ring-events.schema.json" ||
	{ echo "FAIL: cannot embed schemas/ring-events.schema.json"; exit 1; }
python3 "$src/analyzer/embed.py" "$tmp/expect-schema.c" \
	"expect_schema_json=$src/schemas/expect.schema.json" ||
	{ echo "FAIL: cannot embed schemas/expect.schema.json"; exit 1; }
modules="$modules $tmp/ring-events-schema.c $tmp/expect-schema.c"
core="$src/src/signals.c $src/src/vocab.c $src/src/exit-info.c $src/src/protobuf.c $src/src/crc32c.c $src/src/ring.c $src/src/cpu.c $src/src/digest.c"
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_DEFAULT_SOURCE -std=c11"
incs="-I$src/include"

# Build the shared objects once, one compiler per core (this step is the
# build's long tail), then link each harness against them.
mkdir "$tmp/obj"
export clang cflags incs tmp
# shellcheck disable=SC2086,SC2016
if ! printf '%s\n' $modules $core | xargs -P "$(nproc 2>/dev/null || echo 2)" -n 1 sh -c '
	o="$tmp/obj/$(basename "$(dirname "$1")")-$(basename "$1" .c).o"
	"$clang" $cflags -fsanitize=fuzzer-no-link $incs -c "$1" -o "$o" 2>"$o.log" && exit 0
	cat "$o.log"
	echo "FAIL: cannot compile $1 for fuzzing"
	exit 255' sh; then
	exit 1
fi
rm -f "$tmp"/obj/*.log

set -- $(cd "$src/tests/fuzz" && ls *.c | sed 's/\.c$//')
seeds_for() {
	case $1 in
	ring) echo "$src/fixtures/rings $src/fixtures/bad" ;;
	ring_json) echo "$src/fixtures/rings-json" ;;
	seed_report) echo "$src/fixtures/scenarios" ;;
	report) echo "$tmp/report-seeds" ;;
	bugreport) echo "$src/fixtures/bugreports" ;;
	r8_mapping) echo "$src/fixtures/r8" ;;
	tombstone_proto) echo "$src/fixtures/tombstone-pb" ;;
	*) echo "$src/fixtures/evidence" ;;
	esac
}

# The report harness reads a bundle as files joined by "====" lines.
mkdir -p "$tmp/report-seeds"
for d in "$src"/fixtures/scenarios/*/bundle; do
	[ -d "$d" ] || continue
	out="$tmp/report-seeds/$(basename "$(dirname "$d")")"
	first=1
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		[ $first -eq 1 ] || printf '====\n' >>"$out"
		cat "$f" >>"$out"
		first=0
	done
done

for h in "$@"; do
	# shellcheck disable=SC2086
	if ! "$clang" $cflags $incs "$src/tests/fuzz/$h.c" "$tmp"/obj/*.o -lcjson -lz -lzip -ldw -lelf \
		-o "$dir/$h" 2>"$tmp/cc.log"; then
		cat "$tmp/cc.log"
		echo "FAIL: cannot build harness $h"
		exit 1
	fi
	mkdir -p "$dir/seeds-$h"
	for d in $(seeds_for "$h"); do
		[ -d "$d" ] && find "$d" -type f -size -1000k -exec cp {} "$dir/seeds-$h/" \; 2>/dev/null
	done
done
touch "$stamp"
