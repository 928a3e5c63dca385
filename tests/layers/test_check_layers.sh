#!/bin/sh
# scripts/check-layers on small fake trees: it passes a tree that keeps its
# layers, and fails, naming the edge, on an include cycle, a call cycle, an
# upward include, an upward call, a file without a layer and a stale
# allow-list entry. The calls come from objects compiled here ($CC).
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

# A tree: two layers, low (src/low*) and high (src/high*).
tree() {
    rm -rf "$tmp/t"; mkdir -p "$tmp/t/src" "$tmp/t/docs" "$tmp/t/obj/fake.dir/src"
    cat > "$tmp/t/docs/layers.md" <<'T'
| rank | layer | files | what |
|---|---|---|---|
| 1 | low | `src/low*` | the bottom |
| 2 | high | `src/high*` | the top |
T
    printf 'int vn_low(void);\n' > "$tmp/t/src/low.h"
    printf '#include "low.h"\nint vn_low(void) { return 1; }\n' > "$tmp/t/src/low.c"
    printf '#include "low.h"\nint vn_high(void);\n' > "$tmp/t/src/high.h"
    printf '#include "high.h"\nint vn_high(void) { return vn_low() + 1; }\n' > "$tmp/t/src/high.c"
}
objs() {
    for f in "$tmp"/t/src/*.c; do
        "$cc" -c -o "$tmp/t/obj/fake.dir/src/$(basename "$f").o" "$f" || exit 1
    done
}

tree; objs
expect "a tree that keeps its layers passes" 0 'no upward edge, no cycle' "$tmp/t" "$tmp/t/obj"

tree
printf '#include "low2.h"\n' >> "$tmp/t/src/low.h"
printf '#include "low.h"\n' > "$tmp/t/src/low2.h"
expect "an include cycle fails" 1 'include cycle: src/low.h -> src/low2.h -> src/low.h' "$tmp/t"

tree
printf '#include "high.h"\n' >> "$tmp/t/src/low.c"
expect "an upward include fails" 1 'upward include: src/low.c (low) includes src/high.h (high)' "$tmp/t"

tree
printf 'int vn_low2(void);\nint vn_low3(void) { return vn_low2(); }\n' >> "$tmp/t/src/low.c"
printf 'int vn_low3(void);\nint vn_low2(void) { return vn_low3(); }\n' > "$tmp/t/src/low2.c"
objs
expect "a call cycle fails" 1 'call cycle: src/low.c -> src/low2.c -> src/low.c' "$tmp/t" "$tmp/t/obj"

tree
printf 'int vn_high(void);\nint vn_up(void) { return vn_high(); }\n' > "$tmp/t/src/low_up.c"
objs
expect "an upward call fails" 1 'upward call: src/low_up.c (low) calls vn_high of src/high.c (high)' "$tmp/t" "$tmp/t/obj"
printf "# why it is allowed\nsrc/low_up.c -> src/high.c\n" > "$tmp/allow"
expect "an allowed upward call passes" 0 "no upward edge, no cycle" --allow "$tmp/allow" "$tmp/t" "$tmp/t/obj"
printf "src/low.c -> src/high.c\n" >> "$tmp/allow"
expect "a stale allow-list entry fails" 1 "line 3 (src/low.c -> src/high.c) matches no edge any more" --allow "$tmp/allow" "$tmp/t" "$tmp/t/obj"

tree
printf 'int x;\n' > "$tmp/t/src/middle.c"
expect "a file without a layer fails" 1 'no layer for src/middle.c' "$tmp/t"

tree
printf '#include "high.h"\n' > "$tmp/t/src/high_main.c"
printf '| 3 | main | `src/high_main.c` | the longest pattern wins |\n' >> "$tmp/t/docs/layers.md"
printf '#include "high_main.c"\n' >> "$tmp/t/src/high.c"
expect "the longest pattern places a file" 1 'upward include: src/high.c (high) includes src/high_main.c (main)' "$tmp/t"

expect "no tree is a usage error" 2 'usage' 
expect "a missing table is a usage error" 2 'cannot read the layer table' "$tmp/nothing"

[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
