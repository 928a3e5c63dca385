#!/bin/sh
# scripts/count-wording on a fake tree: it counts a comparison with a
# phrase and no other, and fails over the most allowed.
set -eu
script=$1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/tests/unit" "$t/tests/cli"
cat >"$t/tests/unit/test_a.c" <<'C'
assert_non_null(strstr(out, "could not open"));   /* a phrase: counted */
assert_non_null(strstr(out, "high_variance"));    /* an id: not */
assert_string_equal(name, "sum/n=64");            /* a name: not */
assert_int_equal(strcmp(a, "INST_RETIRED.ANY"), 0); /* an event: not */
C
cat >"$t/tests/cli/test_b.py" <<'PY'
assert "no such file" in p.stderr
assert "max_time" in ids
x = "two words"
# assert "a comment" in out
assert re.search(r"cannot read: \w+", out)
PY
out=$(python3 "$script" "$t")
[ "$out" = "checks of wording: C 1, Python 2" ] || { echo "counted: $out"; exit 1; }
python3 "$script" "$t" --max-c 1 --max-py 2 >/dev/null
if python3 "$script" "$t" --max-c 0 --max-py 2 >/dev/null 2>&1; then
    echo "passed over the most allowed"; exit 1
fi
list=$(python3 "$script" "$t" --list | head -3)
case $list in
*test_a.c:1*test_b.py:1*test_b.py:5*) ;;
*) echo "listed: $list"; exit 1 ;;
esac
echo "count-wording: counts and limits as expected"
