#!/bin/sh
# One decision for everything that measures: no file but the decision's own
# (src/engine/decide.c, whose vn__stop_of() turns a verdict into a result's
# reason to stop) may set a result's stop to one of the decision's reasons
# (precision, the budget, the most samples or processes). A second stop rule
# anywhere would show here as such an assignment.
#
#   tests/layers/one_decision.sh ROOT
#
# Prints each offending line and exits 1, or exits 0. The one other place
# allowed is vernier trace's view, whose run ends at the duration asked for:
# it has no samples to decide on while it traces.
set -eu
root=${1:?usage: one_decision.sh ROOT}
found=$(grep -rnE '(=|return)[^=;]*VN_STOP_(PRECISION|MAX_TIME|MAX_SAMPLES|MAX_PROCESSES|PROCESSES_VARY)' \
            "$root/src" "$root/cli" --include='*.c' --include='*.h' |
        grep -v '^[^:]*src/engine/decide\.c:' |
        grep -v '^[^:]*src/trace/trace_view\.c:' |
        grep -vE '(==|!=) *VN_STOP_' |
        grep -vE 'count\[VN_STOP_' || true)
if [ -n "$found" ]; then
    echo "one_decision: a reason to stop set outside src/engine/decide.c:"
    echo "$found"
    exit 1
fi
echo "one_decision: every reason to stop comes from the decision"
