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
# The bucket sort runs its device steps as GPU kernels when they were built (nvcc or
# hipcc found at configure time) or BUCKET_SORT_KERNELS names a kernels file built
# elsewhere (bench/bucket_sort_cuda.fatbin of a build with nvcc), else on host threads.
# It runs every row, GA_DI (the exchange issued by a kernel through shmemx_device.h)
# included, then on CUDA GA_DI again with every PE reached through the proxy thread.
#
# Exit status: 0 when every device test passed and the bucket sort's check passed.
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
sort_file=${BUCKET_SORT_KERNELS:-}
case $sort_file in "" | /*) ;; *) sort_file=$PWD/$sort_file ;; esac

{
    date -u
    uname -a
    nvidia-smi 2>&1 || rocm-smi 2>&1 || echo "no GPU tool found"
    cc --version | head -1
    cmake --version | head -1
} >"$out/env.log" 2>&1

# nvcc where the CUDA toolkit puts it, or PyPI's wheels (pip install
# nvidia-cuda-nvcc-cu12), when it is not on PATH: the bucket sort's kernels and the
# device API's CUDA test (tests/device/cuda).
if [ "$dev" = cuda ] && ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ]; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
        export CUDACXX=/usr/local/cuda/bin/nvcc
    elif site=$(python3 -c 'import nvidia, os; print(list(nvidia.__path__)[0])' 2>/dev/null); then
        wheel_nvcc=$(ls "$site"/*/bin/nvcc 2>/dev/null | sort | tail -1)
        [ -n "$wheel_nvcc" ] && export CUDACXX=$wheel_nvcc
    fi
fi

echo "== configure and build ($dev)"
if ! { cmake -S . -B "$build" -G Ninja -DSHOAL_WERROR=ON -DSHOAL_OFI=OFF -DSHOAL_PMIX=OFF \
        -DSHOAL_TEST_DEVICE="$dev" && cmake --build "$build" -j "$jobs"; } >"$out/build.log" 2>&1; then
    tail -40 "$out/build.log"
    exit 1
fi
tail -3 "$out/build.log"

cd "$build" || exit 1
echo "== device tests on $dev"
# Every device test at 1, 2, 4 and 8 PEs, the stream-ordered operations
# (device.stream) and the routines that must not wait for the program's kernels
# (device.overlap) among them. Tests of the network transports are not built here
# (no libfabric, PMIx or MPI): they are left out, not failed.
# The nvcc compile check is left out: it takes minutes of the device time, and the
# build above compiled the kernels already where nvcc is present.
ctest -R '^device\.' -E '^device\.nvcc_compile$' -j "$((jobs > 4 ? 4 : jobs))" --timeout 300 \
    --output-on-failure >"$out/tests.log" 2>&1
status=$?
grep -E "tests passed|Failed|Timeout|\*\*\*" "$out/tests.log" | tail -20
grep -h "device put while a kernel held" "$out/tests.log" | head -4

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
# Two PEs on one GPU run their kernels at the same time only under MPS, which the
# kernel-to-kernel round trip needs: started here when the machine has it.
if [ "$dev" = cuda ] && [ -x tests/device/devinit_cuda ]; then
    echo "== device-initiated communication (CUDA kernels)"
    mps=off
    if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
        export CUDA_MPS_PIPE_DIRECTORY=${TMPDIR:-/tmp}/shoal-mps-pipe
        export CUDA_MPS_LOG_DIRECTORY=${TMPDIR:-/tmp}/shoal-mps-log
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        nvidia-cuda-mps-control -d >>"$out/devinit_cuda.log" 2>&1 && mps=on
    fi
    for proxy in 0 1; do
        SHOAL_DEVICE=cuda SHMEM_SYMMETRIC_SIZE_DEVICE=256M SHOAL_DEVICE_PROXY_ALL=$proxy \
            timeout 300 ./tools/oshrun/oshrun -n 2 --timeout 120 tests/device/devinit_cuda \
            >>"$out/devinit_cuda.log" 2>&1 || { status=1; echo "devinit_cuda (proxy $proxy): FAILED"; }
    done
    [ $mps = on ] && echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
    grep -E 'devinit_cuda|FAIL|shoal:' "$out/devinit_cuda.log" | head -20
    # The figures docs/gpu.md records, with what they were measured on.
    {
        echo "Device-initiated communication, $(date -u +%Y-%m-%d), commit" \
            "$(git -C "$OLDPWD" rev-parse --short HEAD 2>/dev/null || echo unknown)," \
            "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)," \
            "MPS $mps, 2 PEs on one GPU:"
        grep -E '^devinit_cuda: (direct|proxy):' "$out/devinit_cuda.log" | sed 's/^/    /'
    } >"$out/figures_devinit.txt"
    cat "$out/figures_devinit.txt"
fi

