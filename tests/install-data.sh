#!/bin/sh
# What `meson install` gives besides the code: every file of schemas/ under
# share/lastwords/schemas, as it is in the source tree, and every man page
# of man/ under share/man/manN. Installs into a scratch DESTDIR.
#
# usage: install-data.sh BUILD_ROOT SOURCE_ROOT
set -u
. "$(dirname "$0")/helpers.sh"
build=$1
src=$2

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest="$tmp/root"
install_destdir "$build" "$dest"
fails=0
n=0
for f in "$src"/schemas/*; do
	got=$(find "$dest" -path "*/share/lastwords/schemas/$(basename "$f")" | head -n 1)
	if [ -z "$got" ]; then
		echo "FAIL: schemas/$(basename "$f") is not installed in share/lastwords/schemas"
		fails=$((fails + 1))
	elif ! cmp -s "$f" "$got"; then
		echo "FAIL: the installed $(basename "$f") differs from schemas/$(basename "$f")"
		fails=$((fails + 1))
	fi
	n=$((n + 1))
done
extra=$(find "$dest" -path '*/share/lastwords/schemas/*' | wc -l)
[ "$extra" -eq "$n" ] || { echo "FAIL: $extra files installed in share/lastwords/schemas, $n in schemas/"; fails=$((fails + 1)); }
pages=0
for f in "$src"/man/*.[1-9]; do
	page=$(basename "$f")
	sect=${page##*.}
	got=$(find "$dest" -path "*/share/man/man$sect/$page" | head -n 1)
	if [ -z "$got" ] || ! cmp -s "$f" "$got"; then
		echo "FAIL: man/$page is not installed as share/man/man$sect/$page"
		fails=$((fails + 1))
	fi
	pages=$((pages + 1))
done
[ "$fails" -eq 0 ] || exit 1
echo "pass: $n schemas in share/lastwords/schemas, $pages man pages in share/man"
