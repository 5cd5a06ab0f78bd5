#!/usr/bin/env bash
# The GPU check of docs/gpu.md in one command: builds Shoal without libfabric and PMIx
# (a GPU box often has neither), runs the device tests (tests/device) at 1, 2, 4 and 8
# PEs on a real device backend, then the device benchmarks, and leaves every log in
# $OUT (default ./gpu-check-out).
#
#   scripts/gpu-check.sh [cuda|rocm|emu]      (default cuda)
#
# Exit status: that of the test run (0: every device test passed).
set -u
dev=${1:-cuda}
out=${OUT:-$PWD/gpu-check-out}
build=${GPU_CHECK_BUILD:-build-gpu-check}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out"

{
    date -u
    uname -a
    nvidia-smi 2>&1 || rocm-smi 2>&1 || echo "no GPU tool found"
    cc --version | head -1
    cmake --version | head -1
} >"$out/env.log" 2>&1

echo "== configure and build ($dev)"
if ! { cmake -S . -B "$build" -G Ninja -DSHOAL_WERROR=ON -DSHOAL_OFI=OFF -DSHOAL_PMIX=OFF \
        -DSHOAL_TEST_DEVICE="$dev" && cmake --build "$build" -j "$jobs"; } >"$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    exit 1
fi
tail -3 "$out/build.log"

cd "$build" || exit 1
echo "== device tests on $dev"
ctest -R '^device\.' -j "$((jobs > 4 ? 4 : jobs))" --output-on-failure >"$out/tests.log" 2>&1
status=$?
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/tests.log" | tail -20

echo "== device benchmarks on $dev"
export BENCH_IMPL=shoal-$dev
{
    SHOAL_DEVICE=$dev SHMEM_ENABLE_DEVICE_AWARENESS=1 ./tools/oshrun/oshrun -n 1 bench/dev_cache
    SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=16M ./tools/oshrun/oshrun -n 2 bench/dev_put -m 4M
    SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=512M ./tools/oshrun/oshrun -n 4 bench/bucket_sort \
        -e 4M -a 1M -V all
} >"$out/bench_$dev.log" 2>&1
grep -v '^RESULT' "$out/bench_$dev.log" | grep -v '^[0-9]' | head -40
# The same runs on the emulated device of this machine, for comparison.
if [ "$dev" != emu ]; then
    BENCH_IMPL=shoal-emu SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=16M \
        ./tools/oshrun/oshrun -n 2 bench/dev_put -m 4M \
        >"$out/bench_emu.log" 2>&1
fi
grep -h '^RESULT' "$out"/bench_*.log | sed 's/^RESULT,//' |
    awk 'BEGIN { print "bench,impl,npes,size,metric,value" } { print }' >"$out/results.csv"
echo "== logs in $out"
exit $status
