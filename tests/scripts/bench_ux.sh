#!/bin/sh
# scripts/bench.sh's feedback, checked without building or running a
# benchmark:
#  - a dry run plans the same runs and prints a progress line per run with how many
#    are left and an estimate of the time to go;
#  - the results folder defaults to ~/.cache (or $XDG_CACHE_HOME)/shoal-bench, outside
#    the source tree;
#  - with a tool missing from PATH it stops with a non-zero status naming the tool,
#    and runs no apt-get (a fake one on PATH records any call);
#  - --baseline and --small-ops plan the runs they document (plan lines checked);
#  - --programs runs every program it names, progress included, and refuses a name
#    it does not know.
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

# 4. --baseline: every Shoal run gets an IMPL@base twin from the other build, beside it,
#    the current build first in odd repetitions and second in even ones; Open MPI's
#    and the provider's runs get none.
mkdir -p "$tmp/basebuild/tools/oshrun"
printf '#!/bin/sh\nexit 1\n' > "$tmp/basebuild/tools/oshrun/oshrun"
chmod +x "$tmp/basebuild/tools/oshrun/oshrun"
out=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run \
      --programs amo --quick --reps 2 --targets heap --baseline "$tmp/basebuild" \
      --build "$tmp/build" --out "$tmp/b1" 2>&1)
rc=$?
[ $rc -eq 0 ] || fail "dry run with --baseline DIR exited $rc: $out"
expect="1:2:shoal:amo:-i 2000:heap
1:2:shoal@base:amo:-i 2000:heap
2:2:shoal@base:amo:-i 2000:heap
2:2:shoal:amo:-i 2000:heap"
[ "$(cat "$tmp/b1/raw/plan.txt" 2>/dev/null)" = "$expect" ] ||
    fail "--baseline plan: $(cat "$tmp/b1/raw/plan.txt" 2>/dev/null)"
echo "$out" | grep -q "^\[2/4\] rep 1/2, 2 PEs: shoal@base amo (heap); 2 left" ||
    fail "no progress line for the shoal@base run"

# 5. --small-ops with --baseline: its matrix (16 runs a repetition, 12 of them
#    Shoal's, so 28 with the twins, plus the kernel's wake-up probe: 29; the
#    as-launched pair three times), five repetitions unless --reps says otherwise.
env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run --small-ops \
    --baseline "$tmp/basebuild" --build "$tmp/build" --out "$tmp/b2" > "$tmp/b2.log" 2>&1 ||
    fail "dry run with --small-ops --baseline failed: $(tail -n 3 "$tmp/b2.log")"
plan="$tmp/b2/raw/plan.txt"
[ "$(wc -l < "$plan" 2>/dev/null)" -eq 145 ] || fail "--small-ops plan: not 5 x 29 runs"
grep -q '^\[145/145\] rep 5/5, 2 PEs: oshmem-launched coll_small; 0 left' "$tmp/b2.log" ||
    fail "--small-ops: the last run is not Open MPI's as-launched coll_small in rep 5"
[ "$(grep -c '^4:2:oshmem-launched:coll_small:' "$plan")" -eq 3 ] ||
    fail "--small-ops: not three as-launched Open MPI runs in a repetition"
for line in '1:2:provider:::' '2:2:wake:::' '3:2:shoal-ofi@base:ctx_cost:-i 32 -o private -T:-' \
            '2:2:shoal-launched@base:coll_small:-i 20000 -w 200:-' \
            '4:2:oshmem-launched:coll_small:-i 20000 -w 200:-' \
            '5:8:shoal-ofi@base:coll_small:-i 200 -w 10:-'; do
    grep -qxF "$line" "$plan" || fail "--small-ops plan lacks $line"
done
grep -q 'oshmem-launched@base\|provider@base' "$plan" && fail "a twin of a non-Shoal run"
# --small-ops runs a fixed set: the suite's selections are refused, not ignored.
err=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run --small-ops \
      --programs amo --build "$tmp/build" --out "$tmp/b5" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q 'fixed set' || fail "--small-ops --programs not refused: $err"

# 6. A baseline that is neither a build folder nor a revision: named, status 2.
err=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run \
      --programs amo --reps 1 --baseline no-such-rev-xyz --build "$tmp/build" \
      --out "$tmp/b3" 2>&1)
rc=$?
[ $rc -eq 2 ] || fail "a bad --baseline exited $rc"
echo "$err" | grep -q 'no-such-rev-xyz: neither a folder nor a git revision' ||
    fail "a bad --baseline is not named: $err"
