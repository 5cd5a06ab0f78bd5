#!/usr/bin/env bash
# The GPU check of docs/gpu.md in one command: builds Shoal without libfabric and PMIx
# (a GPU box often has neither), runs the device tests (tests/device) at 1, 2, 4 and 8
# PEs on a real device backend, then the device benchmarks, and leaves every log in
# $OUT (default ./gpu-check-out). Where libfabric has a provider that offers FI_HMEM
# with RMA and atomics, it also builds with libfabric and runs the device tests with
# every PE its own node over that provider: device heaps across nodes through FI_HMEM.
#
#   scripts/gpu-check.sh [cuda|rocm|emu]      (default cuda)
#
# Exit status: that of the test run (0: every device test passed).
set -u
dev=${1:-cuda}
out=${OUT:-$PWD/gpu-check-out}
build=${GPU_CHECK_BUILD:-build-gpu-check}
jobs=$(nproc 2>/dev/null || echo 2)
case $build in
/*) build_ofi=$build-ofi ;;
*) build_ofi=$PWD/$build-ofi ;;
esac
mkdir -p "$out"

{
    date -u
    uname -a
    nvidia-smi 2>&1 || rocm-smi 2>&1 || echo "no GPU tool found"
    cc --version | head -1
    cmake --version | head -1
} >"$out/env.log" 2>&1

# nvcc for the CUDA kernels of the device API (tests/device/cuda): on PATH, or from
# PyPI's wheels (pip install nvidia-cuda-nvcc-cu12), or SHOAL_NVCC.
nvcc=${SHOAL_NVCC:-$(command -v nvcc || true)}
if [ -z "$nvcc" ] && site=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__file__) if nvidia.__file__ else list(nvidia.__path__)[0])' 2>/dev/null); then
    nvcc=$(ls "$site"/*/bin/nvcc 2>/dev/null | sort | tail -1)
fi
echo "== nvcc: ${nvcc:-none (the CUDA kernels of the device API are not built)}"

echo "== configure and build ($dev)"
if ! { cmake -S . -B "$build" -G Ninja -DSHOAL_WERROR=ON -DSHOAL_OFI=OFF -DSHOAL_PMIX=OFF \
        -DSHOAL_TEST_DEVICE="$dev" ${nvcc:+-DSHOAL_NVCC="$nvcc"} &&
        cmake --build "$build" -j "$jobs"; } >"$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    exit 1
fi
tail -3 "$out/build.log"

cd "$build" || exit 1
echo "== device tests on $dev"
ctest -R '^device\.' -j "$((jobs > 4 ? 4 : jobs))" --output-on-failure >"$out/tests.log" 2>&1
status=$?
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/tests.log" | tail -20

# Device heaps across nodes (FI_HMEM registration of GPU memory), where a provider can.
prov=$(fi_info -c 'FI_HMEM|FI_RMA|FI_ATOMIC' 2>/dev/null | sed -n 's/^provider: //p' | head -1)
if [ -z "$prov" ]; then
    echo "== FI_HMEM across nodes: skipped (no libfabric provider with FI_HMEM, RMA and atomics)"
elif ! { cmake -S "$OLDPWD" -B "$build_ofi" -G Ninja -DSHOAL_WERROR=ON -DSHOAL_OFI=ON \
        -DSHOAL_PMIX=OFF -DSHOAL_TEST_DEVICE="$dev" &&
        cmake --build "$build_ofi" -j "$jobs"; } >"$out/build_ofi.log" 2>&1; then
    echo "== FI_HMEM across nodes: the build with libfabric failed (build_ofi.log)"
    status=1
else
    echo "== device tests on $dev, every PE its own node over $prov (FI_HMEM)"
    # emu reaches the network through its alias unless forced onto the FI_HMEM path.
    (cd "$build_ofi" && SHOAL_NODE_MAP=pe SHMEM_OFI_PROVIDER=$prov SHOAL_DEVICE_FORCE_HMEM=1 \
        ctest -L '^pe$' -L device -LE errors -j 2 --output-on-failure) >"$out/tests_hmem.log" 2>&1 ||
        status=1
    grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/tests_hmem.log" | tail -20
fi

# Device-initiated communication: kernels that put, signal and wait (figures printed).
if [ "$dev" = cuda ] && [ -x tests/device/devinit_cuda ]; then
    echo "== device-initiated communication (CUDA kernels)"
    for proxy in 0 1; do
        SHOAL_DEVICE=cuda SHMEM_SYMMETRIC_SIZE_DEVICE=256M SHOAL_DEVICE_PROXY_ALL=$proxy \
            ./tools/oshrun/oshrun -n 2 --timeout 120 tests/device/devinit_cuda
    done 2>&1 | tee "$out/devinit_cuda.log" | grep -E 'devinit_cuda|FAIL|shoal:' | head -20
fi

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
