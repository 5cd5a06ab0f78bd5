/* The C11 type-generic RMA names: shmem_put, shmem_get, shmem_put_nbi, shmem_get_nbi,
 * shmem_p, shmem_g, shmem_iput, shmem_iget, shmem_ibput, shmem_ibget, with and without
 * a leading shmem_ctx_t, for every type of the C11 table (int, long, double, char,
 * unsigned long long, float and the rest), plus fixed-width typedefs, which must
 * dispatch to the routine of the type they name. A wrong dispatch moves the wrong
 * number of bytes or converts the value, and the data checks catch it; the return
 * type of shmem_g is checked at compile time. Destinations are a global (static)
 * array and a symmetric heap array. Each PE writes to (me+1)%n, reads from (me+n-1)%n. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "ring.h"

#ifndef shmem_put
#error "shmem.h did not provide the C11 generic interface"
#endif

#define LEN 16
#define HALF (LEN / 2)
enum { R_PUT, R_PUT_CTX, R_P, R_P_CTX, R_IPUT, R_IBPUT, NREG };

static long long val(int pe, int i)
{
    return pe * 1000LL + i + 1;
}

#define EXPECT(got, want, tname, what, idx)                                                  \
    do {                                                                                     \
        if ((got) != (want))                                                                 \
            fprintf(stderr, "PE %d: %s: generic %s, element %d\n", me, tname, what, idx);    \
        CHECK_EQ(got, want);                                                                 \
    } while (0)

/* One test per C11 type; only generic names are called. */
#define GEN_TEST(T, N)                                                                       \
    static T N##_src[LEN];                                                                   \
    static T N##_sdst[NREG * LEN];                                                           \
    _Static_assert(_Generic(shmem_g((T *)0, 0), T : 1, default : 0),                         \
                   "shmem_g on " #T " * must return " #T);                                   \
    _Static_assert(_Generic(shmem_g(SHMEM_CTX_DEFAULT, (const T *)0, 0), T : 1,              \
                            default : 0),                                                    \
                   "shmem_g(ctx) on const " #T " * must return " #T);                        \
    static void test_##N(void)                                                               \
    {                                                                                        \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                 \
        T *hdst = shmem_malloc(NREG * LEN * sizeof(T));                                      \
        CHECK(hdst != NULL);                                                                 \
        T *dsts[2] = { N##_sdst, hdst };                                                     \
        T loc[LEN];                                                                          \
        for (int i = 0; i < LEN; i++)                                                        \
            N##_src[i] = (T)val(me, i);                                                      \
        for (int i = 0; i < NREG * LEN; i++)                                                 \
            N##_sdst[i] = hdst[i] = (T)0;                                                    \
        shmem_barrier_all();                                                                 \
                                                                                             \
        /* Static destination: blocking forms; heap destination: _nbi forms. */              \
        shmem_put(N##_sdst + R_PUT * LEN, N##_src, LEN, right);                              \
        shmem_put(ctx, N##_sdst + R_PUT_CTX * LEN, N##_src, LEN, right);                     \
        shmem_put_nbi(hdst + R_PUT * LEN, N##_src, LEN, right);                              \
        shmem_put_nbi(ctx, hdst + R_PUT_CTX * LEN, N##_src, LEN, right);                     \
        shmem_quiet();                                                                       \
        for (int i = 0; i < LEN; i++) {                                                      \
            shmem_p(N##_sdst + R_P * LEN + i, N##_src[i], right);                            \
            shmem_p(ctx, N##_sdst + R_P_CTX * LEN + i, N##_src[i], right);                   \
            shmem_p(hdst + R_P * LEN + i, (T)val(me, i), right);                             \
            shmem_p(ctx, hdst + R_P_CTX * LEN + i, (T)val(me, i), right);                    \
        }                                                                                    \
        /* iput: even slots <- first half; ctx: first half <- even elements. */              \
        shmem_iput(N##_sdst + R_IPUT * LEN, N##_src, 2, 1, HALF, right);                     \
        shmem_iput(ctx, hdst + R_IPUT * LEN, N##_src, 1, 2, HALF, right);                    \
        /* ibput: blocks of 2 every 4 <- blocks of 2 every 3 (3 blocks). */                  \
        shmem_ibput(N##_sdst + R_IBPUT * LEN, N##_src, 4, 3, 2, 3, right);                   \
        shmem_ibput(ctx, hdst + R_IBPUT * LEN, N##_src, 4, 3, 2, 3, right);                  \
                                                                                             \
        for (int c = 0; c < 2; c++) {                                                        \
            for (int i = 0; i < LEN; i++)                                                    \
                loc[i] = (T)0;                                                               \
            if (c)                                                                           \
                shmem_get(ctx, loc, N##_src, LEN, left);                                     \
            else                                                                             \
                shmem_get(loc, N##_src, LEN, left);                                          \
            for (int i = 0; i < LEN; i++)                                                    \
                EXPECT(loc[i], (T)val(left, i), #T, c ? "get(ctx)" : "get", i);              \
            for (int i = 0; i < LEN; i++)                                                    \
                loc[i] = (T)0;                                                               \
            if (c)                                                                           \
                shmem_get_nbi(ctx, loc, N##_src, LEN, left);                                 \
            else                                                                             \
                shmem_get_nbi(loc, N##_src, LEN, left);                                      \
            shmem_quiet();                                                                   \
            for (int i = 0; i < LEN; i++)                                                    \
                EXPECT(loc[i], (T)val(left, i), #T, c ? "get_nbi(ctx)" : "get_nbi", i);      \
            for (int i = 0; i < LEN; i++) {                                                  \
                const T *s = &N##_src[i];                                                    \
                T g = c ? shmem_g(ctx, s, left) : shmem_g(&N##_src[i], left);                \
                EXPECT(g, (T)val(left, i), #T, c ? "g(ctx)" : "g", i);                       \
            }                                                                                \
            for (int i = 0; i < LEN; i++)                                                    \
                loc[i] = (T)0;                                                               \
            if (c)                                                                           \
                shmem_iget(ctx, loc, N##_src, 1, 2, HALF, left);                             \
            else                                                                             \
                shmem_iget(loc, N##_src, 1, 2, HALF, left);                                  \
            for (int i = 0; i < LEN; i++)                                                    \
                EXPECT(loc[i], i < HALF ? (T)val(left, 2 * i) : (T)0, #T,                    \
                       c ? "iget(ctx)" : "iget", i);                                         \
            for (int i = 0; i < LEN; i++)                                                    \
                loc[i] = (T)0;                                                               \
            if (c)                                                                           \
                shmem_ibget(ctx, loc, N##_src, 4, 3, 2, 3, left);                            \
            else                                                                             \
                shmem_ibget(loc, N##_src, 4, 3, 2, 3, left);                                 \
            for (int i = 0; i < LEN; i++)                                                    \
                EXPECT(loc[i], i % 4 < 2 && i < 12 ? (T)val(left, i / 4 * 3 + i % 4) : (T)0, \
                       #T, c ? "ibget(ctx)" : "ibget", i);                                   \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
                                                                                             \
        for (int d = 0; d < 2; d++) {                                                        \
            const T *b = dsts[d];                                                            \
            for (int i = 0; i < LEN; i++) {                                                  \
                T w = (T)val(left, i);                                                       \
                EXPECT(b[R_PUT * LEN + i], w, #T, d ? "put_nbi" : "put", i);                 \
                EXPECT(b[R_PUT_CTX * LEN + i], w, #T, d ? "put_nbi(ctx)" : "put(ctx)", i);   \
                EXPECT(b[R_P * LEN + i], w, #T, "p", i);                                     \
                EXPECT(b[R_P_CTX * LEN + i], w, #T, "p(ctx)", i);                            \
                EXPECT(b[R_IBPUT * LEN + i],                                                 \
                       i % 4 < 2 && i < 12 ? (T)val(left, i / 4 * 3 + i % 4) : (T)0, #T,     \
                       d ? "ibput(ctx)" : "ibput", i);                                       \
            }                                                                                \
        }                                                                                    \
        for (int i = 0; i < LEN; i++) {                                                      \
            EXPECT(N##_sdst[R_IPUT * LEN + i], i % 2 == 0 ? (T)val(left, i / 2) : (T)0, #T,  \
                   "iput", i);                                                               \
            EXPECT(hdst[R_IPUT * LEN + i], i < HALF ? (T)val(left, 2 * i) : (T)0, #T,        \
                   "iput(ctx)", i);                                                          \
        }                                                                                    \
        shmem_free(hdst);                                                                    \
    }

/* The C types to test. Not SHMEM_C11_RMA_TYPES itself: the generic macros expand that
 * table, and a macro cannot be expanded again inside its own expansion. */
/* clang-format off */
#define GENERIC_TEST_TYPES(X) \
    X(int, int) \
    X(long, long) \
    X(double, double) \
    X(char, char) \
    X(unsigned long long, ulonglong) \
    X(float, float) \
    X(long double, longdouble) \
    X(signed char, schar) \
    X(short, short) \
    X(long long, longlong) \
    X(unsigned char, uchar) \
    X(unsigned short, ushort) \
    X(unsigned int, uint) \
    X(unsigned long, ulong)
/* clang-format on */

GENERIC_TEST_TYPES(GEN_TEST)

#define CALL_TEST(T, N) test_##N();

/* Fixed-width and library typedefs go through the generic names too. */
static int64_t s64[LEN];
static uint8_t su8[LEN];
static int32_t s32[LEN];
static size_t ssz[LEN];
static ptrdiff_t spd[LEN];

static void test_typedefs(void)
{
    for (int i = 0; i < LEN; i++) {
        s64[i] = -(int64_t)val(me, i) * 4000000000LL; /* needs all 64 bits */
        su8[i] = (uint8_t)(me * 16 + i + 1);
        s32[i] = -(int32_t)val(me, i) * 70000;
        ssz[i] = (size_t)val(me, i) << 33;
        spd[i] = -((ptrdiff_t)val(me, i) << 35);
    }
    shmem_barrier_all();
    int64_t l64[LEN];
    uint8_t lu8[LEN];
    int32_t l32[LEN];
    size_t lsz[LEN];
    ptrdiff_t lpd[LEN];
    shmem_get(l64, s64, LEN, left);
    shmem_get(SHMEM_CTX_DEFAULT, lu8, su8, LEN, left);
    shmem_get_nbi(l32, s32, LEN, left);
    shmem_quiet();
    shmem_get(lsz, ssz, LEN, left);
    shmem_get(SHMEM_CTX_DEFAULT, lpd, spd, LEN, left);
    for (int i = 0; i < LEN; i++) {
        CHECK_EQ(l64[i], -(int64_t)val(left, i) * 4000000000LL);
        CHECK_EQ(lu8[i], (uint8_t)(left * 16 + i + 1));
        CHECK_EQ(l32[i], -(int32_t)val(left, i) * 70000);
        CHECK(lsz[i] == (size_t)val(left, i) << 33);
        CHECK_EQ(lpd[i], -((ptrdiff_t)val(left, i) << 35));
        CHECK_EQ(shmem_g(&s64[i], left), l64[i]);
        CHECK_EQ(shmem_g(SHMEM_CTX_DEFAULT, &su8[i], left), lu8[i]);
        CHECK(shmem_g(&ssz[i], left) == lsz[i]);
    }
    shmem_barrier_all();
    /* Put the negated values to the right (not read from s64: the left neighbour may
     * already be overwriting it). */
    for (int i = 0; i < LEN; i++)
        l64[i] = (int64_t)val(me, i) * 4000000000LL;
    shmem_put(s64, l64, LEN, right); /* overwrite the right neighbour's s64 */
    shmem_p(SHMEM_CTX_DEFAULT, &s32[0], (int32_t)-1, right);
    shmem_barrier_all();
    for (int i = 0; i < LEN; i++)
        CHECK_EQ(s64[i], (int64_t)val(left, i) * 4000000000LL);
    CHECK_EQ(s32[0], -1);
}

int main(void)
{
    ring_init();

    GENERIC_TEST_TYPES(CALL_TEST)
    test_typedefs();

    shmem_barrier_all();
    if (me == 0)
        printf("test_rma_generic: C11 "
               "shmem_put/get/put_nbi/get_nbi/p/g/iput/iget/ibput/ibget, "
               "with and without ctx, 14 C11 types and fixed-width typedefs: OK on %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
