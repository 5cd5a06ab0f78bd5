/* Deprecated active-set collectives, on the full set and on every other PE (the even
 * and the odd PEs run theirs at the same time, over the same symmetric pSync):
 * shmem_barrier / shmem_sync rounds that order AMO counters, broadcast32/64 from
 * every root (the root's dest untouched), collect32/64 with differing counts,
 * fcollect32/64, alltoall32/64, alltoalls32/64, and shmem_TYPENAME_OP_to_all for every
 * type of SHMEM_TO_ALL_*_TYPES, in place and not, with pWrk of exactly the size the
 * spec asks for. Each routine is called twice back to back with the same pSync, and
 * every pSync must read all SHMEM_SYNC_VALUE whenever a call has returned. Strided
 * alltoalls also around the packing threshold and in several rounds of the packed
 * path, and on two active sets sharing a PE one after the other with nothing
 * between (test_shared_box). */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "coll_check.h"
#include "coll_values.h"

#define MAXN 20000
#define MAXPES 8
#define BUF (((size_t)MAXN * MAXPES + 1) * 16)
#define GUARD 111

static long psync[2][SHMEM_REDUCE_SYNC_SIZE];      /* the calls under test, alternately */
static long psync_sep[2][SHMEM_BARRIER_SYNC_SIZE]; /* separate test cases */
static long counter[2];
static unsigned char *src, *dst, *wrk; /* symmetric */
static const char *cur = "";
static size_t cur_n;

/* The active set: world PE of member i is start + i * 2^logstride. */
static int s_start, s_log, s_size, s_me;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "%s of %zu on the active set (%d, %d, %d)", cur, cur_n, s_start, s_log,
            s_size);
}

#define SET s_start, s_log, s_size

static void check_zero(const long *ps, int n)
{
    for (int i = 0; i < n; i++)
        TCHECK(ps[i] == SHMEM_SYNC_VALUE);
}

/* Called where no member can have begun another call on psync since this PE's last
 * call on it returned, so each of its words must read SHMEM_SYNC_VALUE. */
static void psync_zero(void)
{
    check_zero(psync[0], SHMEM_REDUCE_SYNC_SIZE);
    check_zero(psync[1], SHMEM_REDUCE_SYNC_SIZE);
}

/* Every member has returned from its calls on psync, and checked them, before any
 * member goes on. */
static void separate(void)
{
    shmem_barrier(SET, psync_sep[0]);
    psync_zero();
    shmem_barrier(SET, psync_sep[1]);
}

static void test_barrier(void)
{
    cur = "barrier/sync";
    int pe0 = s_start;
    for (int r = 0; r < 40; r++) {
        shmem_long_atomic_inc(&counter[r & 1], pe0);
        if (r & 1) {
            shmem_quiet();
            shmem_sync(SET, psync[r / 2 & 1]);
        } else {
            shmem_barrier(SET, psync[r / 2 & 1]);
        }
        cur_n = (size_t)r;
        TCHECK(shmem_long_atomic_fetch(&counter[r & 1], pe0) == (long)s_size * (r / 2 + 1));
    }
    separate();
}

#define VAL(pe, i) (((pe)*31 + (long)(i)*7 + 3) % 101)

/* Sized families, element type by bits. */
#define SIZES(X) X(32, uint32_t) X(64, uint64_t)

