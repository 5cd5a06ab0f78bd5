/* The CUDA backend's device reduction (cuda.c: cuda_reduce): d[i] = d[i] op s[i] for n
 * elements, s this PE's device memory or a same-node peer's through its IPC mapping.
 * One kernel per element type, the operation an argument (enum shoal_dev_red_op's
 * numbers); the host launches only the pairs the specification has (bitwise
 * operations on integers, sum and product on complex types). Built with nvcc at
 * configure time where it is found, embedded in libshoal as a fatbin (SASS for
 * SHOAL_CUDA_ARCH and PTX for later GPUs) and loaded with cuModuleLoadData. */
#include <stddef.h>
#include <stdint.h>

enum { AND, OR, XOR, MAX, MIN, SUM, PROD };

template <typename T> __device__ T arith(T a, T b, int op)
{
    switch (op) {
    case SUM: return a + b;
    case PROD: return a * b;
    case MAX: return a > b ? a : b;
    case MIN: return a < b ? a : b;
    }
    return a;
}

template <typename T> __device__ T bits(T a, T b, int op)
{
    switch (op) {
    case AND: return a & b;
    case OR: return a | b;
    case XOR: return a ^ b;
    }
    return arith(a, b, op);
}

/* Complex numbers as C's _Complex lays them out: real part, then imaginary part, with
 * the alignment of one part (float2 and double2 would require twice that). */
struct cfloat {
    float x, y;
};
struct cdouble {
    double x, y;
};
template <typename C> __device__ C complex_op(C a, C b, int op)
{
    if (op == PROD)
        return C{ a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x };
    return C{ a.x + b.x, a.y + b.y };
}

#define GRID_STRIDE(T, EXPR)                                                                 \
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;                    \
         i += (size_t)gridDim.x * blockDim.x)                                                \
        d[i] = EXPR(d[i], s[i], op);

#define INT_KERNEL(T, tag)                                                                   \
    extern "C" __global__ void shoal_reduce_##tag(T *d, const T *s, size_t n, int op)        \
    {                                                                                        \
        GRID_STRIDE(T, bits)                                                                 \
    }
#define REAL_KERNEL(T, tag)                                                                  \
    extern "C" __global__ void shoal_reduce_##tag(T *d, const T *s, size_t n, int op)        \
    {                                                                                        \
        GRID_STRIDE(T, arith)                                                                \
    }
#define COMPLEX_KERNEL(T, tag)                                                               \
    extern "C" __global__ void shoal_reduce_##tag(T *d, const T *s, size_t n, int op)        \
    {                                                                                        \
        GRID_STRIDE(T, complex_op)                                                           \
    }

INT_KERNEL(int8_t, s1)
INT_KERNEL(int16_t, s2)
INT_KERNEL(int32_t, s4)
INT_KERNEL(int64_t, s8)
INT_KERNEL(uint8_t, u1)
INT_KERNEL(uint16_t, u2)
INT_KERNEL(uint32_t, u4)
INT_KERNEL(uint64_t, u8)
REAL_KERNEL(float, f4)
REAL_KERNEL(double, f8)
COMPLEX_KERNEL(cfloat, c8)
COMPLEX_KERNEL(cdouble, c16)
