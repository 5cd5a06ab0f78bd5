#!/bin/sh
# device.nvcc_compile: every CUDA source of the project through nvcc with warnings as
# errors, for sm_ARCH: the device API's every routine (nvcc_all.cu, in four parts side
# by side), the device-initiated test (devinit_cuda.cu), the bucket sort's kernels and
# the CUDA backend's reduction kernels. Compiles only; nothing runs on a GPU.
#   nvcc_compile.sh NVCC ARCH SOURCE_DIR OUT_DIR
# Exit status: 0 when all compiled cleanly, 1 when one did not, 77 (skipped) with no
# nvcc.
nvcc=$1 arch=$2 src=$3 out=$4
if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
    echo "skipped: CMake found no nvcc at configure time; to check the CUDA sources, set" \
        "CUDACXX to an nvcc (e.g. from pip install nvidia-cuda-nvcc) and reconfigure"
    exit 77
fi
mkdir -p "$out" || exit 1
"$nvcc" --version | tail -2
werror="--Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror"
gen="-gencode arch=compute_$arch,code=sm_$arch -gencode arch=compute_$arch,code=compute_$arch"
# name, then nvcc's arguments; each compile's log in $out/name.log.
compile() {
    name=$1
    shift
    # shellcheck disable=SC2086 # $werror and $gen are lists of options
    if "$nvcc" $werror -I"$src/include" "$@" >"$out/$name.log" 2>&1; then
        echo "$name: compiled"
    else
        cat "$out/$name.log"
        echo "FAIL: nvcc_compile: $name: nvcc reported errors or warnings (warnings are" \
            "errors here); fix the device code ($out/$name.log)"
        return 1
    fi
}
pids=
for part in 1 2 3 4; do
    compile "nvcc_all.part$part" -ptx -arch=compute_"$arch" -DPART=$part \
        -o "$out/nvcc_all.part$part.ptx" "$src/tests/device/cuda/nvcc_all.cu" &
    pids="$pids $!"
done
# shellcheck disable=SC2086
{
    compile devinit_cuda -c -O2 $gen -o "$out/devinit_cuda.o" \
        "$src/tests/device/cuda/devinit_cuda.cu" &
    pids="$pids $!"
    compile bucket_sort_cuda -fatbin -O3 $gen -o "$out/bucket_sort_cuda.fatbin" \
        "$src/bench/proxy/bucket_sort_cuda.cu" &
    pids="$pids $!"
    compile cuda_reduce -fatbin -O3 $gen -o "$out/cuda_reduce.fatbin" \
        "$src/src/device/cuda/reduce.cu" &
    pids="$pids $!"
}
status=0
for p in $pids; do
    wait "$p" || status=1
done
[ $status = 0 ] && echo "nvcc_compile: every CUDA source compiled for sm_$arch without a warning"
exit $status
