/* The bucket sort's kernels for AMD GPUs: the CUDA source, which keeps to what HIP
 * shares, built as a HIP code object that bucket_sort_gpu.c loads with the HIP module
 * API (`bucket_sort -K hip`). CMake builds it when it finds hipcc:
 *   hipcc --genco --offload-arch=gfx942 bucket_sort_hip.hip -o bucket_sort_hip.hsaco */
#include <hip/hip_runtime.h>

#include "bucket_sort_cuda.cu"