#define SIZED_TESTS(BITS, T)                                                                 \
    static void bcast##BITS(size_t n)                                                        \
    {                                                                                        \
        T *s = (T *)src;                                                                     \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = (T)VAL(s_me, i);                                                          \
        for (int root = 0; root < s_size; root++) {                                          \
            for (size_t i = 0; i <= 2 * n + 1; i++)                                          \
                ((T *)dst)[i] = (T)GUARD;                                                    \
            separate();                                                                      \
            for (int k = 0; k < 2; k++)                                                      \
                shmem_broadcast##BITS((T *)dst + k * (n + 1), s, n, root, SET, psync[0]);    \
            psync_zero();                                                                    \
            for (int k = 0; k < 2; k++)                                                      \
                for (size_t i = 0; i <= n; i++)                                              \
                    TCHECK(((T *)dst)[k * (n + 1) + i] ==                                    \
                           (T)(s_me == root || i == n ? GUARD : VAL(root, i)));              \
        }                                                                                    \
    }                                                                                        \
    static void fcollect##BITS(size_t n)                                                     \
    {                                                                                        \
        T *s = (T *)src, *d = (T *)dst;                                                      \
        size_t all = n * (size_t)s_size;                                                     \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = (T)VAL(s_me, i);                                                          \
        for (size_t i = 0; i <= 2 * all + 1; i++)                                            \
            d[i] = (T)GUARD;                                                                 \
        separate();                                                                          \
        shmem_fcollect##BITS(d, s, n, SET, psync[0]);                                        \
        shmem_fcollect##BITS(d + all + 1, s, n, SET, psync[0]);                              \
        psync_zero();                                                                        \
        for (int k = 0; k < 2; k++, d += all + 1) {                                          \
            for (int p = 0; p < s_size; p++)                                                 \
                for (size_t i = 0; i < n; i++)                                               \
                    TCHECK(d[(size_t)p * n + i] == (T)VAL(p, i));                            \
            TCHECK(d[all] == (T)GUARD);                                                      \
        }                                                                                    \
    }                                                                                        \
    /* Member p contributes (p * 5 + n) % 7 * n / 4 elements: some none. */                  \
    static void collect##BITS(size_t n)                                                      \
    {                                                                                        \
        T *s = (T *)src, *d = (T *)dst;                                                      \
        size_t all = 0, mine = (size_t)(s_me * 5 + (int)n) % 7 * n / 4;                      \
        for (int p = 0; p < s_size; p++)                                                     \
            all += (size_t)(p * 5 + (int)n) % 7 * n / 4;                                     \
        for (size_t i = 0; i < mine; i++)                                                    \
            s[i] = (T)VAL(s_me, i);                                                          \
        for (size_t i = 0; i <= 2 * all + 1; i++)                                            \
            d[i] = (T)GUARD;                                                                 \
        separate();                                                                          \
        shmem_collect##BITS(d, s, mine, SET, psync[1]);                                      \
        shmem_collect##BITS(d + all + 1, s, mine, SET, psync[1]);                            \
        psync_zero();                                                                        \
        for (int k = 0; k < 2; k++) {                                                        \
            T *e = d + (size_t)k * (all + 1);                                                \
            for (int p = 0; p < s_size; p++)                                                 \
                for (size_t i = 0; i < (size_t)(p * 5 + (int)n) % 7 * n / 4; i++, e++)       \
                    TCHECK(*e == (T)VAL(p, i));                                              \
            TCHECK(*e == (T)GUARD);                                                          \
        }                                                                                    \
    }                                                                                        \
    /* alltoalls with strides ds, ss (alltoall itself when both are 1). */                   \
    static void alltoall##BITS(size_t n, ptrdiff_t ds, ptrdiff_t ss)                         \
    {                                                                                        \
        T *s = (T *)src, *d = (T *)dst;                                                      \
        size_t dl = n * (size_t)s_size * (size_t)ds, sl = n * (size_t)s_size * (size_t)ss;   \
        for (size_t e = 0; e < sl; e++)                                                      \
            s[e] = (T)GUARD;                                                                 \
        for (int j = 0; j < s_size; j++)                                                     \
            for (size_t i = 0; i < n; i++)                                                   \
                s[((size_t)j * n + i) * (size_t)ss] = (T)VAL(s_me * 8 + j, i);               \
        for (size_t e = 0; e <= 2 * dl + 1; e++)                                             \
            d[e] = (T)GUARD;                                                                 \
        separate();                                                                          \
        for (int k = 0; k < 2; k++) {                                                        \
            if (ds == 1 && ss == 1)                                                          \
                shmem_alltoall##BITS(d + (size_t)k * (dl + 1), s, n, SET, psync[k]);         \
            else                                                                             \
                shmem_alltoalls##BITS(d + (size_t)k * (dl + 1), s, ds, ss, n, SET,           \
                                      psync[k]);                                             \
        }                                                                                    \
        psync_zero();                                                                        \
        for (int k = 0; k < 2; k++, d += dl + 1)                                             \
            for (size_t e = 0; e <= dl; e++) {                                               \
                size_t el = e / (size_t)ds;                                                  \
                if (e % (size_t)ds || e == dl)                                               \
                    TCHECK(d[e] == (T)GUARD);                                                \
                else                                                                         \
                    TCHECK(d[e] == (T)VAL((int)(el / n) * 8 + s_me, el % n));                \
            }                                                                                \
    }
