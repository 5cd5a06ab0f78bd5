/* The C11 type-generic collective names on SHMEM_TEAM_WORLD, for every type of the
 * spec's tables, typedefs such as int8_t and size_t included: shmem_broadcast,
 * collect, fcollect, alltoall and alltoalls (SHMEM_RMA_TYPES);
 * shmem_and/or/xor/max/min/sum/prod_reduce and shmem_sum_inscan/exscan (the
 * SHMEM_REDUCE_* columns); and shmem_sync on a team. (The tests are generated from
 * the full tables, not the C11 ones: a generic call cannot sit inside an expansion of
 * the table it dispatches on.) A call dispatched to another type's routine moves the wrong
 * number of bytes (caught by a guard element past the end) or folds with the wrong
 * arithmetic (signed, real and complex values make max/min/sum/prod differ). */
#include <complex.h>
#include <shmem.h>
#include <stdio.h>

#include "check.h"
#include "coll_check.h"

#define N 3      /* elements per PE, or per block */
#define SST 3    /* alltoalls source stride */
#define DST 2    /* alltoalls dest stride */
#define BUF 4096 /* bytes of each symmetric buffer */
#define GUARD 99

static void *src, *dst; /* symmetric, BUF bytes each */
static const char *cur = "";

static void coll_describe(FILE *out)
{
    fprintf(out, "testing %s", cur);
}

/* Nonnegative, below 128, so every type holds it exactly. */
#define V(p, i) ((((p)*16 + (i)) % 120) + 1)

#define IS_SIGNED(T) (creall((long double _Complex)(T)-1) < 0)
#define IS_REAL(T) (creall((long double _Complex)(T)0.5) != 0)
#define IMAG(T) _Generic((T)0, double _Complex : I, float _Complex : I, default : 0)

/* Reduction inputs: member p's element i, chosen per operator so that results are
 * exact and fit every type of the operator's column. */
#define R_and(T, p, i) ((T)(127 & ~(1 << ((p) + (i)) % 7)))
#define R_or(T, p, i) ((T)(1 << ((p) + (i)) % 7))
#define R_xor(T, p, i) ((T)(((p)*37 + (i)*11 + 5) % 127))
#define R_max(T, p, i)                                                                       \
    ((T)(((p)*37 + (i)*11 + 5) % 101 - (IS_SIGNED(T) ? 50 : 0)) + (T)(IS_REAL(T) ? 0.5 : 0))
#define R_min R_max
#define R_sum(T, p, i)                                                                       \
    ((T)(((p) + (i)) % 5 - (IS_SIGNED(T) ? 2 : 0)) + (T)(IS_REAL(T) ? 0.25 : 0) +            \
     (T)(((p) % 3) * IMAG(T)))
#define R_prod(T, p, i) ((T)((((p) + (i)) % 4 == 0) ? 2 : 1) + (T)(((p) == 1) * IMAG(T)))
#define F_and(a, b) ((a) & (b))
#define F_or(a, b) ((a) | (b))
#define F_xor(a, b) ((a) ^ (b))
#define F_max(a, b) ((a) > (b) ? (a) : (b))
#define F_min(a, b) ((a) < (b) ? (a) : (b))
#define F_sum(a, b) ((a) + (b))
#define F_prod(a, b) ((a) * (b))

