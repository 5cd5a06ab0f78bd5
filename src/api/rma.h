/* Inline implementations of contiguous and strided RMA, shared by the typed, sized and
 * byte-count families (api/rma_*.c). */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "api/api.h"

/* nelems * esize bytes; a count so large that the product wraps ends the job. */
static inline size_t shoal_nbytes(const char *fn, size_t nelems, size_t esize)
{
    size_t bytes;
    if (SHOAL_UNLIKELY(__builtin_mul_overflow(nelems, esize, &bytes)))
        shoal_fatal(fn, "nelems %zu of %zu-byte elements overflows the address space", nelems,
                    esize);
    return bytes;
}

/* Every contiguous transfer but a same-node one on unwrapped paths: the SHMEM_DEBUG
 * local-buffer check and the dispatchers (api/rma_route.c). The reference the inline
 * part resolved comes field by field (ptr, tp, seg, pe, off of struct shoal_rref):
 * passed as a struct, it would be stored to the stack on the fast path too. */
void shoal_put_route(const char *fn, shmem_ctx_t ctx, char *ptr,
                     const struct shoal_transport_ops *tp, int seg, int pe, uint64_t off,
                     const void *source, size_t len, int nbi);
void shoal_get_route(const char *fn, shmem_ctx_t ctx, void *dest, char *ptr,
                     const struct shoal_transport_ops *tp, int seg, int pe, uint64_t off,
                     size_t len, int nbi);

/* Contiguous transfers; nbi: the network may complete them at the next quiet. The
 * same-node copy on unwrapped paths is all that stays inline, behind one test of
 * shoal.wrapped (on the cache line the resolution reads anyway); a get leaves it also
 * where a wrapper took gets alone (the MPI transport's local polling, transport.h).
 * Forced inline down from the API routines (GCC's unit-growth limit left them out of
 * line in the big rma_*.c files): shmem_long_p is then one load and one store, and
 * putmem tail-calls memcpy. */
