/* Inline implementations of contiguous and strided RMA, shared by the typed, sized and
 * byte-count families (api/rma_*.c). */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "core/state.h"
#include "transport/shm/shm.h"

static inline void shoal_put(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    shoal_shm_copy(shoal_remote(fn, ctx, dest, len, pe), source, len);
}

static inline void shoal_get(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    shoal_shm_copy(dest, shoal_remote(fn, ctx, source, len, pe), len);
}

/* Interleaved blocks: nblocks blocks of bsize elements of esize bytes; block k starts
 * k*dst elements into dest and k*sst into source. iput/iget are bsize == 1. */
static inline void shoal_iput(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                              size_t esize, int pe)
{
    if (SHOAL_UNLIKELY(nblocks == 0 || bsize == 0))
        return;
    char *r = shoal_remote(fn, ctx, dest, esize, pe);
    const char *s = source;
    size_t blen = bsize * esize;
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_check_range(fn, (const char *)dest + (ptrdiff_t)(nblocks - 1) * dst * (ptrdiff_t)esize,
                          blen);
    for (size_t k = 0; k < nblocks; k++)
        memcpy(r + (ptrdiff_t)k * dst * (ptrdiff_t)esize, s + (ptrdiff_t)k * sst * (ptrdiff_t)esize,
               blen);
}

static inline void shoal_iget(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                              size_t esize, int pe)
{
    if (SHOAL_UNLIKELY(nblocks == 0 || bsize == 0))
        return;
    const char *r = shoal_remote(fn, ctx, source, esize, pe);
    char *d = dest;
    size_t blen = bsize * esize;
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_check_range(fn, (const char *)source + (ptrdiff_t)(nblocks - 1) * sst * (ptrdiff_t)esize,
                          blen);
    for (size_t k = 0; k < nblocks; k++)
        memcpy(d + (ptrdiff_t)k * dst * (ptrdiff_t)esize, r + (ptrdiff_t)k * sst * (ptrdiff_t)esize,
               blen);
}

/* The signal update that follows a payload: the payload is visible before it. */
static inline void shoal_signal_update(const char *fn, shmem_ctx_t ctx, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe, size_t payload)
{
    uint64_t *r = (uint64_t *)shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe);
    shoal_shm_release_after(payload);
    if (sig_op == SHMEM_SIGNAL_SET)
        __atomic_store_n(r, signal, __ATOMIC_RELEASE);
    else if (sig_op == SHMEM_SIGNAL_ADD)
        __atomic_fetch_add(r, signal, __ATOMIC_RELEASE);
    else
        shoal_fatal(fn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
}

static inline void shoal_put_signal(const char *fn, shmem_ctx_t ctx, void *dest,
                                    const void *source, size_t len, uint64_t *sig_addr,
                                    uint64_t signal, int sig_op, int pe)
{
    shoal_put(fn, ctx, dest, source, len, pe);
    shoal_signal_update(fn, ctx, sig_addr, signal, sig_op, pe, len);
}

#endif