/* ---- Data movement: one function per type of SHMEM_RMA_TYPES ------------------- */
#define MOVE_TEST(T, NAME)                                                                   \
    static void move_##NAME(void)                                                            \
    {                                                                                        \
        T *s = src, *d = dst;                                                                \
        const int root = npes - 1;                                                           \
        size_t all = (size_t)npes * N, tri = (size_t)npes * (npes + 1) / 2;                  \
        cur = "shmem_broadcast(" #T ")";                                                     \
        for (int i = 0; i < N; i++)                                                          \
            s[i] = (T)V(me, i);                                                              \
        for (int i = 0; i <= N; i++)                                                         \
            d[i] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_broadcast(SHMEM_TEAM_WORLD, d, s, N, root) == 0);                       \
        for (int i = 0; i < N; i++)                                                          \
            TCHECK(d[i] == (T)V(root, i));                                                   \
        TCHECK(d[N] == (T)GUARD);                                                            \
        shmem_barrier_all();                                                                 \
                                                                                             \
        cur = "shmem_fcollect(" #T ")";                                                      \
        for (size_t e = 0; e <= all; e++)                                                    \
            d[e] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_fcollect(SHMEM_TEAM_WORLD, d, s, N) == 0);                              \
        for (size_t e = 0; e < all; e++)                                                     \
            TCHECK(d[e] == (T)V((int)(e / N), (int)(e % N)));                                \
        TCHECK(d[all] == (T)GUARD);                                                          \
        shmem_barrier_all();                                                                 \
                                                                                             \
        /* PE p contributes p + 1 elements, so block p starts at p(p+1)/2. */                \
        cur = "shmem_collect(" #T ")";                                                       \
        for (int i = 0; i <= me; i++)                                                        \
            s[i] = (T)V(me, i);                                                              \
        for (size_t e = 0; e <= tri; e++)                                                    \
            d[e] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_collect(SHMEM_TEAM_WORLD, d, s, (size_t)me + 1) == 0);                  \
        for (int p = 0; p < npes; p++)                                                       \
            for (int i = 0; i <= p; i++)                                                     \
                TCHECK(d[p * (p + 1) / 2 + i] == (T)V(p, i));                                \
        TCHECK(d[tri] == (T)GUARD);                                                          \
        shmem_barrier_all();                                                                 \
                                                                                             \
        /* Block j of PE p's source lands in block p of PE j's dest. */                      \
        cur = "shmem_alltoall(" #T ")";                                                      \
        for (size_t e = 0; e < all; e++)                                                     \
            s[e] = (T)V(me, (int)e);                                                         \
        for (size_t e = 0; e <= all; e++)                                                    \
            d[e] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_alltoall(SHMEM_TEAM_WORLD, d, s, N) == 0);                              \
        for (int p = 0; p < npes; p++)                                                       \
            for (int i = 0; i < N; i++)                                                      \
                TCHECK(d[p * N + i] == (T)V(p, me * N + i));                                 \
        TCHECK(d[all] == (T)GUARD);                                                          \
        shmem_barrier_all();                                                                 \
                                                                                             \
        cur = "shmem_alltoalls(" #T ")";                                                     \
        for (size_t e = 0; e < all * SST; e++)                                               \
            s[e] = (T)GUARD;                                                                 \
        for (size_t e = 0; e < all; e++)                                                     \
            s[e * SST] = (T)V(me, (int)e);                                                   \
        for (size_t e = 0; e <= all * DST; e++)                                              \
            d[e] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_alltoalls(SHMEM_TEAM_WORLD, d, s, DST, SST, N) == 0);                   \
        for (size_t e = 0; e <= all * DST; e++) {                                            \
            size_t el = e / DST;                                                             \
            if (e % DST || e == all * DST)                                                   \
                TCHECK(d[e] == (T)GUARD);                                                    \
            else                                                                             \
                TCHECK(d[e] == (T)V((int)(el / N), me * N + (int)(el % N)));                 \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
    }
SHMEM_RMA_TYPES(MOVE_TEST)

/* ---- Reductions and scans: one function per operator and type ------------------- */
#define REDUCE_TEST(T, NAME, OP)                                                             \
    static void OP##_##NAME(void)                                                            \
    {                                                                                        \
        T *s = src, *d = dst;                                                                \
        cur = "shmem_" #OP "_reduce(" #T ")";                                                \
        for (int i = 0; i < N; i++)                                                          \
            s[i] = R_##OP(T, me, i);                                                         \
        for (int i = 0; i <= N; i++)                                                         \
            d[i] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_##OP##_reduce(SHMEM_TEAM_WORLD, d, s, N) == 0);                         \
        for (int i = 0; i < N; i++) {                                                        \
            T want = R_##OP(T, 0, i);                                                        \
            for (int p = 1; p < npes; p++)                                                   \
                want = F_##OP(want, R_##OP(T, p, i));                                        \
            TCHECK(d[i] == want);                                                            \
        }                                                                                    \
        TCHECK(d[N] == (T)GUARD);                                                            \
        shmem_barrier_all();                                                                 \
    }