SIZES(SIZED_TESTS)

static void test_sized(void)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, MAXN };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        cur_n = sizes[si];
        if (cur_n < MAXN) {
            cur = "broadcast32";
            bcast32(cur_n);
            cur = "broadcast64";
            bcast64(cur_n);
        }
        cur = "fcollect32";
        fcollect32(cur_n);
        cur = "fcollect64";
        fcollect64(cur_n);
        cur = "collect32";
        collect32(cur_n);
        cur = "collect64";
        collect64(cur_n);
        cur = "alltoall32";
        alltoall32(cur_n, 1, 1);
        cur = "alltoall64";
        alltoall64(cur_n, 1, 1);
        if (cur_n < MAXN) {
            cur = "alltoalls32";
            alltoall32(cur_n, 2, 3);
            cur = "alltoalls64";
            alltoall64(cur_n, 3, 1);
        }
    }
}

/* Strided alltoalls around SHOAL_COLL_ALLTOALLS_PACK_MIN (32 elements), and at 5000,
 * which over the network the packed path sends in rounds (its box holds 32 KiB of
 * blocks: 4096 4-byte elements per block at 2 PEs); dst 1 packs straight into dest. */
static void test_alltoalls(void)
{
    static const size_t sizes[] = { 31, 32, 33, 5000 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        cur_n = sizes[si];
        cur = "alltoalls32";
        alltoall32(cur_n, 2, 3);
        alltoall32(cur_n, 1, 2);
        cur = "alltoalls64";
        alltoall64(cur_n, 3, 1);
        alltoall64(cur_n, 2, 2);
    }
}

/* Active sets that share a member, with nothing between the calls: PE 2 runs
 * alltoalls64 on {0, 2} and then on {1, 2}, PE 0 the first only (after a pause), PE 1
 * the second only. Over the network both of PE 2's partners send into slot 0 of its
 * set box, so PE 1 must wait until PE 2 has unpacked PE 0's blocks. Element i from
 * world PE f to world PE t: VAL(f * 8 + t, i). */
static void test_shared_box(void)
{
    static const int sets[2][3] = { { 0, 1, 2 }, { 1, 0, 2 } }; /* start, log, 2nd PE */
    const size_t n = 1000, ds = 2, ss = 3, dl = 2 * n * ds, sl = 2 * n * ss;
    uint64_t *s = (uint64_t *)src, *d = (uint64_t *)dst;
    if (npes < 3)
        return;
    cur = "alltoalls64 on sets sharing PE 2";
    cur_n = n;
    s_size = 2;
    for (size_t e = 0; e < 2 * sl; e++)
        s[e] = GUARD;
    for (size_t e = 0; e <= 2 * dl + 1; e++)
        d[e] = GUARD;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (size_t i = 0; i < n; i++)
                s[(size_t)k * sl + ((size_t)j * n + i) * ss] =
                        (uint64_t)VAL(me * 8 + sets[k][j * 2], i);
    shmem_barrier_all();
    if (me == 0)
        usleep(20000); /* PE 1's blocks, if unguarded, would land first */
    for (int k = 0; k < 2; k++)
        if (me == sets[k][0] || me == sets[k][2])
            shmem_alltoalls64(d + (size_t)k * (dl + 1), s + (size_t)k * sl, ds, ss, n,
                              sets[k][0], sets[k][1], 2, psync[k]);
    shmem_barrier_all();
    psync_zero();
    for (int k = 0; k < 2; k++) {
        int member = me == sets[k][0] || me == sets[k][2];
        const uint64_t *e = d + (size_t)k * (dl + 1);
        s_start = sets[k][0];
        s_log = sets[k][1];
        for (size_t x = 0; x <= dl; x++) {
            size_t el = x / ds;
            TCHECK(e[x] ==
                   (member && x < dl && x % ds == 0
                            ? (uint64_t)VAL(sets[k][el / n * 2] * 8 + me, el % n)
                            : (uint64_t)GUARD));
        }
    }
}

/* ---- to_all ---------------------------------------------------------------------- */

typedef void to_all_fn(int n, int inplace);

