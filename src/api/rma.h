/* Inline implementations of contiguous and strided RMA, shared by the typed, sized and
 * byte-count families (api/rma_*.c). */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "core/state.h"
#include "transport/dev_route.h"
#include "transport/route.h"
#include "transport/shm/shm.h"

/* nelems * esize bytes; a count so large that the product wraps ends the job. */
static inline size_t shoal_nbytes(const char *fn, size_t nelems, size_t esize)
{
    size_t bytes;
    if (SHOAL_UNLIKELY(__builtin_mul_overflow(nelems, esize, &bytes)))
        shoal_fatal(fn, "nelems %zu of %zu-byte elements overflows the address space", nelems,
                    esize);
    return bytes;
}

/* Contiguous transfers; nbi: the network may complete them at the next quiet. */
static inline void shoal_put_any(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t len, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    if (SHOAL_UNLIKELY(shoal.dev_paths)) {
        shoal_dev_rma(fn, ctx, dest, source, len, pe, nbi, 1);
        return;
    }
    int wpe;
    char *r = shoal_remote(fn, ctx, dest, len, pe, &wpe);
    if (SHOAL_LIKELY(r != NULL))
        shoal_shm_copy(r, source, len);
    else
        shoal_net_put(ctx, dest, source, len, wpe, nbi);
}

static inline void shoal_get_any(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t len, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    if (SHOAL_UNLIKELY(shoal.dev_paths)) {
        shoal_dev_rma(fn, ctx, dest, source, len, pe, nbi, 0);
        return;
    }
    int wpe;
    const char *r = shoal_remote(fn, ctx, source, len, pe, &wpe);
    if (SHOAL_LIKELY(r != NULL))
        shoal_shm_copy(dest, r, len);
    else
        shoal_net_get(ctx, dest, source, len, wpe, nbi);
}

static inline void shoal_put(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    shoal_put_any(fn, ctx, dest, source, len, pe, 0);
}

static inline void shoal_put_nbi(const char *fn, shmem_ctx_t ctx, void *dest,
                                 const void *source, size_t len, int pe)
{
    shoal_put_any(fn, ctx, dest, source, len, pe, 1);
}

static inline void shoal_get(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    shoal_get_any(fn, ctx, dest, source, len, pe, 0);
}

static inline void shoal_get_nbi(const char *fn, shmem_ctx_t ctx, void *dest,
                                 const void *source, size_t len, int pe)
{
    shoal_get_any(fn, ctx, dest, source, len, pe, 1);
}

/* Interleaved blocks: nblocks blocks of bsize elements of esize bytes; block k starts
 * k*dst elements into dest and k*sst into source. iput/iget are bsize == 1. */
/* Interleaved blocks: nblocks blocks of bsize elements of esize bytes; block k starts
 * k*dst elements into dest and k*sst into source. iput/iget are bsize == 1. One
 * helper serves both directions: put copies local source blocks to the remote dest,
 * get copies remote source blocks to the local dest. */
static inline void shoal_strided(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                                 ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                                 size_t esize, int pe, int is_put)
{
    if (SHOAL_UNLIKELY(nblocks == 0 || bsize == 0))
        return;
    if (SHOAL_UNLIKELY(shoal.dev_paths)) {
        shoal_dev_strided(fn, ctx, dest, source, dst, sst, bsize, nblocks, esize, pe, is_put);
        return;
    }
    const void *sym = is_put ? dest : source;
    ptrdiff_t sym_stride = is_put ? dst : sst;
    int wpe;
    char *r = shoal_remote(fn, ctx, sym, esize, pe, &wpe);
    size_t blen = bsize * esize;
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_check_range(fn, (const char *)sym + (ptrdiff_t)(nblocks - 1) * sym_stride *
                          (ptrdiff_t)esize, blen);
    char *d = r && is_put ? r : dest;
    const char *s = r && !is_put ? r : source;
    for (size_t k = 0; k < nblocks; k++) {
        char *dk = d + (ptrdiff_t)k * dst * (ptrdiff_t)esize;
        const char *sk = s + (ptrdiff_t)k * sst * (ptrdiff_t)esize;
        if (r)
            memcpy(dk, sk, blen);
        else if (is_put)
            shoal_net_put(ctx, dk, sk, blen, wpe, 1);
        else
            shoal_net_get(ctx, dk, sk, blen, wpe, 1);
    }
    /* Blocking routines: the network's blocks complete before returning. */
    if (!r)
        shoal.net->quiet(ctx);
}

static inline void shoal_iput(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                              size_t esize, int pe)
{
    shoal_strided(fn, ctx, dest, source, dst, sst, bsize, nblocks, esize, pe, 1);
}

static inline void shoal_iget(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                              ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks,
                              size_t esize, int pe)
{
    shoal_strided(fn, ctx, dest, source, dst, sst, bsize, nblocks, esize, pe, 0);
}

static inline enum shoal_amo_op shoal_sig_op(const char *fn, int sig_op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        return SHOAL_AMO_WRITE;
    if (sig_op == SHMEM_SIGNAL_ADD)
        return SHOAL_AMO_ADD;
    shoal_fatal(fn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
}

/* The signal update that follows a payload: the payload is visible before it. */
static inline void shoal_signal_update(const char *fn, shmem_ctx_t ctx, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe, size_t payload)
{
    enum shoal_amo_op op = shoal_sig_op(fn, sig_op);
    int wpe;
    uint64_t *r = (uint64_t *)shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe, &wpe);
    if (SHOAL_UNLIKELY(r == NULL || shoal_amo_via_net())) {
        shoal_net_amo(ctx, op, SHOAL_AMO_UINT64, sig_addr, &signal, NULL, NULL, wpe, 0);
        return;
    }
    shoal_shm_release_after(payload);
    if (op == SHOAL_AMO_WRITE)
        __atomic_store_n(r, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(r, signal, __ATOMIC_RELEASE);
}

static inline void shoal_put_signal_any(const char *fn, shmem_ctx_t ctx, void *dest,
                                        const void *source, size_t len, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(shoal.dev_paths)) {
        shoal_dev_put_payload(fn, ctx, dest, source, len, pe);
        shoal_signal_update(fn, ctx, sig_addr, signal, sig_op, pe, 0);
        return;
    }
    int wpe;
    char *r = shoal_remote(fn, ctx, dest, len ? len : 1, pe, &wpe);
    if (SHOAL_UNLIKELY(r == NULL)) {
        shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe, &wpe);
        shoal_net_put_signal(ctx, dest, source, len, sig_addr, signal, shoal_sig_op(fn, sig_op),
                             wpe, nbi);
        return;
    }
    if (len)
        shoal_shm_copy(r, source, len);
    shoal_signal_update(fn, ctx, sig_addr, signal, sig_op, pe, len);
}

static inline void shoal_put_signal(const char *fn, shmem_ctx_t ctx, void *dest,
                                    const void *source, size_t len, uint64_t *sig_addr,
                                    uint64_t signal, int sig_op, int pe)
{
    shoal_put_signal_any(fn, ctx, dest, source, len, sig_addr, signal, sig_op, pe, 0);
}

static inline void shoal_put_signal_nbi(const char *fn, shmem_ctx_t ctx, void *dest,
                                        const void *source, size_t len, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe)
{
    shoal_put_signal_any(fn, ctx, dest, source, len, sig_addr, signal, sig_op, pe, 1);
}

#endif
