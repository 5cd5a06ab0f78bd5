/* shmem_[ctx_]TYPENAME_{put,get,put_nbi,get_nbi,p,g,iput,iget,ibput,ibget,put_signal,
 * put_signal_nbi} for every standard RMA type. */
#include "api/pair.h"
#include "api/rma.h"

/* Bytes of n elements of T, checked for overflow. */
#define NBYTES(n, T) shoal_nbytes(fn, n, sizeof(T))

#define SHOAL_RMA_TYPED(T, N)                                                                \
    static SHOAL_INLINE void put_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,      \
                                     size_t n, int pe)                                       \
    {                                                                                        \
        shoal_put(fn, ctx, d, s, NBYTES(n, T), pe);                                          \
    }                                                                                        \
    static SHOAL_INLINE void put_nbi_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,  \
                                         size_t n, int pe)                                   \
    {                                                                                        \
        shoal_put_nbi(fn, ctx, d, s, NBYTES(n, T), pe);                                      \
    }                                                                                        \
    static SHOAL_INLINE void get_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,      \
                                     size_t n, int pe)                                       \
    {                                                                                        \
        shoal_get(fn, ctx, d, s, NBYTES(n, T), pe);                                          \
    }                                                                                        \
    static SHOAL_INLINE void get_nbi_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,  \
                                         size_t n, int pe)                                   \
    {                                                                                        \
        shoal_get_nbi(fn, ctx, d, s, NBYTES(n, T), pe);                                      \
    }                                                                                        \
    static SHOAL_INLINE void p_##N(const char *fn, shmem_ctx_t ctx, T *d, T v, int pe)       \
    {                                                                                        \
        shoal_put(fn, ctx, d, &v, sizeof(T), pe);                                            \
    }                                                                                        \
    static SHOAL_INLINE T g_##N(const char *fn, shmem_ctx_t ctx, const T *s, int pe)         \
    {                                                                                        \
        T v;                                                                                 \
        shoal_get(fn, ctx, &v, s, sizeof(T), pe);                                            \
        return v;                                                                            \
    }                                                                                        \
    static inline void iput_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,           \
                                ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)              \
    {                                                                                        \
        shoal_iput(fn, ctx, d, s, dst, sst, 1, n, sizeof(T), pe);                            \
    }                                                                                        \
    static inline void iget_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,           \
                                ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe)              \
    {                                                                                        \
        shoal_iget(fn, ctx, d, s, dst, sst, 1, n, sizeof(T), pe);                            \
    }                                                                                        \
    static inline void ibput_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,          \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)  \
    {                                                                                        \
        shoal_iput(fn, ctx, d, s, dst, sst, b, nb, sizeof(T), pe);                           \
    }                                                                                        \
    static inline void ibget_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,          \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t b, size_t nb, int pe)  \
    {                                                                                        \
        shoal_iget(fn, ctx, d, s, dst, sst, b, nb, sizeof(T), pe);                           \
    }                                                                                        \
    static inline void put_signal_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s,     \
                                      size_t n, uint64_t *sig, uint64_t sv, int op, int pe)  \
    {                                                                                        \
        shoal_put_signal(fn, ctx, d, s, NBYTES(n, T), sig, sv, op, pe);                      \
    }                                                                                        \
    static inline void put_signal_nbi_##N(const char *fn, shmem_ctx_t ctx, T *d, const T *s, \
                                          size_t n, uint64_t *sig, uint64_t sv, int op,      \
                                          int pe)                                            \
    {                                                                                        \
        shoal_put_signal_nbi(fn, ctx, d, s, NBYTES(n, T), sig, sv, op, pe);                  \
    }                                                                                        \
    SHOAL_DEFINE_PAIR(void, N##_put, put_##N,                                                \
                      (T * dest, const T *source, size_t nelems, int pe),                    \
                      (dest, source, nelems, pe))                                            \
    SHOAL_DEFINE_PAIR(void, N##_put_nbi, put_nbi_##N,                                        \
                      (T * dest, const T *source, size_t nelems, int pe),                    \
                      (dest, source, nelems, pe))                                            \
    SHOAL_DEFINE_PAIR(void, N##_get, get_##N,                                                \
                      (T * dest, const T *source, size_t nelems, int pe),                    \
                      (dest, source, nelems, pe))                                            \
    SHOAL_DEFINE_PAIR(void, N##_get_nbi, get_nbi_##N,                                        \
                      (T * dest, const T *source, size_t nelems, int pe),                    \
                      (dest, source, nelems, pe))                                            \
    SHOAL_DEFINE_PAIR(void, N##_p, p_##N, (T * dest, T value, int pe), (dest, value, pe))    \
    SHOAL_DEFINE_PAIR(T, N##_g, g_##N, (const T *source, int pe), (source, pe))              \
    SHOAL_DEFINE_PAIR(void, N##_iput, iput_##N,                                              \
                      (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                       size_t nelems, int pe),                                               \
                      (dest, source, dst, sst, nelems, pe))                                  \
    SHOAL_DEFINE_PAIR(void, N##_iget, iget_##N,                                              \
                      (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                       size_t nelems, int pe),                                               \
                      (dest, source, dst, sst, nelems, pe))                                  \
    SHOAL_DEFINE_PAIR(void, N##_ibput, ibput_##N,                                            \
                      (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                       size_t bsize, size_t nblocks, int pe),                                \
                      (dest, source, dst, sst, bsize, nblocks, pe))                          \
    SHOAL_DEFINE_PAIR(void, N##_ibget, ibget_##N,                                            \
                      (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                       size_t bsize, size_t nblocks, int pe),                                \
                      (dest, source, dst, sst, bsize, nblocks, pe))                          \
    SHOAL_DEFINE_PAIR(void, N##_put_signal, put_signal_##N,                                  \
                      (T * dest, const T *source, size_t nelems, uint64_t *sig_addr,         \
                       uint64_t signal, int sig_op, int pe),                                 \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))                  \
    SHOAL_DEFINE_PAIR(void, N##_put_signal_nbi, put_signal_nbi_##N,                          \
                      (T * dest, const T *source, size_t nelems, uint64_t *sig_addr,         \
                       uint64_t signal, int sig_op, int pe),                                 \
                      (dest, source, nelems, sig_addr, signal, sig_op, pe))

SHMEM_RMA_TYPES(SHOAL_RMA_TYPED)
