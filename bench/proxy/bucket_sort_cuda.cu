/* The bucket sort's kernels (bucket_sort.h): counting by destination, bucketing and
 * sorting, in the subset of CUDA C++ that HIP shares (bucket_sort_hip.hip builds this
 * file for AMD GPUs). Built into a fatbin (sm_90 and PTX) when CMake finds nvcc, and
 * loaded at run time by bucket_sort_gpu.c through the driver API, so neither libshoal
 * nor the benchmark links the CUDA runtime. Launched with blockDim.x == BS_THREADS.
 *
 * Bucketing follows the slides: atomics on a block's shared memory count its tile's
 * elements per destination and give each its slot, then one global atomic per
 * (block, destination) reserves the block's room in the bucket. Sorting is a bitonic
 * network over (key, index) pairs padded to a power of two, then a gather. */

typedef unsigned long long u64;

#define BS_THREADS 256
#define BS_ITEMS 8 /* elements per thread and tile in bs_scatter */

__device__ static inline u64 key_at(const unsigned char *e, int word)
{
    return word == 4 ? (u64) * (const unsigned int *)e : *(const u64 *)e;
}

/* bs_dest() of bucket_sort.h. */
__device__ static inline int dest_of(u64 key, int word, int npes)
{
    return word == 4 ? (int)((key * (u64)npes) >> 32) : (int)__umul64hi(key, (u64)npes);
}

/* Elements are whole 4-byte words, aligned to them. */
__device__ static inline void copy_element(unsigned char *d, const unsigned char *s, int eb)
{
    for (int k = 0; k < eb; k += 4)
        *(unsigned int *)(d + k) = *(const unsigned int *)(s + k);
}

/* counts[d] += elements of table[0, n) bound for d (counts zeroed before). Dynamic
 * shared memory: npes unsigned ints. */
extern "C" __global__ void bs_count(const unsigned char *table, u64 n, int eb, int word,
                                    int npes, u64 *counts)
{
    extern __shared__ unsigned int bs_count_shared[];
    unsigned int *cnt = bs_count_shared;
    for (int d = threadIdx.x; d < npes; d += blockDim.x)
        cnt[d] = 0;
    __syncthreads();
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (u64)gridDim.x * blockDim.x)
        atomicAdd(&cnt[dest_of(key_at(table + i * eb, word), word, npes)], 1u);
    __syncthreads();
    for (int d = threadIdx.x; d < npes; d += blockDim.x)
        if (cnt[d])
            atomicAdd(&counts[d], (u64)cnt[d]);
}

/* fill[d] = counts[0] + ... + counts[d - 1]: where each bucket starts. One thread. */
extern "C" __global__ void bs_starts(const u64 *counts, int npes, u64 *fill)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    u64 at = 0;
    for (int d = 0; d < npes; d++) {
        fill[d] = at;
        at += counts[d];
    }
}

/* Moves each element of table[0, n) into its bucket of out, advancing fill[d]. Dynamic
 * shared memory: npes u64 then npes unsigned ints. */
extern "C" __global__ void bs_scatter(const unsigned char *table, u64 n, int eb, int word,
                                      int npes, u64 *fill, unsigned char *out)
{
    extern __shared__ u64 bs_scatter_shared[];
    u64 *base = bs_scatter_shared;
    unsigned int *cnt = (unsigned int *)(bs_scatter_shared + npes);
    const u64 tile = (u64)blockDim.x * BS_ITEMS;
    /* t0 is the same in every thread of the block, so all reach each barrier. */
    for (u64 t0 = (u64)blockIdx.x * tile; t0 < n; t0 += (u64)gridDim.x * tile) {
        for (int d = threadIdx.x; d < npes; d += blockDim.x)
            cnt[d] = 0;
        __syncthreads();
        int dest[BS_ITEMS];
        unsigned int slot[BS_ITEMS];
        for (int k = 0; k < BS_ITEMS; k++) {
            u64 i = t0 + (u64)k * blockDim.x + threadIdx.x;
            dest[k] = 0;
            slot[k] = 0;
            if (i < n) {
                dest[k] = dest_of(key_at(table + i * eb, word), word, npes);
                slot[k] = atomicAdd(&cnt[dest[k]], 1u);
            }
        }
        __syncthreads();
        for (int d = threadIdx.x; d < npes; d += blockDim.x)
            base[d] = cnt[d] ? atomicAdd(&fill[d], (u64)cnt[d]) : 0;
        __syncthreads();
        for (int k = 0; k < BS_ITEMS; k++) {
            u64 i = t0 + (u64)k * blockDim.x + threadIdx.x;
            if (i < n)
                copy_element(out + (base[dest[k]] + slot[k]) * eb, table + i * eb, eb);
        }
        __syncthreads(); /* before the next tile clears the counters */
    }
}

