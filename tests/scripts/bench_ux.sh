#!/bin/sh
# scripts/bench.sh's feedback (issue 14 item 8), checked without building or running a
# benchmark:
#  - a dry run plans the same runs and prints a progress line per run with how many
#    are left and an estimate of the time to go;
#  - the results folder defaults to ~/.cache (or $XDG_CACHE_HOME)/shoal-bench, outside
#    the source tree;
#  - with a tool missing from PATH it stops with a non-zero status naming the tool,
#    and runs no apt-get (a fake one on PATH records any call).
set -u
root="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

# 1. Progress, into the default folder under HOME.
mkdir -p "$tmp/home"
out=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run \
      --programs msg_rate,amo --quick --reps 2 --build "$tmp/build" 2>&1)
rc=$?
echo "$out" | sed 's/^/  | /'
[ $rc -eq 0 ] || fail "dry run exited $rc"
# 2 repetitions x 2 programs x 2 targets (heap, global) = 8 runs.
echo "$out" | grep -Eq '^\[1/8\] rep 1/2, 2 PEs: shoal msg_rate \(heap\); 7 left, [0-9]+s elapsed, about \?s to go$' ||
    fail "no first progress line with '7 left' and an estimate"
echo "$out" | grep -Eq '^\[8/8\] rep 2/2, 2 PEs: shoal amo \(global\); 0 left, [0-9]+s elapsed, about [0-9]+s to go$' ||
    fail "no last progress line with '0 left' and an estimate in seconds"
[ "$(echo "$out" | grep -c 'left, .* to go$')" -eq 8 ] || fail "not one progress line per run"
plan=$(ls "$tmp"/home/.cache/shoal-bench/*/raw/plan.txt 2>/dev/null | head -n 1)
[ -n "$plan" ] || fail "no results folder under \$HOME/.cache/shoal-bench"
[ -n "$plan" ] && [ "$(wc -l < "$plan")" -eq 8 ] || fail "the plan does not hold the 8 runs"
[ -e "$root/shoal-bench" ] && fail "a results folder appeared in the source tree"

# 2. XDG_CACHE_HOME wins over HOME.
env HOME="$tmp/home" XDG_CACHE_HOME="$tmp/xdg" /bin/sh "$root/scripts/bench.sh" --dry-run \
    --programs msg_rate --quick --reps 1 --build "$tmp/build" > /dev/null 2>&1 ||
    fail "dry run with XDG_CACHE_HOME failed"
ls "$tmp"/xdg/shoal-bench/*/raw/plan.txt > /dev/null 2>&1 ||
    fail "no results folder under \$XDG_CACHE_HOME/shoal-bench"

# 3. ninja missing (a real run, not a dry one): named, non-zero, no apt-get.
mkdir -p "$tmp/bin" "$tmp/home2"
for t in sh dirname mkdir date cut cat tr seq wc sed grep cmake python3 taskset id; do
    p=$(command -v "$t") && ln -s "$p" "$tmp/bin/$t"
done
for t in apt-get apt sudo; do
    printf '#!/bin/sh\necho "%s $*" >> "%s/apt.log"\n' "$t" "$tmp" > "$tmp/bin/$t"
    chmod +x "$tmp/bin/$t"
done
err=$(env PATH="$tmp/bin" HOME="$tmp/home2" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" \
      --programs msg_rate --quick --reps 1 --build "$tmp/build2" 2>&1 >/dev/null)
rc=$?
echo "$err" | sed 's/^/  | /'
[ $rc -ne 0 ] || fail "a run without ninja exited 0"
echo "$err" | grep -q 'missing:.*ninja' || fail "the message does not name ninja"
[ -e "$tmp/apt.log" ] && fail "apt-get or sudo was called: $(cat "$tmp/apt.log")"
[ -e "$tmp/build2/build.ninja" ] && fail "it went on to configure a build"

[ $status -eq 0 ] && echo "bench.sh: progress, results folder and missing tools as documented"
exit $status
