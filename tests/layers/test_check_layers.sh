#!/bin/sh
# scripts/check-layers on small fake trees: it passes a tree that keeps its
# layers, and fails, naming the edge or the file, on an include cycle, a call
# cycle, a cycle of one include and one call, an upward include, an upward
# call, a file without a layer, a file at the top of src/, a folder without
# a README, a file too long and a stale allow-list entry. The calls come from objects compiled here
# ($CC).
#   tests/layers/test_check_layers.sh scripts/check-layers
set -u
check=$1
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect NAME RC PATTERN ROOT [ARGS...]: check-layers exits with RC and, when
# PATTERN is not empty, prints a line matching it.
expect() {
    name=$1 want=$2 pat=$3; shift 3
    out=$(sh "$check" "$@" 2>&1); rc=$?
    if [ "$rc" != "$want" ]; then
        fail "$name: exit $rc, expected $want; output:"; echo "$out"
    elif [ -n "$pat" ] && ! printf '%s\n' "$out" | grep -q -- "$pat"; then
        fail "$name: no line matching '$pat'; output:"; echo "$out"
    else
        echo "ok: $name"
    fi
}

# A tree: two layers, each a folder: low (src/low/) and high (src/high/).
tree() {
    rm -rf "$tmp/t"; mkdir -p "$tmp/t/src/low" "$tmp/t/src/high" "$tmp/t/docs"
    cat > "$tmp/t/docs/layers.md" <<'T'
| rank | layer | files | what |
|---|---|---|---|
| 1 | low | `src/low/*` | the bottom |
| 2 | high | `src/high/*` | the top |
T
    echo "# src/low/" > "$tmp/t/src/low/README.md"
    echo "# src/high/" > "$tmp/t/src/high/README.md"
    printf 'int vn_low(void);\n' > "$tmp/t/src/low/low.h"
    printf '#include "low.h"\nint vn_low(void) { return 1; }\n' > "$tmp/t/src/low/low.c"
    printf '#include "low/low.h"\nint vn_high(void);\n' > "$tmp/t/src/high/high.h"
    printf '#include "high.h"\nint vn_high(void) { return vn_low() + 1; }\n' > "$tmp/t/src/high/high.c"
}
objs() {
    rm -rf "$tmp/t/obj"
    for f in "$tmp"/t/src/*/*.c; do
        rel=${f#"$tmp/t/"}
        mkdir -p "$tmp/t/obj/fake.dir/$(dirname "$rel")"
        "$cc" -I "$tmp/t/src" -c -o "$tmp/t/obj/fake.dir/$rel.o" "$f" || exit 1
    done
}

tree; objs
expect "a tree that keeps its layers passes" 0 'no upward edge, no cycle' "$tmp/t" "$tmp/t/obj"
# The object of a file since moved away (an incremental build keeps it)
# is left out, not a file without a layer.
mkdir -p "$tmp/t/obj/fake.dir/src"
cp "$tmp/t/obj/fake.dir/src/low/low.c.o" "$tmp/t/obj/fake.dir/src/old_low.c.o"
expect "a stale object is left out" 0 'from 2 objects' "$tmp/t" "$tmp/t/obj"

tree
printf '#include "low2.h"\n' >> "$tmp/t/src/low/low.h"
printf '#include "low.h"\n' > "$tmp/t/src/low/low2.h"
expect "an include cycle fails" 1 'include cycle: src/low/low.h -> src/low/low2.h -> src/low/low.h' "$tmp/t"

tree
printf '#include "high/high.h"\n' >> "$tmp/t/src/low/low.c"
expect "an upward include fails" 1 'upward include: src/low/low.c (low) includes src/high/high.h (high)' "$tmp/t"

tree
printf 'int vn_low2(void);\nint vn_low3(void) { return vn_low2(); }\n' >> "$tmp/t/src/low/low.c"
printf 'int vn_low3(void);\nint vn_low2(void) { return vn_low3(); }\n' > "$tmp/t/src/low/low2.c"
objs
expect "a call cycle fails" 1 'call cycle: src/low/low.c -> src/low/low2.c -> src/low/low.c' "$tmp/t" "$tmp/t/obj"

# low.c includes low2.h (for a type), and low2.c calls low.c: neither kind
# alone has a loop, the two together do, between the modules low.* and
# low2.*.
tree
printf '#define VN_LOW2 2\n' > "$tmp/t/src/low/low2.h"
printf '#include "low2.h"\nint vn_low4(void) { return VN_LOW2; }\n' >> "$tmp/t/src/low/low.c"
printf 'int vn_low(void);\nint vn_low2(void) { return vn_low(); }\n' > "$tmp/t/src/low/low2.c"
objs
expect "a cycle of an include and a call fails" 1 \
    'include or call cycle: src/low/low.\* -> src/low/low2.\* -> src/low/low.\*' "$tmp/t" "$tmp/t/obj"

tree
printf 'int vn_high(void);\nint vn_up(void) { return vn_high(); }\n' > "$tmp/t/src/low/low_up.c"
objs
expect "an upward call fails" 1 'upward call: src/low/low_up.c (low) calls vn_high of src/high/high.c (high)' "$tmp/t" "$tmp/t/obj"
printf "# why it is allowed\nsrc/low/low_up.c -> src/high/high.c\n" > "$tmp/allow"
expect "an allowed upward call passes" 0 "no upward edge, no cycle" --allow "$tmp/allow" "$tmp/t" "$tmp/t/obj"
printf "src/low/low.c -> src/high/high.c\n" >> "$tmp/allow"
expect "a stale allow-list entry fails" 1 "line 3 (src/low/low.c -> src/high/high.c) matches no edge any more" --allow "$tmp/allow" "$tmp/t" "$tmp/t/obj"

tree
mkdir -p "$tmp/t/src/middle" && printf 'int y;\n' > "$tmp/t/src/middle/middle.c"
expect "a file without a layer fails" 1 'no layer for src/middle/middle.c' "$tmp/t"

tree
rm "$tmp/t/src/high/README.md"
expect "a folder without a README fails" 1 'no README.md in src/high/' "$tmp/t"

tree
printf 'int x;\n' > "$tmp/t/src/lost.c"
printf '| 3 | lost | `src/lost.c` | a file of its own |\n' >> "$tmp/t/docs/layers.md"
expect "a file at the top of src/ fails" 1 'a file at the top of src/: src/lost.c' "$tmp/t"

tree
awk 'BEGIN { for (i = 0; i < 40; i++) print "int vn_x" i ";" }' >> "$tmp/t/src/low/low.h"
expect "a file too long fails" 1 'too long: src/low/low.h (41 lines, at most 30)' --max-lines 30 "$tmp/t"
expect "a file under the limit passes" 0 'none over 50 lines' --max-lines 50 "$tmp/t"
expect "a limit that is no number is a usage error" 2 'takes a number' --max-lines many "$tmp/t"

tree
printf '#include "high/high.h"\n' > "$tmp/t/src/high/high_main.c"
printf '| 3 | main | `src/high/high_main.c` | the longest pattern wins |\n' >> "$tmp/t/docs/layers.md"
printf '#include "high_main.c"\n' >> "$tmp/t/src/high/high.c"
expect "the longest pattern places a file" 1 'upward include: src/high/high.c (high) includes src/high/high_main.c (main)' "$tmp/t"

expect "no tree is a usage error" 2 'usage'
expect "a missing table is a usage error" 2 'cannot read the layer table' "$tmp/nothing"

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