static SHOAL_INLINE void shoal_put_any(const char *fn, shmem_ctx_t ctx, void *dest,
                                       const void *source, size_t len, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    struct shoal_rref r;
    shoal_remote(fn, ctx, dest, len, pe, &r);
    if (SHOAL_UNLIKELY(r.ptr == NULL) || SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal_put_route(fn, ctx, r.ptr, r.tp, r.seg, r.pe, r.off, source, len, nbi);
    else
        shoal_shm_copy(r.ptr, source, len);
}

static SHOAL_INLINE void shoal_get_any(const char *fn, shmem_ctx_t ctx, void *dest,
                                       const void *source, size_t len, int pe, int nbi)
{
    if (SHOAL_UNLIKELY(len == 0))
        return;
    struct shoal_rref r;
    shoal_remote(fn, ctx, source, len, pe, &r);
    if (SHOAL_UNLIKELY(r.ptr == NULL) || SHOAL_UNLIKELY(shoal.wrapped))
        shoal_get_route(fn, ctx, dest, r.ptr, r.tp, r.seg, r.pe, r.off, len, nbi);
    else
        shoal_shm_copy(dest, r.ptr, len);
}

static SHOAL_INLINE void shoal_put(const char *fn, shmem_ctx_t ctx, void *dest,
                                   const void *source, size_t len, int pe)
{
    shoal_put_any(fn, ctx, dest, source, len, pe, 0);
}

static SHOAL_INLINE void shoal_put_nbi(const char *fn, shmem_ctx_t ctx, void *dest,
                                       const void *source, size_t len, int pe)
{
    shoal_put_any(fn, ctx, dest, source, len, pe, 1);
}

static SHOAL_INLINE void shoal_get(const char *fn, shmem_ctx_t ctx, void *dest,
                                   const void *source, size_t len, int pe)
{
    shoal_get_any(fn, ctx, dest, source, len, pe, 0);
}

static SHOAL_INLINE void shoal_get_nbi(const char *fn, shmem_ctx_t ctx, void *dest,
                                       const void *source, size_t len, int pe)
{
    shoal_get_any(fn, ctx, dest, source, len, pe, 1);
}

/* Interleaved blocks: nblocks blocks of bsize elements of esize bytes; block k starts
 * k*dst elements into dest and k*sst into source. iput/iget are bsize == 1. One
 * helper serves both directions: put copies local source blocks to the remote dest,
 * get copies remote source blocks to the local dest. */
static inline void shoal_strided(const char *fn, shmem_ctx_t ctx, void *dest,
                                 const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t bsize, size_t nblocks, size_t esize, int pe,
                                 int is_put)
{
    if (SHOAL_UNLIKELY(nblocks == 0 || bsize == 0))
        return;
    const void *sym = is_put ? dest : source;
    ptrdiff_t sym_stride = is_put ? dst : sst;
    size_t blen = shoal_nbytes(fn, bsize, esize);
    struct shoal_rref r;
    shoal_remote(fn, ctx, sym, blen, pe, &r);
    /* Every block in the first one's segment, strides of either sign, without
     * wrapping: once per call, so always on. */
    shoal_check_strided(fn, sym, sym_stride, nblocks, blen, esize);
    /* Block k of the symmetric side: the first block's reference, moved along. */
    struct shoal_rref rk = r;
    const char *local = is_put ? source : dest;
    shoal_check_local(fn, local);
    ptrdiff_t local_stride = is_put ? sst : dst;
    for (size_t k = 0; k < nblocks; k++) {
        ptrdiff_t step = (ptrdiff_t)k * sym_stride * (ptrdiff_t)esize;
        rk.off = r.off + (uint64_t)step;
        rk.ptr = r.ptr ? r.ptr + step : NULL;
        char *lk = (char *)local + (ptrdiff_t)k * local_stride * (ptrdiff_t)esize;
        if (is_put)
            shoal_tp_put(ctx, &rk, lk, blen, 1);
        else
            shoal_tp_get(ctx, lk, &rk, blen, 1);
    }
    /* Blocking routines: the network's blocks (r.ptr is NULL), and the device's, complete
     * before returning, and the performance counters count them complete. */
    if (!r.ptr || SHOAL_UNLIKELY(shoal.wrapped & SHOAL_WRAP_OPS))
        shoal_tp_quiet(ctx);
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

/* The signal word is updated atomically, so it must be aligned as an AMO's target. */
static inline void shoal_check_sig_addr(const char *fn, const uint64_t *sig_addr)
{
    if (SHOAL_UNLIKELY((uintptr_t)sig_addr & (sizeof *sig_addr - 1)))
        shoal_fatal(fn,
                    "signal address %p is not aligned to 8 bytes; a signal is a uint64_t "
                    "updated atomically: use a uint64_t variable or array element",
                    (const void *)sig_addr);
}

static inline enum shoal_amo_op shoal_sig_op(const char *fn, int sig_op)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        return SHOAL_AMO_WRITE;
    if (sig_op == SHMEM_SIGNAL_ADD)
        return SHOAL_AMO_ADD;
    shoal_fatal(fn, "sig_op %d is neither SHMEM_SIGNAL_SET nor SHMEM_SIGNAL_ADD", sig_op);
}

/* A signal update alone (shmem_signal_add/set): a 64-bit AMO that fetches nothing. */
static inline void shoal_signal_update(const char *fn, shmem_ctx_t ctx, uint64_t *sig_addr,
                                       uint64_t signal, int sig_op, int pe)
{
    enum shoal_amo_op op = shoal_sig_op(fn, sig_op);
    shoal_check_sig_addr(fn, sig_addr);
    struct shoal_rref r;
    shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe, &r);
    shoal_tp_amo(ctx, &r, op, SHOAL_AMO_UINT64, signal, 0, NULL, SHOAL_AMO_SIGNAL,
                 __ATOMIC_RELEASE);
}

static inline void shoal_put_signal_any(const char *fn, shmem_ctx_t ctx, void *dest,
                                        const void *source, size_t len, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe, int nbi)
{
    struct shoal_put_signal ps = { .src = source,
                                   .len = len,
                                   .signal = signal,
                                   .sig_op = shoal_sig_op(fn, sig_op),
                                   .nbi = nbi };
    shoal_check_sig_addr(fn, sig_addr);
    shoal_remote(fn, ctx, dest, len ? len : 1, pe, &ps.dst);
    shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe, &ps.sig);
    if (len)
        shoal_check_local(fn, source);
    shoal_tp_put_signal(ctx, &ps);
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