#define SCAN_TEST(T, NAME, KIND, FIRST_EXCLUDED)                                             \
    static void KIND##_##NAME(void)                                                          \
    {                                                                                        \
        T *s = src, *d = dst;                                                                \
        cur = "shmem_sum_" #KIND "(" #T ")";                                                 \
        for (int i = 0; i < N; i++)                                                          \
            s[i] = R_sum(T, me, i);                                                          \
        for (int i = 0; i <= N; i++)                                                         \
            d[i] = (T)GUARD;                                                                 \
        shmem_barrier_all();                                                                 \
        TCHECK(shmem_sum_##KIND(SHMEM_TEAM_WORLD, d, s, N) == 0);                            \
        for (int i = 0; i < N; i++) {                                                        \
            T want = 0;                                                                      \
            for (int p = 0; p < me + 1 - (FIRST_EXCLUDED); p++)                              \
                want += R_sum(T, p, i);                                                      \
            TCHECK(d[i] == want);                                                            \
        }                                                                                    \
        TCHECK(d[N] == (T)GUARD);                                                            \
        shmem_barrier_all();                                                                 \
    }
#define BITWISE_TESTS(T, NAME)                                                               \
    REDUCE_TEST(T, NAME, and) REDUCE_TEST(T, NAME, or) REDUCE_TEST(T, NAME, xor)
#define MINMAX_TESTS(T, NAME) REDUCE_TEST(T, NAME, max) REDUCE_TEST(T, NAME, min)
#define ARITH_TESTS(T, NAME)                                                                 \
    REDUCE_TEST(T, NAME, sum)                                                                \
    REDUCE_TEST(T, NAME, prod) SCAN_TEST(T, NAME, inscan, 0) SCAN_TEST(T, NAME, exscan, 1)
SHMEM_REDUCE_BITWISE_TYPES(BITWISE_TESTS)
SHMEM_REDUCE_MINMAX_TYPES(MINMAX_TESTS)
SHMEM_REDUCE_ARITH_TYPES(ARITH_TESTS)

static void (*const tests[])(void) = {
#define MOVE_ENTRY(T, NAME) move_##NAME,
#define BITWISE_ENTRIES(T, NAME) and_##NAME, or_##NAME, xor_##NAME,
#define MINMAX_ENTRIES(T, NAME) max_##NAME, min_##NAME,
#define ARITH_ENTRIES(T, NAME) sum_##NAME, prod_##NAME, inscan_##NAME, exscan_##NAME,
    SHMEM_RMA_TYPES(MOVE_ENTRY) SHMEM_REDUCE_BITWISE_TYPES(BITWISE_ENTRIES)
            SHMEM_REDUCE_MINMAX_TYPES(MINMAX_ENTRIES) SHMEM_REDUCE_ARITH_TYPES(ARITH_ENTRIES)
};

/* shmem_sync(team) is the team sync; the generic call returns its int status. */
static void sync_team(void)
{
    static long arrived;
    cur = "shmem_sync(team)";
    shmem_long_atomic_inc(&arrived, 0);
    shmem_quiet();
    _Static_assert(_Generic(shmem_sync(SHMEM_TEAM_WORLD), int : 1, default : 0),
                   "shmem_sync(team) returns int");
    TCHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    if (me == 0)
        TCHECK(shmem_long_atomic_fetch(&arrived, 0) == npes);
    shmem_barrier_all();
}

int main(void)
{
    coll_init();
    src = coll_malloc(BUF);
    dst = coll_malloc(BUF);
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++)
        tests[k]();
    sync_team();
    coll_finish("coll_generic: %zu generic collective tests", sizeof tests / sizeof tests[0]);
    return 0;
}
