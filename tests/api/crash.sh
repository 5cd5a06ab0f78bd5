#!/bin/sh
# Runs test_crash under oshrun in an empty directory: exit status STATUS, Shoal's
# message (when MESSAGE is not empty) and no backtrace files (*.btr) left behind.
# usage: crash.sh OSHRUN PROG NPES STATUS MESSAGE MODE [noinit]
set -u
oshrun="$1"; prog="$2"; n="$3"; want="$4"; msg="$5"; shift 5
dir=$(mktemp -d /tmp/shoal-crash.XXXXXX) || exit 1
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
"$oshrun" -n "$n" --timeout 30 "$prog" "$@" >out 2>&1
status=$?
cat out
fail=0
[ "$status" -eq "$want" ] || { echo "FAIL: exit status $status, expected $want"; fail=1; }
if [ -n "$msg" ] && ! grep -Eq "$msg" out; then
    echo "FAIL: no line matches /$msg/"; fail=1
fi
if ls | grep -q '\.btr$'; then
    echo "FAIL: backtrace files left in the working directory: $(ls | grep '\.btr$')"; fail=1
fi
[ $fail -eq 0 ] && echo "OK: exit $status"
exit $fail