# A git revision (when the sources are a git checkout): resolved, to be built in the
# cache outside the tree; a dry run builds nothing.
if git -C "$root" rev-parse --verify -q HEAD > /dev/null 2>&1; then
    sha=$(git -C "$root" rev-parse HEAD | cut -c1-12)
    out=$(env HOME="$tmp/home" XDG_CACHE_HOME="$tmp/xdg2" /bin/sh "$root/scripts/bench.sh" \
          --dry-run --programs amo --reps 1 --baseline HEAD --build "$tmp/build" \
          --out "$tmp/b4" 2>&1) || fail "--baseline HEAD dry run failed: $out"
    echo "$out" | grep -qF "built in $tmp/xdg2/shoal-bench/builds/$sha/build" ||
        fail "--baseline HEAD: no cache folder named: $out"
    [ -e "$tmp/xdg2/shoal-bench/builds" ] && fail "a dry run built the baseline"
fi

# 7. --programs: progress (outside the default suite) is planned, not dropped; an
# unknown name is refused with the choices, status 2.
env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run --ofi \
    --programs amo,progress --reps 1 --targets heap --build "$tmp/build" --out "$tmp/b7" \
    > /dev/null 2>&1 || fail "--programs amo,progress dry run failed"
for line in '1:2:shoal:amo:-i 20000:heap' '1:2:shoal-ofi:progress:-i 2000 -w 50:-'; do
    grep -qxF "$line" "$tmp/b7/raw/plan.txt" || fail "--programs amo,progress: plan lacks $line"
done
err=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --dry-run \
      --programs amo,progres --build "$tmp/build" --out "$tmp/b8" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q 'no program progres; choose from: .*progress' ||
    fail "--programs with an unknown name not refused: $err"
# 8. --busy runs a fixed set: the suite's selections but --pes and --reps are refused;
# busy_table.py puts each load's medians side by side.
err=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --busy \
      --programs coll --build "$tmp/build" --out "$tmp/b9" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q 'fixed set' || fail "--busy --programs not refused: $err"
mkdir -p "$tmp/b10"
printf 'bench,impl,npes,size,metric,value,min,max,reps\n%s\n%s\n%s\n%s\n' \
    'barrier,shoal-launched/job,2,0,lat_us,0.5,0.4,0.9,3' \
    'barrier,oshmem-launched/job,2,0,lat_us,1.5,1.2,2,3' \
    'sum_to_all,shoal-launched/job,4,8,avg_us,9.9,8.7,27,3' \
    'sum_to_all,shoal-launched/job,4,8,max_us,11,9.8,31,3' > "$tmp/b10/results.csv"
printf 'load,load1_start,load1_end\njob,2.1,2.5\n' > "$tmp/b10/loads.csv"
python3 "$root/bench/busy_table.py" "$tmp/b10" > /dev/null 2>&1 ||
    fail "busy_table.py failed on a small results folder"
grep -qxF '| barrier | 2 | 0.5 [0.4-0.9] | 1.5 [1.2-2] |' "$tmp/b10/busy.md" ||
    fail "busy.md lacks the barrier row: $(cat "$tmp/b10/busy.md")"
grep -qxF '| sum_to_all 8 B, PE average | 4 | 9.9 [8.7-27] | - |' "$tmp/b10/busy.md" ||
    fail "busy.md lacks coll_set's PE average row: $(cat "$tmp/b10/busy.md")"
# 9. --isx runs one program on its own: the other modes are refused; median.py
# --all-sizes tables its rows, whose size is the keys per PE.
err=$(env HOME="$tmp/home" XDG_CACHE_HOME= /bin/sh "$root/scripts/bench.sh" --isx \
      --busy --build "$tmp/build" --out "$tmp/b11" 2>&1)
[ $? -eq 2 ] && echo "$err" | grep -q 'on its own' || fail "--isx --busy not refused: $err"
mkdir -p "$tmp/b12"
printf 'rep,bench,impl,npes,size,metric,value\n%s\n%s\n%s\n' \
    '1,isx,shoal-core,2,4194304,exchange_ms,4' '2,isx,shoal-core,2,4194304,exchange_ms,6' \
    '3,isx,shoal-core,2,4194304,exchange_ms,5' > "$tmp/b12/runs.csv"
python3 "$root/bench/median.py" --all-sizes "$tmp/b12/runs.csv" "$tmp/b12/results.csv" \
    "$tmp/b12/ranges.md" || fail "median.py --all-sizes failed"
grep -qxF '| isx | 2 | 4194304 | exchange_ms | 5 [4, 6] |' "$tmp/b12/ranges.md" ||
    fail "ranges.md lacks the isx row: $(cat "$tmp/b12/ranges.md")"

[ $status -eq 0 ] && echo "bench.sh: progress, results folder, missing tools, --baseline, --small-ops, --programs and --isx as documented"
exit $status