echo "== device benchmarks on $dev"
# The bucket sort's kernels: built here when nvcc (hipcc) was found, or a kernels file
# built elsewhere, named by BUCKET_SORT_KERNELS; else its device steps run on host threads.
case $dev in
cuda) kind=cuda file=bench/bucket_sort_cuda.fatbin ;;
rocm) kind=hip file=bench/bucket_sort_hip.hsaco ;;
*) kind=host file= ;;
esac
file=${sort_file:-$file}
if [ "$kind" = host ]; then
    sort_kernels=""
elif [ -r "$file" ]; then
    sort_kernels="-K $kind -k $file"
else
    sort_kernels=""
    echo "bucket sort: no $kind kernels ($file): its device steps run on host threads" \
        "(build where nvcc/hipcc is found, or set BUCKET_SORT_KERNELS)"
fi
export BENCH_IMPL=shoal-$dev
{
    SHOAL_DEVICE=$dev SHMEM_ENABLE_DEVICE_AWARENESS=1 ./tools/oshrun/oshrun -n 1 bench/dev_cache
    SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=64M SHMEM_SYMMETRIC_SIZE=64M \
        SHMEM_ENABLE_DEVICE_AWARENESS=1 ./tools/oshrun/oshrun -n 2 bench/dev_stream -m 16M -i 20
    SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=16M ./tools/oshrun/oshrun -n 2 bench/dev_put -m 4M
    SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=512M ./tools/oshrun/oshrun -n 2 bench/dev_coll -s 64K -m 16M -i 10
} >"$out/bench_$dev.log" 2>&1
# The summary: everything but the result lines and dev_put's numeric rows.
grep -v -E '^(RESULT|[0-9]+[[:space:]]+[0-9])' "$out/bench_$dev.log" | head -80
# shellcheck disable=SC2086
if ! SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=512M ./tools/oshrun/oshrun -n 4 \
    bench/bucket_sort -e 4M -a 1M -V all $sort_kernels >"$out/bench_bucket_sort_$dev.log" 2>&1; then
    echo "bucket sort: FAILED (bench_bucket_sort_$dev.log)"
    status=1
    grep -v '^RESULT' "$out/bench_bucket_sort_$dev.log" | tail -5
    # Still a table, with the device steps on host threads, when the kernels did not load.
    if [ -n "$sort_kernels" ]; then
        echo "bucket sort: again with host-thread kernels (bench_bucket_sort_host_$dev.log)"
        SHOAL_DEVICE=$dev SHMEM_SYMMETRIC_SIZE_DEVICE=512M ./tools/oshrun/oshrun -n 4 \
            bench/bucket_sort -e 4M -a 1M -V all >"$out/bench_bucket_sort_host_$dev.log" 2>&1
        grep -v '^RESULT' "$out/bench_bucket_sort_host_$dev.log"
    fi
else
    grep -v '^RESULT' "$out/bench_bucket_sort_$dev.log"
fi
# GA_DI's kernel again with every PE reached through the proxy thread
# (SHOAL_DEVICE_PROXY_ALL): its fetch-adds, puts and signals through the command ring.
if [ "$dev" = cuda ] && [ -n "$sort_kernels" ]; then
    # shellcheck disable=SC2086
    if ! BENCH_IMPL=shoal-$dev-proxy SHOAL_DEVICE=$dev SHOAL_DEVICE_PROXY_ALL=1 \
        SHMEM_SYMMETRIC_SIZE_DEVICE=512M ./tools/oshrun/oshrun -n 4 --timeout 300 \
        bench/bucket_sort -e 1M -a 1M -V GA_HI,GA_DI $sort_kernels \
        >"$out/bench_bucket_sort_di_proxy.log" 2>&1; then
        echo "bucket sort GA_DI through the proxy: FAILED (bench_bucket_sort_di_proxy.log)"
        status=1
        grep -v '^RESULT' "$out/bench_bucket_sort_di_proxy.log" | tail -5
    else
        echo "bucket sort, every PE through the proxy (SHOAL_DEVICE_PROXY_ALL=1):"
        grep -E '^(GA_|Test)' "$out/bench_bucket_sort_di_proxy.log"
    fi
fi
# The same runs on the emulated device of this machine, for comparison.
if [ "$dev" != emu ]; then
    BENCH_IMPL=shoal-emu SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=16M \
        ./tools/oshrun/oshrun -n 2 bench/dev_put -m 4M \
        >"$out/bench_emu.log" 2>&1
fi
# Kernel puts on emu (block and warp forms, commands in flight), directly and through
# the proxy: the emulated counterpart of devinit_cuda's figures.
for proxy in 0 1; do
    BENCH_IMPL=shoal-emu SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=64M \
        SHOAL_DEVICE_PROXY_ALL=$proxy ./tools/oshrun/oshrun -n 2 --timeout 120 \
        bench/dev_kernel -m 16M -i 5 >>"$out/bench_emu_kernel.log" 2>&1 || status=1
done
grep -v '^RESULT' "$out/bench_emu_kernel.log"
grep -h '^RESULT' "$out"/bench_*.log | sed 's/^RESULT,//' |
    awk 'BEGIN { print "bench,impl,npes,size,metric,value" } { print }' >"$out/results.csv"
echo "== logs in $out"
exit $status
