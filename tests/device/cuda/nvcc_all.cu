/* Every routine of the device API (shmemx_device.h, shoal/device_coll.h) in a kernel,
 * for every type it comes in, so that nvcc compiles each one: the header's routines
 * are static inline, and a routine no kernel calls is never compiled, so its errors
 * and warnings would wait for the first program that uses it. Compiled, never run
 * (device.nvcc_compile, with -Werror), in four parts that nvcc compiles side by side
 * (-DPART=1..4; without PART, all of them). */
#include <shmemx_device.h>

#ifndef PART
#define PART 0
#endif

#if PART == 0 || PART == 1

#define RMA_(T, N)                                                                           \
    __global__ void rma_##N(T *d, const T *s, size_t n, uint64_t *sig, int pe)               \
    {                                                                                        \
        shmemx_dev_##N##_put(d, s, n, pe);                                                   \
        shmemx_dev_##N##_put_nbi(d, s, n, pe);                                               \
        shmemx_dev_##N##_get(d, s, n, pe);                                                   \
        shmemx_dev_##N##_get_nbi(d, s, n, pe);                                               \
        shmemx_dev_##N##_put_signal(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);                  \
        shmemx_dev_##N##_put_signal_nbi(d, s, n, sig, 1, SHMEM_SIGNAL_ADD, pe);              \
        shmemx_dev_##N##_put_warp(d, s, n, pe);                                              \
        shmemx_dev_##N##_put_nbi_warp(d, s, n, pe);                                          \
        shmemx_dev_##N##_get_warp(d, s, n, pe);                                              \
        shmemx_dev_##N##_get_nbi_warp(d, s, n, pe);                                          \
        shmemx_dev_##N##_put_signal_warp(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);             \
        shmemx_dev_##N##_put_signal_nbi_warp(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);         \
        shmemx_dev_##N##_put_block(d, s, n, pe);                                             \
        shmemx_dev_##N##_put_nbi_block(d, s, n, pe);                                         \
        shmemx_dev_##N##_get_block(d, s, n, pe);                                             \
        shmemx_dev_##N##_get_nbi_block(d, s, n, pe);                                         \
        shmemx_dev_##N##_put_signal_block(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);            \
        shmemx_dev_##N##_put_signal_nbi_block(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);        \
    }
SHMEMX_DEV_PG_TYPES_(RMA_) /* every RMA type but long double, which device code lacks */
#endif

#if PART == 0 || PART == 2

#define PG_(T, N)                                                                            \
    __global__ void pg_##N(T *d, const T *s, int pe)                                         \
    {                                                                                        \
        shmemx_dev_##N##_p(d, *s, pe);                                                       \
        *d = shmemx_dev_##N##_g(s, pe);                                                      \
    }
SHMEMX_DEV_PG_TYPES_(PG_)

#define AMO_STD_(T, N)                                                                       \
    __global__ void amo_std_##N(T *d, T *out, T v, int pe)                                   \
    {                                                                                        \
        out[0] = shmemx_dev_##N##_atomic_fetch_add(d, v, pe);                                \
        shmemx_dev_##N##_atomic_add(d, v, pe);                                               \
        out[1] = shmemx_dev_##N##_atomic_fetch_inc(d, pe);                                   \
        shmemx_dev_##N##_atomic_inc(d, pe);                                                  \
        out[2] = shmemx_dev_##N##_atomic_compare_swap(d, v, v, pe);                          \
        out[3] = shmemx_dev_##N##_wait_until(d, SHMEM_CMP_GE, v);                            \
    }
SHMEM_AMO_STD_TYPES(AMO_STD_)

#define AMO_EXT_(T, N)                                                                       \
    __global__ void amo_ext_##N(T *d, T *out, T v, int pe)                                   \
    {                                                                                        \
        out[0] = shmemx_dev_##N##_atomic_fetch(d, pe);                                       \
        shmemx_dev_##N##_atomic_set(d, v, pe);                                               \
        out[1] = shmemx_dev_##N##_atomic_swap(d, v, pe);                                     \
    }
