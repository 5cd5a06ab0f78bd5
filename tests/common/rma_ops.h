/* What the sized and the typed RMA tests (test_rma_sized.c, test_rma_typed.c) share:
 * the transfer shapes (LEN elements, destination regions of RSZ, the strides of
 * iput/iget and the block shapes of ibput/ibget), the signatures of the thin wrappers
 * each generates per size or type, the default and ctx_ forms of a call, the heap and
 * static kinds of memory, and phase 2's puts to every PE. */
#ifndef SHOAL_TEST_RMA_OPS_H
#define SHOAL_TEST_RMA_OPS_H

#include <shmem.h>
#include <stddef.h>

#include "ring.h"

#define LEN 16        /* elements per transfer */
#define RSZ (3 * LEN) /* one destination region: room for stride 3 */

/* Strides for iput/iget, in elements, on the target and on the source side. */
static const int strides[3] = { 1, 2, 3 };
/* Block shapes for ibput/ibget (1.6): bsize > 1, block strides in elements. */
struct blk {
    int dst, sst, bsize, nblocks;
};
#define NBLK 2
static const struct blk blocks[NBLK] = { { 5, 4, 3, 4 }, { 3, 7, 2, 5 } };

/* One size's or type's routines, c selecting the ctx_ form on SHMEM_CTX_DEFAULT:
 * contiguous (put, get and their _nbi), strided (iput, iget), blocked (ibput, ibget). */
typedef void rma_contig_fn(int c, void *d, const void *s, size_t n, int pe);
typedef void rma_strided_fn(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                            size_t n, int pe);
typedef void rma_blocked_fn(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,
                            size_t b, size_t nb, int pe);

/* shmem_ctx_NAME(SHMEM_CTX_DEFAULT, ...) when c, else shmem_NAME(...). */
#define CTXCALL(c, name, ...)                                                                \
    do {                                                                                     \
        if (c)                                                                               \
            shmem_ctx_##name(SHMEM_CTX_DEFAULT, __VA_ARGS__);                                \
        else                                                                                 \
            shmem_##name(__VA_ARGS__);                                                       \
    } while (0)

enum { HEAP, STATIC };
static const char *const kind_name[] = { "heap", "static" };
static const char *const ctx_name[] = { "", "ctx_" };

static inline void quiet(int c)
{
    if (c)
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    else
        shmem_quiet();
}

/* Phase 2's puts: kk elements of esize bytes from src into slot me of dst on every
 * PE, the targets staggered, alternating put and put_nbi and the two forms of each;
 * then quiet. */
static inline void put_to_all(rma_contig_fn *put, rma_contig_fn *put_nbi, void *dst,
                              const void *src, size_t esize, int kk)
{
    char *slot = (char *)dst + (size_t)me * (size_t)kk * esize;
    for (int q = 0; q < npes; q++) {
        int pe = (me + q) % npes;
        if (q % 2)
            put(q % 4 == 1, slot, src, (size_t)kk, pe);
        else
            put_nbi(q % 4 == 2, slot, src, (size_t)kk, pe);
    }
    shmem_quiet();
}

#endif
