/* Typed RMA for every type of SHMEM_RMA_TYPES: put, get, p, g, put_nbi, get_nbi, iput,
 * iget (strides 1..3 on both sides), ibput, ibget, each in the default and the ctx_ form
 * (SHMEM_CTX_DEFAULT), on symmetric heap memory and on global (static) arrays.
 *
 * Per type the X-macro table generates only thin wrappers with one uniform signature;
 * one generic driver runs the phases and checks every element:
 *   phase 1: every PE writes to (me+1)%n and reads from (me+n-1)%n;
 *   phase 2: all-to-all (put to and get from every PE, g of one element from each).
 * Element i of PE p's source is val(p, i) = p*1000 + i + 1 (+600 for the static arrays),
 * converted to the type; untouched elements of a destination must stay 0. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rma_ops.h"

/* Destination regions (each RSZ elements) written in phase 1. */
enum {
    R_PUT = 0,      /* + ctx (0/1) */
    R_PUT_PRIV = 2, /* put from a private (non-symmetric) source buffer */
    R_PUT_NBI = 3,  /* + ctx */
    R_P = 5,        /* + ctx */
    R_IPUT = 7,     /* + ctx * 9 + stride combination */
    R_IBPUT = 25,   /* + ctx * NBLK + block shape */
    NREG = 29
};
#define DLEN (NREG * RSZ)

/* Uniform view of one type's routines. c selects the ctx_ form on SHMEM_CTX_DEFAULT. */
struct tops {
    const char *name;
    size_t esize;
    void *static_src, *static_dst;
    void (*mk)(void *d, long long raw);
    int (*eq)(const void *a, long long raw);
    long long (*show)(const void *a);
    rma_contig_fn *put, *get, *put_nbi, *get_nbi;
    void (*p)(int c, void *d, const void *v, int pe);
    void (*g)(int c, void *out, const void *s, int pe);
    rma_strided_fn *iput, *iget;
    rma_blocked_fn *ibput, *ibget;
};