#define TO_ALL_TEST(T, N, OP)                                                                \
    static void to_all_##N##_##OP(int n, int inplace)                                        \
    {                                                                                        \
        T *s = (T *)src, *d = inplace ? s : (T *)dst, *w = (T *)wrk;                         \
        int need = n / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE                                 \
                ? n / 2 + 1                                                                  \
                : SHMEM_REDUCE_MIN_WRKDATA_SIZE;                                             \
        for (int i = 0; i <= 2 * n + 1; i++)                                                 \
            d[i] = (T)GUARD;                                                                 \
        for (int i = 0; i < n; i++)                                                          \
            s[i] = V_##OP(T, s_me, i);                                                       \
        w[need] = (T)GUARD;                                                                  \
        separate();                                                                          \
        shmem_##N##_##OP##_to_all(d, s, n, SET, w, psync[0]);                                \
        if (!inplace)                                                                        \
            shmem_##N##_##OP##_to_all(d + n + 1, s, n, SET, w, psync[0]);                    \
        psync_zero();                                                                        \
        for (int k = 0; k < 2 - inplace; k++, d += n + 1) {                                  \
            for (int i = 0; i < n; i++) {                                                    \
                T e = V_##OP(T, 0, i);                                                       \
                for (int p = 1; p < s_size; p++)                                             \
                    e = (T)E_##OP(e, V_##OP(T, p, i));                                       \
                TCHECK(d[i] == e);                                                           \
            }                                                                                \
            TCHECK(inplace || d[n] == (T)GUARD);                                             \
        }                                                                                    \
        TCHECK(w[need] == (T)GUARD);                                                         \
    }
#define TO_ALL_BITWISE(T, N)                                                                 \
    TO_ALL_TEST(T, N, and) TO_ALL_TEST(T, N, or) TO_ALL_TEST(T, N, xor)
#define TO_ALL_MINMAX(T, N) TO_ALL_TEST(T, N, max) TO_ALL_TEST(T, N, min)
#define TO_ALL_ARITH(T, N) TO_ALL_TEST(T, N, sum) TO_ALL_TEST(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(TO_ALL_ARITH)

static const struct {
    const char *name;
    to_all_fn *fn;
} to_all[] = {
#define ENTRY(T, N, OP) { #N "_" #OP "_to_all", to_all_##N##_##OP },
#define ENTRY_BITWISE(T, N) ENTRY(T, N, and) ENTRY(T, N, or) ENTRY(T, N, xor)
#define ENTRY_MINMAX(T, N) ENTRY(T, N, max) ENTRY(T, N, min)
#define ENTRY_ARITH(T, N) ENTRY(T, N, sum) ENTRY(T, N, prod)
    SHMEM_TO_ALL_BITWISE_TYPES(ENTRY_BITWISE) SHMEM_TO_ALL_MINMAX_TYPES(ENTRY_MINMAX)
            SHMEM_TO_ALL_ARITH_TYPES(ENTRY_ARITH)
};

static void test_to_all(void)
{
    static const int sizes[] = { 1, 7, 1000 };
    for (size_t k = 0; k < sizeof to_all / sizeof to_all[0]; k++) {
        cur = to_all[k].name;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int inplace = 0; inplace < 2; inplace++)
                to_all[k].fn((int)(cur_n = (size_t)sizes[si]), inplace);
    }
    cur = to_all[0].name;
    to_all[0].fn((int)(cur_n = MAXN), 1);
}

static void run_set(int start, int logstride, int size)
{
    s_start = start;
    s_log = logstride;
    s_size = size;
    s_me = (me - start) >> logstride;
    counter[0] = counter[1] = 0;
    separate();
    test_barrier();
    test_sized();
    test_alltoalls();
    test_to_all();
    separate();
}

int main(void)
{
    coll_init();
    CHECK(npes <= MAXPES);
    src = coll_malloc(BUF);
    dst = coll_malloc(2 * BUF + 64);
    wrk = coll_malloc(BUF);

    run_set(0, 0, npes);
    shmem_barrier_all();
    if (me % 2 == 0)
        run_set(0, 1, (npes + 1) / 2);
    else
        run_set(1, 1, npes / 2);
    shmem_barrier_all();
    test_shared_box();
    cur = "the end";
    psync_zero();
    check_zero(psync_sep[0], SHMEM_BARRIER_SYNC_SIZE);
    check_zero(psync_sep[1], SHMEM_BARRIER_SYNC_SIZE);
    coll_finish("active-set collectives");
    return 0;
}
