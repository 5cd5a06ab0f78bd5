#!/usr/bin/env bash
# fence_trace.sh OSHRUN PROGRAM NPES: runs `PROGRAM trace` (test_ofi_fence.c) with
# SHOAL_LOG=ofi:trace over the network, where quiet reads puts back, and checks what
# PE 0 settled between its "fence check: begin" and "end" lines: after 64 KiB to
# every other PE and a fence, a put to PE 1 settles PE 1 alone, a second put to it
# nothing, and after another fence a put to PE 2 settles PE 2 alone. A fence that
# waited for everything would settle all of them at once ("settling puts to N PEs").
set -u
oshrun=$1 prog=$2 n=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
SHOAL_LOG=ofi:trace "$oshrun" -n "$n" --timeout 60 "$prog" trace >"$out" 2>&1
status=$?
if [ "$status" -ne 0 ]; then
    cat "$out"
    echo "FAIL: the job exited with $status" >&2
    exit 1
fi
got=$(sed -n '/^fence check: begin$/,/^fence check: end$/p' "$out" |
      grep '^shoal: PE 0: \[ofi\] settling' | sed 's/^shoal: PE 0: \[ofi\] //')
want="settling puts to PE 1"
[ "$n" -gt 2 ] && want=$(printf '%s\n%s' "$want" "settling puts to PE 2")
if ! grep -q '^fence check: end$' "$out" || [ "$got" != "$want" ]; then
    cat "$out"
    printf 'FAIL: PE 0 settled, between the fences and flags:\n%s\nexpected:\n%s\n' \
        "${got:-(nothing)}" "$want" >&2
    exit 1
fi
echo "OK: a put after a fence settled its own target only ($n PEs)"
