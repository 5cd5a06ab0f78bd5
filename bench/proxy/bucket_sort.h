/* The device steps of the bucket sort (bucket_sort.c): what the slides run as GPU
 * kernels, behind one table so that the same driver runs them
 *   - on an NVIDIA GPU (bucket_sort_gpu.c with the kernels of bucket_sort_cuda.cu,
 *     loaded at run time from a fatbin through the CUDA driver API),
 *   - on an AMD GPU (the same file with the HIP module API and bucket_sort_hip.hip),
 *   - on host threads (bucket_sort_host.c): through Shoal's device layer on whatever
 *     device it selected (on `emu`, whose memory host code cannot touch), or on plain
 *     host memory where there is no device.
 *
 * An element is eb bytes; its first word (4 or 8 bytes) is the key, and the key's
 * destination PE is bs_dest(): npes equal key ranges. Work is queued
 * on a stream (0 .. BS_STREAMS - 1) and runs in the order queued; sync waits for it.
 * Every routine returns 0, or -1 after printing what failed, naming the PE. */
#ifndef BUCKET_SORT_H
#define BUCKET_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define BS_STREAMS 2
/* The GPU kernels keep one counter per destination in a block's shared memory. */
#define BS_MAX_PES 4096

/* The key of element e: its first word. */
static inline uint64_t bs_key(const unsigned char *e, int word)
{
    if (word == 4) {
        uint32_t v;
        memcpy(&v, e, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, e, 8);
    return v;
}

/* Destination PE of a key: keys are split into npes equal ranges. */
static inline int bs_dest(uint64_t key, int word, int npes)
{
    if (word == 4)
        return (int)((key * (uint64_t)npes) >> 32);
    return (int)(((unsigned __int128)key * (unsigned)npes) >> 64);
}

struct bs_geom {
    int me, npes;
    int word;  /* key bytes: 4 or 8 */
    int eb;    /* element bytes, a multiple of word */
    int local; /* this PE's index among the PEs of its node: picks the device */
};

/* GA_DI's exchange: every object is a symmetric object of the device heap. */
struct bs_exch {
    const void *buck; /* the buckets of the bucketing queued before on the stream */
    void *recv;       /* the receive table: cap elements */
    size_t cap;
    size_t chunk;      /* elements per append at most */
    long *fill;        /* elements reserved in recv (zero before) */
    uint64_t *arrived; /* elements landed in recv (zero before) */
    uint64_t *senders; /* PEs that have reserved all their room in recv (zero before) */
};

struct bs_kernels {
    const char *name;
    /* What runs the steps, for the header: "CUDA on NVIDIA H200 (device 0)", ... */
    const char *(*describe)(void);
    /* Readies the device; file: where the GPU kernels are (NULL: the default). */
    int (*init)(const struct bs_geom *g, const char *file);
    void (*fini)(void);
    void *(*alloc)(size_t bytes); /* device memory of this PE only; NULL when short */
    void (*free)(void *p);
    /* Blocking copies, safe from several threads at once. */
    int (*h2d)(void *dst, const void *src, size_t bytes);
    int (*d2h)(void *dst, const void *src, size_t bytes);
    /* Queues the bucketing of table[0, n) by destination into out: bucket d holds the
     * counts[d] elements at out[counts[0] + ... + counts[d - 1]], in any order within
     * the bucket. counts (host memory, npes entries) is filled by the next sync of the
     * stream; one bucketing per stream may wait for its sync. */
    int (*bucket)(int stream, const void *table, size_t n, void *out, uint64_t *counts);
    /* Queues the sort of buf[0, n) by key, in place. */
    int (*sort)(int stream, void *buf, size_t n);
    /* Queues the exchange of the buckets of the bucketing queued before it on the stream,
     * as a kernel that communicates itself through Shoal's device API (shmemx_device.h),
     * reading the counts where the device holds them. To every PE d, chunk by chunk: a
     * fetch-add on d's fill reserves room, a put lands the chunk, then an add of its
     * elements to d's arrived signals it (a chunk without room: the signal alone); then
     * an add of 1 to d's senders says this PE has reserved all it will. The kernel ends,
     * after a quiet, once senders is npes here and arrived has reached fill. */
    int (*exchange)(int stream, const struct bs_exch *x);
    /* Why exchange cannot run here (HIP, another OpenSHMEM, host threads on a device
     * that runs its own kernels), or NULL when it can. */
    const char *(*no_exchange)(void);
    int (*sync)(int stream);
};

extern const struct bs_kernels bs_host_kernels, bs_cuda_kernels, bs_hip_kernels;

#endif
