#!/bin/sh
# abi.check: the libvernier.so just built against the ABI of the last
# release, kept in tests/abi/libvernier.abi (abidw's dump of it, limited to
# the installed headers). An incompatible change (a function removed, a
# public type changed under a program built against the old headers) fails;
# a compatible one (a function added) passes and says so, to be kept in the
# dump at the next release (scripts/abi-dump).
#   tests/abi/check.sh LIB DUMP HEADERS
set -u
lib=$1 dump=$2 headers=$3
if ! command -v abidiff >/dev/null 2>&1; then
    echo "abi.check: abidiff not found: scripts/install-deps --test installs abigail-tools" >&2
    exit 1
fi
out=$(abidiff --headers-dir2 "$headers" "$dump" "$lib" 2>&1)
rc=$?
# abidiff's status is a set of bits: 1 an error, 2 a usage error, 4 a
# change of the ABI, 8 an incompatible one.
if [ $((rc & 3)) -ne 0 ]; then
    echo "abi.check: abidiff failed ($rc):"; echo "$out"; exit 1
fi
if [ $((rc & 8)) -ne 0 ]; then
    echo "abi.check: $lib breaks the ABI of $dump:"; echo "$out"; exit 1
fi
if [ $((rc & 4)) -ne 0 ]; then
    echo "abi.check: compatible changes since $dump (keep them at the next release: scripts/abi-dump):"
    echo "$out"
fi
n=$(grep -c '<elf-symbol name=.*type=.func-type' "$dump")
echo "abi.check: $lib keeps the ABI of $dump ($n functions)"
