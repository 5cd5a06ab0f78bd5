#!/bin/sh
# Builds the libFuzzer targets in fuzz/ with clang (ASan+UBSan) in build-fuzz and
# runs each for a while, starting from the seed corpus in fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS_PER_TARGET]   (default 20)
# New inputs that reach new code go to build-fuzz/corpus/NAME; an input that
# crashes a target is saved as build-fuzz/artifacts/NAME-crash-*. To keep it as
# a regression test, copy it into fuzz/corpus/NAME (fuzz.replay.NAME replays it).
set -e
cd "$(dirname "$0")/.."
secs=${1:-20}
dir=build-fuzz
targets="env oshrun_args oshrun_service boot_reply pmi_reply specs devcmd"
CC=${CC:-clang}
cmake -S . -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$CC" -DSHOAL_FUZZ=ON -DSHOAL_BUILD_TESTS=OFF \
    -DSHOAL_WERROR=ON >/dev/null
# pmix_values exists only where PMIx is installed (libpmix-dev).
if cmake --build "$dir" --target help | grep -q '^fuzz_pmix_values:'; then
    targets="$targets pmix_values"
fi
for t in $targets; do
    cmake --build "$dir" --target "fuzz_$t"
done
mkdir -p "$dir/artifacts"
failed=""
for t in $targets; do
    mkdir -p "$dir/corpus/$t"
    echo "== fuzz_$t for $secs s"
    # close_fd_mask=3: the parsers' own messages would drown the fuzzer's; a crash
    # report still gets through.
    if ! "$dir/fuzz/fuzz_$t" -max_total_time="$secs" -close_fd_mask=3 -print_final_stats=1 \
            -artifact_prefix="$dir/artifacts/$t-" "$dir/corpus/$t" "fuzz/corpus/$t" 2>"$dir/fuzz_$t.log"; then
        tail -n 40 "$dir/fuzz_$t.log"
        failed="$failed $t"
    else
        grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$dir/fuzz_$t.log" || true
        grep -E 'DONE|cov:' "$dir/fuzz_$t.log" | tail -n 1
    fi
done
if [ -n "$failed" ]; then
    echo "fuzz.sh: crashes in:$failed; inputs in $dir/artifacts/ (replay one with $dir/fuzz/fuzz_NAME FILE)"
    exit 1
fi
echo "fuzz.sh: no crashes in $targets"