#define DEF_TYPE(T, N)                                                                       \
    static T N##_static_src[RSZ];                                                            \
    static T N##_static_dst[DLEN];                                                           \
    static void N##_mk(void *d, long long raw)                                               \
    {                                                                                        \
        *(T *)d = (T)raw;                                                                    \
    }                                                                                        \
    static int N##_eq(const void *a, long long raw)                                          \
    {                                                                                        \
        return *(const T *)a == (T)raw;                                                      \
    }                                                                                        \
    static long long N##_show(const void *a)                                                 \
    {                                                                                        \
        return (long long)*(const T *)a;                                                     \
    }                                                                                        \
    static void N##_put(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        CTXCALL(c, N##_put, (T *)d, (const T *)s, n, pe);                                    \
    }                                                                                        \
    static void N##_get(int c, void *d, const void *s, size_t n, int pe)                     \
    {                                                                                        \
        CTXCALL(c, N##_get, (T *)d, (const T *)s, n, pe);                                    \
    }                                                                                        \
    static void N##_put_nbi(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        CTXCALL(c, N##_put_nbi, (T *)d, (const T *)s, n, pe);                                \
    }                                                                                        \
    static void N##_get_nbi(int c, void *d, const void *s, size_t n, int pe)                 \
    {                                                                                        \
        CTXCALL(c, N##_get_nbi, (T *)d, (const T *)s, n, pe);                                \
    }                                                                                        \
    static void N##_p(int c, void *d, const void *v, int pe)                                 \
    {                                                                                        \
        CTXCALL(c, N##_p, (T *)d, *(const T *)v, pe);                                        \
    }                                                                                        \
    static void N##_g(int c, void *out, const void *s, int pe)                               \
    {                                                                                        \
        if (c)                                                                               \
            *(T *)out = shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, (const T *)s, pe);              \
        else                                                                                 \
            *(T *)out = shmem_##N##_g((const T *)s, pe);                                     \
    }                                                                                        \
    static void N##_iput(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t n, int pe)                                                   \
    {                                                                                        \
        CTXCALL(c, N##_iput, (T *)d, (const T *)s, dst, sst, n, pe);                         \
    }                                                                                        \
    static void N##_iget(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,        \
                         size_t n, int pe)                                                   \
    {                                                                                        \
        CTXCALL(c, N##_iget, (T *)d, (const T *)s, dst, sst, n, pe);                         \
    }                                                                                        \
    static void N##_ibput(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t b, size_t nb, int pe)                                       \
    {                                                                                        \
        CTXCALL(c, N##_ibput, (T *)d, (const T *)s, dst, sst, b, nb, pe);                    \
    }                                                                                        \
    static void N##_ibget(int c, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t b, size_t nb, int pe)                                       \
    {                                                                                        \
        CTXCALL(c, N##_ibget, (T *)d, (const T *)s, dst, sst, b, nb, pe);                    \
    }                                                                                        \
    static const struct tops N##_ops = {                                                     \
        #N,       sizeof(T), N##_static_src, N##_static_dst, N##_mk,      N##_eq,            \
        N##_show, N##_put,   N##_get,        N##_put_nbi,    N##_get_nbi, N##_p,             \
        N##_g,    N##_iput,  N##_iget,       N##_ibput,      N##_ibget                       \
    };

SHMEM_RMA_TYPES(DEF_TYPE)

#define LIST_TYPE(T, N) &N##_ops,
static const struct tops *const all_types[] = { SHMEM_RMA_TYPES(LIST_TYPE) };
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* Never 0 in any width (0 marks an untouched element), distinct per index. */
static long long val(int pe, int i, int salt)
{
    long long r = pe * 1000LL + salt + i + 1;
    if ((r & 0xff) == 0)
        r += 0x80;
    return r;
}

#define EL(b, i) ((char *)(b) + (size_t)(i)*t->esize)

/* exp[0..RSZ): nb blocks of bs elements, block k at k*ts taken from k*ss on PE from. */
static void expect_blocks(long long *exp, int from, int salt, int ts, int ss, int bs, int nb)
{
    for (int i = 0; i < RSZ; i++)
        exp[i] = 0;
    for (int k = 0; k < nb; k++)
        for (int j = 0; j < bs; j++)
            exp[k * ts + j] = val(from, k * ss + j, salt);
}

static void check_buf(const struct tops *t, const void *buf, const long long *exp, int count,
                      const char *kind, int c, const char *what, int a, int b)
{
    for (int i = 0; i < count; i++) {
        if (!t->eq(EL(buf, i), exp[i])) {
            _Alignas(16) char want[32]; /* holds one element of any type */
            t->mk(want, exp[i]);
            fprintf(stderr,
                    "PE %d: %s %s shmem_%s%s_%s (%d,%d) element %d: got %lld, expected "
                    "%lld\n",
                    me, kind, t->name, ctx_name[c], t->name, what, a, b, i,
                    t->show(EL(buf, i)), t->show(want));
        }
        CHECK(t->eq(EL(buf, i), exp[i]));
    }
}

static void fill_zero(const struct tops *t, void *buf, int count)
{
    for (int i = 0; i < count; i++)
        t->mk(EL(buf, i), 0);
}

static void run_type(const struct tops *t, int kind)
{
    const char *kn = kind_name[kind];
    const int salt = kind == HEAP ? 0 : 600;
    long long exp[RSZ];
    void *src, *dst;

    if (kind == HEAP) {
        src = test_malloc(RSZ * t->esize);
        dst = test_malloc(DLEN * t->esize);
    } else {
        src = t->static_src;
        dst = t->static_dst;
    }
    CHECK(shmem_addr_accessible(src, right) && shmem_addr_accessible(dst, left));
    void *loc = malloc(DLEN * t->esize); /* private, for gets and a private put source */
    CHECK(loc != NULL);

    /* ---- Phase 1: write right, read left. ---- */
    for (int i = 0; i < RSZ; i++)
        t->mk(EL(src, i), val(me, i, salt));
    fill_zero(t, dst, DLEN);
    shmem_barrier_all();

    for (int c = 0; c < 2; c++) {
        t->put(c, EL(dst, (R_PUT + c) * RSZ), src, LEN, right);
        t->put_nbi(c, EL(dst, (R_PUT_NBI + c) * RSZ), src, LEN, right);
        quiet(c);
        for (int i = 0; i < LEN; i++)
            t->p(c, EL(dst, (R_P + c) * RSZ + i), EL(src, i), right);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                t->iput(c, EL(dst, (R_IPUT + c * 9 + a * 3 + b) * RSZ), src, strides[a],
                        strides[b], LEN, right);
        for (int k = 0; k < NBLK; k++)
            t->ibput(c, EL(dst, (R_IBPUT + c * NBLK + k) * RSZ), src, blocks[k].dst,
                     blocks[k].sst, (size_t)blocks[k].bsize, (size_t)blocks[k].nblocks,
                     right);
    }
    /* A put's source need not be symmetric. */
    for (int i = 0; i < LEN; i++)
        t->mk(EL(loc, i), val(me, i, salt));
    t->put(0, EL(dst, R_PUT_PRIV * RSZ), loc, LEN, right);

    /* Gets complete on return (get_nbi at quiet): check them at once. */
    for (int c = 0; c < 2; c++) {
        expect_blocks(exp, left, salt, 1, 1, LEN, 1);
        fill_zero(t, loc, RSZ);
        t->get(c, loc, src, LEN, left);
        check_buf(t, loc, exp, RSZ, kn, c, "get", 0, 0);

        fill_zero(t, loc, RSZ);
        t->get_nbi(c, loc, src, LEN, left);
        quiet(c);
        check_buf(t, loc, exp, RSZ, kn, c, "get_nbi", 0, 0);

        fill_zero(t, loc, RSZ);
        for (int i = 0; i < LEN; i++)
            t->g(c, EL(loc, i), EL(src, i), left);
        check_buf(t, loc, exp, RSZ, kn, c, "g", 0, 0);

        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                expect_blocks(exp, left, salt, strides[a], strides[b], 1, LEN);
                fill_zero(t, loc, RSZ);
                t->iget(c, loc, src, strides[a], strides[b], LEN, left);
                check_buf(t, loc, exp, RSZ, kn, c, "iget", strides[a], strides[b]);
            }
        for (int k = 0; k < NBLK; k++) {
            const struct blk *bl = &blocks[k];
            expect_blocks(exp, left, salt, bl->dst, bl->sst, bl->bsize, bl->nblocks);
            fill_zero(t, loc, RSZ);
            t->ibget(c, loc, src, bl->dst, bl->sst, (size_t)bl->bsize, (size_t)bl->nblocks,
                     left);
            check_buf(t, loc, exp, RSZ, kn, c, "ibget", bl->dst, bl->sst);
        }
    }
    shmem_barrier_all();

    /* What the left neighbour wrote into this PE. */
    for (int c = 0; c < 2; c++) {
        expect_blocks(exp, left, salt, 1, 1, LEN, 1);
        check_buf(t, EL(dst, (R_PUT + c) * RSZ), exp, RSZ, kn, c, "put", 0, 0);
        check_buf(t, EL(dst, (R_PUT_NBI + c) * RSZ), exp, RSZ, kn, c, "put_nbi", 0, 0);
        check_buf(t, EL(dst, (R_P + c) * RSZ), exp, RSZ, kn, c, "p", 0, 0);
        if (c == 0)
            check_buf(t, EL(dst, R_PUT_PRIV * RSZ), exp, RSZ, kn, c, "put(private src)", 0,
                      0);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                expect_blocks(exp, left, salt, strides[a], strides[b], 1, LEN);
                check_buf(t, EL(dst, (R_IPUT + c * 9 + a * 3 + b) * RSZ), exp, RSZ, kn, c,
                          "iput", strides[a], strides[b]);
            }
        for (int k = 0; k < NBLK; k++) {
            const struct blk *bl = &blocks[k];
            expect_blocks(exp, left, salt, bl->dst, bl->sst, bl->bsize, bl->nblocks);
            check_buf(t, EL(dst, (R_IBPUT + c * NBLK + k) * RSZ), exp, RSZ, kn, c, "ibput",
                      bl->dst, bl->sst);
        }
    }

    /* ---- Phase 2: all-to-all. PE me's K elements land at slot me on every PE. ---- */
    int kk = DLEN / npes < LEN ? DLEN / npes : LEN;
    CHECK(kk > 0);
    fill_zero(t, dst, DLEN);
    shmem_barrier_all();
    put_to_all(t->put, t->put_nbi, dst, src, t->esize, kk);
    for (int q = 0; q < npes; q++) {
        int pe = (me + npes - q) % npes;
        int c = q % 2;
        fill_zero(t, loc, RSZ);
        t->get(c, loc, src, kk, pe);
        expect_blocks(exp, pe, salt, 1, 1, kk, 1);
        check_buf(t, loc, exp, RSZ, kn, c, "get(all-to-all)", pe, 0);
        t->g(!c, loc, EL(src, me % RSZ), pe);
        CHECK(t->eq(loc, val(pe, me % RSZ, salt)));
    }
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        expect_blocks(exp, pe, salt, 1, 1, kk, 1);
        check_buf(t, EL(dst, pe * kk), exp, kk, kn, 0, "put(all-to-all)", pe, 0);
    }
    for (int i = npes * kk; i < DLEN; i++)
        CHECK(t->eq(EL(dst, i), 0));

    free(loc);
    if (kind == HEAP) {
        shmem_free(dst);
        shmem_free(src);
    } else {
        /* Others may still be checking (reading) their own copies only; the next type
         * uses different arrays, so no barrier is needed before moving on. */
    }
}

int main(void)
{
    ring_init();

    for (size_t k = 0; k < NTYPES; k++) {
        run_type(all_types[k], HEAP);
        run_type(all_types[k], STATIC);
    }

    shmem_barrier_all();
    if (me == 0)
        printf("test_rma_typed: %zu types x {heap, static} x {put, get, p, g, put_nbi, "
               "get_nbi, "
               "iput, iget, ibput, ibget} x {default, ctx_}: OK on %d PEs\n",
               NTYPES, npes);
    shmem_finalize();
    return 0;
}
