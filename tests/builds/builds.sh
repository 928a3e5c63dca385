#!/bin/sh
# The builds others make: a Release build with gcc, and a Debian package's
# build (dpkg-buildflags: hardening, _FORTIFY_SOURCE, CMAKE_BUILD_TYPE=None)
# with clang, each of the library, the tool and the examples. Warnings are
# errors here (VN_WERROR=ON) so that a new one is fixed, not shipped; the
# packagers' default leaves it off.
# usage: builds.sh SOURCE_DIR WORK_DIR release-gcc|dpkg-clang
set -eu
src=$1
work=$2
kind=$3
rm -rf "$work"
case $kind in
release-gcc)
    CC=gcc CXX=g++ cmake -S "$src" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DVN_WERROR=ON -DVN_TESTS=OFF -DVN_HELPDOC=OFF >/dev/null
    ;;
dpkg-clang)
    command -v dpkg-buildflags >/dev/null || { echo "no dpkg-buildflags (dpkg-dev)"; exit 1; }
    export DEB_BUILD_MAINT_OPTIONS=hardening=+all
    cppflags=$(dpkg-buildflags --get CPPFLAGS)
    # As debhelper passes them to CMake: CPPFLAGS folded into CFLAGS.
    CC=clang CXX=clang++ CFLAGS="$(dpkg-buildflags --get CFLAGS) $cppflags" \
        CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $cppflags" \
        LDFLAGS="$(dpkg-buildflags --get LDFLAGS)" \
        cmake -S "$src" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=None \
        -DVN_WERROR=ON -DVN_TESTS=OFF -DVN_HELPDOC=OFF >/dev/null
    grep -q 'D_FORTIFY_SOURCE=2' "$work/CMakeCache.txt" || { echo "the flags did not reach CMake"; exit 1; }
    ;;
*)
    echo "usage: $0 SOURCE_DIR WORK_DIR release-gcc|dpkg-clang" >&2
    exit 2
    ;;
esac
cmake --build "$work"
# What was built runs.
"$work/vernier" --version
rm -rf "$work"