/* The pairs to sort: (key, index) for i < n, then padding that sorts last. */
extern "C" __global__ void bs_keys(const unsigned char *buf, u64 n, int eb, int word, u64 p,
                                   u64 *keys, unsigned int *idx)
{
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p)
        return;
    if (i < n) {
        keys[i] = key_at(buf + i * eb, word);
        idx[i] = (unsigned int)i;
    } else {
        keys[i] = ~0ull;
        idx[i] = ~0u;
    }
}

/* One compare-exchange step (j, k) of the bitonic network over p (a power of two)
 * pairs, ordered by key, then index. */
extern "C" __global__ void bs_bitonic(u64 *keys, unsigned int *idx, u64 p, u64 j, u64 k)
{
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= p)
        return;
    u64 l = i ^ j;
    if (l <= i)
        return;
    u64 ki = keys[i], kl = keys[l];
    unsigned int ii = idx[i], il = idx[l];
    bool greater = ki > kl || (ki == kl && ii > il);
    bool up = (i & k) == 0; /* this run ascends */
    if (up == greater) {
        keys[i] = kl;
        keys[l] = ki;
        idx[i] = il;
        idx[l] = ii;
    }
}

/* dst[i] = src[idx[i]] for the n elements. */
extern "C" __global__ void bs_gather(const unsigned char *src, const unsigned int *idx, u64 n,
                                     int eb, unsigned char *dst)
{
    u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        copy_element(dst + i * eb, src + (u64)idx[i] * eb, eb);
}

#ifdef __CUDACC__
/* GA_DI: the exchange issued from the device through Shoal's device API (bucket_sort.h's
 * exchange), CUDA only (Shoal's rocm backend offers no device-initiated communication).
 * Not in the CPU stand-in of cuda_on_cpu.cpp either, which runs the kernels above. */
#include <shmemx_device.h>

/* Copies this PE's state (host memory the device reaches, from shmemx_device_state())
 * and its peer table into device memory for the routines of this module: what
 * shmemx_cuda_bind() does through the runtime API, done by a kernel so that the driver
 * API alone loads and readies the module. One block. */
extern "C" __global__ void bs_di_bind(const struct shmemx_dev_state *st, char **peer)
{
    for (int i = threadIdx.x; i < st->n_pes; i += blockDim.x)
        peer[i] = st->peer[i];
    if (threadIdx.x == 0) {
        shmemx_dev_st_ = *st;
        shmemx_dev_st_.peer = peer;
    }
}

/* The exchange: block b serves the destinations i = b, b + gridDim.x, ... in the
 * rotated order of the host's appends, its threads copying each chunk together
 * (loads and stores to same-node PEs, one proxied put otherwise); counts are the
 * bucketing's, where bs_count left them. Block 0 then waits for what is bound here. */
extern "C" __global__ void bs_di_exchange(const unsigned char *buck, const u64 *counts, int eb,
                                          u64 chunk, unsigned char *recv, u64 cap, long *fill,
                                          uint64_t *arrived, uint64_t *senders)
{
    __shared__ u64 start, off;
    int me = shmemx_dev_my_pe(), npes = shmemx_dev_n_pes();
    bool lead = threadIdx.x == 0;
    for (int i = blockIdx.x; i < npes; i += gridDim.x) {
        int d = (me + 1 + i) % npes;
        if (lead) {
            u64 at = 0;
            for (int e = 0; e < d; e++)
                at += counts[e];
            start = at;
        }
        __syncthreads();
        u64 n = counts[d];
        for (u64 k = 0; k < n; k += chunk) {
            u64 len = n - k < chunk ? n - k : chunk;
            if (lead)
                off = (u64)shmemx_dev_long_atomic_fetch_add(fill, (long)len, d);
            __syncthreads();
            if (off <= cap && len <= cap - off) /* the same in every thread */
                shmemx_dev_putmem_block(recv + off * eb, buck + (start + k) * eb, len * eb, d);
            if (lead) { /* no room: the signal alone */
                shmemx_dev_fence(); /* the chunk lands before its signal */
                shmemx_dev_uint64_atomic_add(arrived, len, d);
            }
            __syncthreads(); /* before off and start are rewritten */
        }
        if (lead)
            shmemx_dev_uint64_atomic_add(senders, 1, d);
    }
    if (lead)
        shmemx_dev_quiet();
    if (lead && blockIdx.x == 0) { /* every PE has reserved its room here, then it landed */
        shmemx_dev_uint64_wait_until(senders, SHMEM_CMP_GE, (uint64_t)npes);
        long f = shmemx_dev_long_atomic_fetch(fill, me);
        shmemx_dev_uint64_wait_until(arrived, SHMEM_CMP_GE, (uint64_t)f);
    }
}
#endif
