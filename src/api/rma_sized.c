/* shmem_[ctx_]{put,get,iput,iget,ibput,ibget}SIZE[_nbi], putSIZE_signal[_nbi] and the
 * byte-count putmem/getmem family. SIZE is in bits; elements are SIZE/8 bytes. */
#include "api/pair.h"
#include "api/rma.h"

static SHOAL_INLINE void put_bytes(const char *fn, shmem_ctx_t ctx, void *d, const void *s,
                                   size_t n, size_t esize, int pe)
{
    shoal_put(fn, ctx, d, s, shoal_nbytes(fn, n, esize), pe);
}

static SHOAL_INLINE void get_bytes(const char *fn, shmem_ctx_t ctx, void *d, const void *s,
                                   size_t n, size_t esize, int pe)
{
    shoal_get(fn, ctx, d, s, shoal_nbytes(fn, n, esize), pe);
}

static SHOAL_INLINE void put_nbi_bytes(const char *fn, shmem_ctx_t ctx, void *d,
                                       const void *s, size_t n, size_t esize, int pe)
{
    shoal_put_nbi(fn, ctx, d, s, shoal_nbytes(fn, n, esize), pe);
}

static SHOAL_INLINE void get_nbi_bytes(const char *fn, shmem_ctx_t ctx, void *d,
                                       const void *s, size_t n, size_t esize, int pe)
{
    shoal_get_nbi(fn, ctx, d, s, shoal_nbytes(fn, n, esize), pe);
}

static inline void put_signal_nbi_bytes(const char *fn, shmem_ctx_t ctx, void *d,
                                        const void *s, size_t n, uint64_t *sig, uint64_t sv,
                                        int op, int pe, size_t esize)
{
    shoal_put_signal_nbi(fn, ctx, d, s, shoal_nbytes(fn, n, esize), sig, sv, op, pe);
}

static inline void put_signal_bytes(const char *fn, shmem_ctx_t ctx, void *d, const void *s,
                                    size_t n, uint64_t *sig, uint64_t sv, int op, int pe,
                                    size_t esize)
{
    shoal_put_signal(fn, ctx, d, s, shoal_nbytes(fn, n, esize), sig, sv, op, pe);
}

#define SHOAL_RMA_SIZED_FAMILY(S, E)                                                         \
    SHOAL_DEFINE_PAIR(void, put##S, put_bytes,                                               \
                      (void *dest, const void *source, size_t nelems, int pe),               \
                      (dest, source, nelems, E, pe))                                         \
    SHOAL_DEFINE_PAIR(void, put##S##_nbi, put_nbi_bytes,                                     \
                      (void *dest, const void *source, size_t nelems, int pe),               \
                      (dest, source, nelems, E, pe))                                         \
    SHOAL_DEFINE_PAIR(void, get##S, get_bytes,                                               \
                      (void *dest, const void *source, size_t nelems, int pe),               \
                      (dest, source, nelems, E, pe))                                         \
    SHOAL_DEFINE_PAIR(void, get##S##_nbi, get_nbi_bytes,                                     \
                      (void *dest, const void *source, size_t nelems, int pe),               \
                      (dest, source, nelems, E, pe))                                         \
    SHOAL_DEFINE_PAIR(void, put##S##_signal, put_signal_bytes,                               \
                      (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,    \
                       uint64_t signal, int sig_op, int pe),                                 \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe, E))               \
    SHOAL_DEFINE_PAIR(void, put##S##_signal_nbi, put_signal_nbi_bytes,                       \
                      (void *dest, const void *source, size_t nelems, uint64_t *sig_addr,    \
                       uint64_t signal, int sig_op, int pe),                                 \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe, E))

#define SHOAL_RMA_STRIDED_FAMILY(S, E)                                                       \
    SHOAL_DEFINE_PAIR(void, iput##S, shoal_iput,                                             \
                      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                       size_t nelems, int pe),                                               \
                      (dest, source, dst, sst, 1, nelems, E, pe))                            \
    SHOAL_DEFINE_PAIR(void, iget##S, shoal_iget,                                             \
                      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                       size_t nelems, int pe),                                               \
                      (dest, source, dst, sst, 1, nelems, E, pe))                            \
    SHOAL_DEFINE_PAIR(void, ibput##S, shoal_iput,                                            \
                      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                       size_t bsize, size_t nblocks, int pe),                                \
                      (dest, source, dst, sst, bsize, nblocks, E, pe))                       \
    SHOAL_DEFINE_PAIR(void, ibget##S, shoal_iget,                                            \
                      (void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,         \
                       size_t bsize, size_t nblocks, int pe),                                \
                      (dest, source, dst, sst, bsize, nblocks, E, pe))

#define SHOAL_RMA_SIZED(S)                                                                   \
    SHOAL_RMA_SIZED_FAMILY(S, (S) / 8) SHOAL_RMA_STRIDED_FAMILY(S, (S) / 8)
SHMEM_RMA_SIZES(SHOAL_RMA_SIZED)
SHOAL_RMA_SIZED_FAMILY(mem, 1)