SHMEM_AMO_EXT_TYPES(AMO_EXT_)

#define AMO_BIT_(T, N)                                                                       \
    __global__ void amo_bit_##N(T *d, T *out, T v, int pe)                                   \
    {                                                                                        \
        out[0] = shmemx_dev_##N##_atomic_fetch_and(d, v, pe);                                \
        shmemx_dev_##N##_atomic_and(d, v, pe);                                               \
        out[1] = shmemx_dev_##N##_atomic_fetch_or(d, v, pe);                                 \
        shmemx_dev_##N##_atomic_or(d, v, pe);                                                \
        out[2] = shmemx_dev_##N##_atomic_fetch_xor(d, v, pe);                                \
        shmemx_dev_##N##_atomic_xor(d, v, pe);                                               \
    }
SHMEM_AMO_BIT_TYPES(AMO_BIT_)
#endif

#if PART == 0 || PART == 3

#define RED_(T, N, OP)                                                                       \
    __global__ void red_##N##_##OP(shmem_team_t team, T *d, const T *s, size_t n)            \
    {                                                                                        \
        shmemx_dev_##N##_##OP##_reduce(team, d, s, n);                                       \
        shmemx_dev_##N##_##OP##_reduce_block(team, d, s, n);                                 \
    }
#define RED_BITWISE_(T, N) RED_(T, N, and) RED_(T, N, or) RED_(T, N, xor)
#define RED_MINMAX_(T, N) RED_(T, N, max) RED_(T, N, min)
#define RED_ARITH_(T, N) RED_(T, N, sum) RED_(T, N, prod)
SHMEMX_DEV_REDUCE_BITWISE_TYPES(RED_BITWISE_)
SHMEMX_DEV_REDUCE_MINMAX_TYPES(RED_MINMAX_)
SHMEMX_DEV_REDUCE_ARITH_TYPES(RED_ARITH_)
#endif

#if PART == 0 || PART == 4

__global__ void untyped(void *d, const void *s, size_t n, uint64_t *sig, int *out,
                        shmem_team_t team, int pe)
{
    out[0] = shmemx_dev_my_pe() + shmemx_dev_n_pes();
    out[1] = shmemx_dev_ptr(d, pe) != NULL;
    shmemx_dev_putmem(d, s, n, pe);
    shmemx_dev_putmem_nbi(d, s, n, pe);
    shmemx_dev_getmem(d, s, n, pe);
    shmemx_dev_getmem_nbi(d, s, n, pe);
    shmemx_dev_putmem_signal(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_putmem_signal_nbi(d, s, n, sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmemx_dev_putmem_warp(d, s, n, pe);
    shmemx_dev_putmem_nbi_warp(d, s, n, pe);
    shmemx_dev_getmem_warp(d, s, n, pe);
    shmemx_dev_getmem_nbi_warp(d, s, n, pe);
    shmemx_dev_putmem_signal_warp(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_putmem_signal_nbi_warp(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_putmem_block(d, s, n, pe);
    shmemx_dev_putmem_nbi_block(d, s, n, pe);
    shmemx_dev_getmem_block(d, s, n, pe);
    shmemx_dev_getmem_nbi_block(d, s, n, pe);
    shmemx_dev_putmem_signal_block(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_putmem_signal_nbi_block(d, s, n, sig, 1, SHMEM_SIGNAL_SET, pe);
    shmemx_dev_fence();
    shmemx_dev_quiet();
    out[2] = (int)shmemx_dev_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    out[3] = (int)shmemx_dev_signal_fetch(sig);
    shmemx_dev_team_barrier(team);
    shmemx_dev_team_barrier_block(team);
    shmemx_dev_barrier_all();
    shmemx_dev_barrier_all_block();
}
#endif
