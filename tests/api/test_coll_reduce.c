/* Team reductions: every operator on exactly the types of its column
 * (SHMEM_REDUCE_BITWISE/MINMAX/ARITH_TYPES), on SHMEM_TEAM_WORLD and on the odd PEs
 * (split_strided(WORLD, 1, 2, n/2)), at 1, 7, 1000 and 20000 elements (the last two
 * cross the recursive-doubling chunk and the reduce-scatter switch), out of place
 * and in place, plus 0 elements, back-to-back calls into different dests and 100000
 * elements for a few types. Each result is checked against a locally computed fold
 * over the members, with values that cannot overflow and are exact in floating point
 * (complex types get imaginary parts, and a factor i in products). */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "coll_check.h"
#include "coll_teams.h"
#include "coll_values.h"

#define MAXN 100000
#define ESIZE 16
#define NB2B 4
#define BUF (((size_t)MAXN + 1) * ESIZE)
#define GUARD 111

static unsigned char *bufs; /* symmetric: source + NB2B dests, BUF each */
static const char *cur_name = "", *cur_team = "";
static size_t cur_n;
static int cur_inplace;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "%s_reduce of %zu elements%s on the %s team", cur_name, cur_n,
            cur_inplace ? " in place" : "", cur_team);
}

typedef void red_fn(shmem_team_t t, size_t n, int inplace, int nb);

#define RED_TEST(T, N, OP)                                                                   \
    static void red_##N##_##OP(shmem_team_t t, size_t n, int inplace, int nb)                \
    {                                                                                        \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                             \
        T *s = (T *)bufs;                                                                    \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            for (size_t i = 0; i <= n; i++)                                                  \
                d[i] = (T)GUARD;                                                             \
        }                                                                                    \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = V_##OP(T, tme, i);                                                        \
        shmem_team_sync(t);                                                                  \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            TCHECK(shmem_##N##_##OP##_reduce(t, d, s, n) == 0);                              \
        }                                                                                    \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            for (size_t i = 0; i < n; i++) {                                                 \
                T e = V_##OP(T, 0, i);                                                       \
                for (int p = 1; p < tn; p++)                                                 \
                    e = (T)E_##OP(e, V_##OP(T, p, i));                                       \
                TCHECK(d[i] == e);                                                           \
            }                                                                                \
            TCHECK(d[n] == (T)GUARD);                                                        \
        }                                                                                    \
    }
#define RED_BITWISE(T, N) RED_TEST(T, N, and) RED_TEST(T, N, or) RED_TEST(T, N, xor)
#define RED_MINMAX(T, N) RED_TEST(T, N, max) RED_TEST(T, N, min)
#define RED_ARITH(T, N) RED_TEST(T, N, sum) RED_TEST(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(RED_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(RED_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(RED_ARITH)

static const struct {
    const char *name;
    red_fn *fn;
} tests[] = {
#define ENTRY(T, N, OP) { #N "_" #OP, red_##N##_##OP },
#define ENTRY_BITWISE(T, N) ENTRY(T, N, and) ENTRY(T, N, or) ENTRY(T, N, xor)
#define ENTRY_MINMAX(T, N) ENTRY(T, N, max) ENTRY(T, N, min)
#define ENTRY_ARITH(T, N) ENTRY(T, N, sum) ENTRY(T, N, prod)
    SHMEM_REDUCE_BITWISE_TYPES(ENTRY_BITWISE) SHMEM_REDUCE_MINMAX_TYPES(ENTRY_MINMAX)
            SHMEM_REDUCE_ARITH_TYPES(ENTRY_ARITH)
};

static void run(shmem_team_t t, size_t k, size_t n, int inplace, int nb)
{
    cur_name = tests[k].name;
    cur_n = n;
    cur_inplace = inplace;
    tests[k].fn(t, n, inplace, nb);
}

static void test_team(shmem_team_t t, const char *name)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, 20000 };
    cur_team = name;
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int inplace = 0; inplace < 2; inplace++)
                run(t, k, sizes[si], inplace, 1);
        run(t, k, 5, 0, NB2B);
    }
    /* Many chunks of both algorithms, for a few element sizes. */
    static const char *const big[] = { "schar_max",      "int_sum",       "double_sum",
                                       "longdouble_min", "complexd_prod", "uint64_xor" };
    for (size_t k = 0; k < sizeof tests / sizeof tests[0]; k++)
        for (size_t b = 0; b < sizeof big / sizeof big[0]; b++)
            if (!strcmp(tests[k].name, big[b]))
                run(t, k, MAXN, b & 1, 1);
    shmem_team_sync(t);
}

static int call_with(shmem_team_t t)
{
    return shmem_int_sum_reduce(t, (int *)bufs, (int *)bufs, 1);
}

int main(void)
{
    coll_init();
    bufs = coll_malloc((NB2B + 1) * BUF);
    coll_on_teams(test_team, call_with);
    CHECK(shmem_double_max_reduce(SHMEM_TEAM_INVALID, (double *)bufs, (double *)bufs, 1) !=
          0);
    coll_finish("reductions: %zu operator/type pairs", sizeof tests / sizeof tests[0]);
    return 0;
}
