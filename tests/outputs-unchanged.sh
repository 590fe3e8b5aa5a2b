#!/bin/sh
# Every output of lastwords on the project's fixtures, written twice: by a
# lastwords built from BASE (a commit) and by the one in BUILD. Then the two
# trees are diffed. A refactor that claims to change no behaviour runs this
# against the commit before it; an empty diff is the claim checked.
#
# What is written, each with its stderr and exit status: report in text,
# JSON and HTML (and seed where the input is seed events) of every scenario
# with and without its args, of the demo, and of each ring form; dump,
# verify (text and JSON) of every ring; inspect (text and JSON) of every
# evidence sample and of ../shared/corpus; gate (text, JSON, HTML) and check
# of the demo; the trace of the demo and of every scenario; rules; and
# ingest, history (every --by, text and JSON, and the page), gate with that
# history and export (NDJSON, CSV) of fixtures/history.
#
# usage: tests/outputs-unchanged.sh BASE [BUILD]   (BUILD defaults to build)
# Exit status: 0 same outputs, 1 they differ, 2 usage or a build failed.
set -u
[ $# -ge 1 ] || { echo "usage: $0 BASE [BUILD]" >&2; exit 2; }
base=$1
build=${2:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/src" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

git worktree add --detach "$tmp/src" "$base" >/dev/null 2>&1 || { echo "cannot check out $base" >&2; exit 2; }
(meson setup "$tmp/build" "$tmp/src" -Dtests=false >/dev/null && meson compile -C "$tmp/build" >/dev/null) ||
	{ echo "cannot build $base" >&2; exit 2; }
meson compile -C "$build" >/dev/null || { echo "cannot build $build" >&2; exit 2; }

# run OUTFILE CMD...: stdout, then stderr and the status, into OUTFILE.
run() {
	to=$1; shift
	mkdir -p "$(dirname "$to")"
	"$@" >"$to" 2>"$to.err"
	echo "exit $?" >>"$to.err"
}

snapshot() {
	lw=$1; out=$2
	for s in fixtures/scenarios/*/; do
		n=$(basename "$s")
		args=$(cat "$s/args" 2>/dev/null)
		for f in text json html seed; do
			# shellcheck disable=SC2086
			run "$out/scenario/$n.$f" "$lw" report --format $f $args "$s/bundle"
			run "$out/scenario/$n.noargs.$f" "$lw" report --format $f "$s/bundle"
		done
		# shellcheck disable=SC2086
		run "$out/scenario/$n.fail-on" "$lw" report --fail-on low_memory,native_crash:supported,anr $args "$s/bundle"
		for r in fixtures/rings/*.lwr fixtures/rings-json/*.jsonl; do
			# shellcheck disable=SC2086
			run "$out/scenario-ring/$n.$(basename "$r").json" "$lw" report --format json $args "$s/bundle" "$r"
		done
	done
	for f in text json html; do
		run "$out/demo.$f" "$lw" report --format $f --tz +01:00 fixtures/demo
		run "$out/demo.notz.$f" "$lw" report --format $f fixtures/demo
	done
	for r in fixtures/rings/*.lwr fixtures/bad/*.lwr fixtures/rings-json/*.jsonl fixtures/demo/rings/*; do
		n=$(basename "$(dirname "$r")")-$(basename "$r")
		run "$out/ring/$n.dump" "$lw" dump "$r"
		run "$out/ring/$n.dump-json" "$lw" dump --json "$r"
		run "$out/ring/$n.verify" "$lw" verify "$r"
		run "$out/ring/$n.verify-json" "$lw" verify --json "$r"
	done
	for e in fixtures/evidence/*/* fixtures/demo/*.txt fixtures/demo/tombstone_00 ../shared/corpus/*.txt; do
		[ -f "$e" ] || continue
		case $e in *.expected.json) continue ;; esac
		n=$(basename "$(dirname "$e")")-$(basename "$e")
		run "$out/inspect/$n" "$lw" inspect "$e"
		run "$out/inspect/$n.json" "$lw" inspect --json "$e"
	done
	# The gate (text, JSON, page), check of every expectation file, and the
	# Perfetto trace of the demo and of every scenario.
	for f in text json html; do
		run "$out/gate/demo.$f" "$lw" gate --candidate demo-model-v2-fp16 --format $f --tz +01:00 fixtures/demo
		run "$out/gate/demo-stable.$f" "$lw" gate --candidate demo-model-v2-fp16 --stable demo-model-v1 --format $f fixtures/demo
	done
	for e in fixtures/check/*.json; do
		run "$out/check/$(basename "$e")" "$lw" check --tz +01:00 "$e" fixtures/demo
		run "$out/check/$(basename "$e").fail-on" "$lw" check --tz +01:00 --fail-on low_memory "$e" fixtures/demo
	done
	run "$out/trace/demo.pb" "$lw" trace --tz +01:00 fixtures/demo
	for s in fixtures/scenarios/*/; do
		# shellcheck disable=SC2086
		run "$out/trace/$(basename "$s").pb" "$lw" trace $(cat "$s/args" 2>/dev/null) "$s/bundle"
	done
	run "$out/rules" "$lw" rules
	run "$out/digest" "$lw" digest model-v7-int8 ""
	db=$tmp/$(basename "$out").db
	run "$out/history/ingest" "$lw" ingest --db "$db" --events fixtures/history/bundles/*
	run "$out/history/ingest-again" "$lw" ingest --db "$db" fixtures/history/bundles/*
	for by in candidate app_version stage class device process; do
		run "$out/history/by-$by" "$lw" history --db "$db" --by $by
		run "$out/history/by-$by.json" "$lw" history --db "$db" --by $by --format json
		run "$out/history/by-$by.since" "$lw" history --db "$db" --by $by --since 2026-11-01
	done
	run "$out/history/history.html" "$lw" history --db "$db" --format html
	run "$out/history/gate" "$lw" gate --candidate demo-model-v2-fp16 --history "$db" fixtures/demo
	run "$out/history/gate.json" "$lw" gate --candidate demo-model-v2-fp16 --history "$db" --format json fixtures/demo
	run "$out/history/export.ndjson" "$lw" export --db "$db" --format ndjson
	run "$out/history/export.csv" "$lw" export --db "$db" --format csv
	run "$out/history/tables" sqlite3 "$db" .dump
	# The database's name and the times of ingest are all that may differ.
	sed -i -E -e "s|$tmp/[a-z]*\.db|DB|g" -e "s/'[0-9T:.-]+\.[0-9]{6}Z'/'INGEST TIME'/" "$out"/history/*
}

snapshot "$tmp/build/analyzer/lastwords" "$tmp/before"
snapshot "$build/analyzer/lastwords" "$tmp/after"
files=$(find "$tmp/before" -type f | wc -l)
if diff -r "$tmp/before" "$tmp/after"; then
	echo "same outputs: $files files, $base against $build"
	exit 0
fi
echo "outputs differ ($files files)"
exit 1
