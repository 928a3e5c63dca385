#!/bin/sh
# abi.selftest: tests/abi/check.sh fails on an incompatible change. The
# kept dump with one more function than the library (vn_gone: as if a
# release had it and this build removed it) must be refused, and the kept
# dump itself accepted.
#   tests/abi/selftest.sh LIB DUMP HEADERS
set -u
lib=$1 dump=$2 headers=$3 here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
sed "s|^\(.*\)<elf-symbol name='vn_version' \(.*\)$|&\n\1<elf-symbol name='vn_gone' \2|" "$dump" > "$tmp/gone.abi"
grep -q "name='vn_gone'" "$tmp/gone.abi" || { echo "FAIL: no vn_version symbol to copy in $dump"; exit 1; }
out=$(sh "$here/check.sh" "$lib" "$tmp/gone.abi" "$headers" 2>&1)
if [ $? -eq 0 ] || ! printf '%s\n' "$out" | grep -q "vn_gone"; then
    echo "FAIL: a removed function passed the check:"; echo "$out"; exit 1
fi
echo "ok: a removed function (vn_gone) breaks the ABI"
sh "$here/check.sh" "$lib" "$dump" "$headers" || { echo "FAIL: the kept dump is refused"; exit 1; }
echo "ok: the kept dump is accepted"
