/* 1.6 prefix sums, shmem_TYPENAME_sum_inscan / sum_exscan, for every type of the SUM
 * column (SHMEM_REDUCE_ARITH_TYPES), on SHMEM_TEAM_WORLD and on the odd PEs
 * (split_strided(WORLD, 1, 2, n/2)), at 0, 1, 7, 1000 and 20000 elements (many
 * channel chunks), out of place and in place, and back-to-back calls into different
 * dests. Member i must get the sum over members 0..i (inscan) or 0..i-1 (exscan;
 * member 0 gets 0), with values exact in every type. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "coll_check.h"
#include "coll_teams.h"
#include "coll_values.h"

#define MAXN 20000
#define ESIZE 16
#define NB2B 4
#define BUF (((size_t)MAXN + 1) * ESIZE)
#define GUARD 111

static unsigned char *bufs; /* symmetric: source + NB2B dests */
static const char *cur_name = "", *cur_team = "", *cur_op = "";
static size_t cur_n;
static int cur_inplace;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "%s_%s of %zu elements%s on the %s team", cur_name, cur_op, cur_n,
            cur_inplace ? " in place" : "", cur_team);
}

/* Member p's element i: small enough that eight of them fit in a signed char. */
#define V(T, p, i)                                                                           \
    ((T)(((long)(p)*5 + (long)(i)*3) % 15 - (IS_SIGNED(T) ? 7 : 0)) +                        \
     (T)((((long)(p) + (long)(i)) % 4) * IMAG(T)))

typedef void scan_fn(shmem_team_t t, size_t n, int inplace, int exclusive, int nb);

#define SCAN_TEST(T, N)                                                                      \
    static void scan_##N(shmem_team_t t, size_t n, int inplace, int exclusive, int nb)       \
    {                                                                                        \
        int tme = shmem_team_my_pe(t);                                                       \
        T *s = (T *)bufs;                                                                    \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            for (size_t i = 0; i <= n; i++)                                                  \
                d[i] = (T)GUARD;                                                             \
        }                                                                                    \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = V(T, tme, i);                                                             \
        shmem_team_sync(t);                                                                  \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            if (exclusive)                                                                   \
                TCHECK(shmem_##N##_sum_exscan(t, d, s, n) == 0);                             \
            else                                                                             \
                TCHECK(shmem_##N##_sum_inscan(t, d, s, n) == 0);                             \
        }                                                                                    \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = inplace ? s : (T *)(bufs + (size_t)(b + 1) * BUF);                        \
            for (size_t i = 0; i < n; i++) {                                                 \
                T e = 0;                                                                     \
                for (int p = 0; p < tme + !exclusive; p++)                                   \
                    e += V(T, p, i);                                                         \
                TCHECK(d[i] == e);                                                           \
            }                                                                                \
            TCHECK(d[n] == (T)GUARD);                                                        \
        }                                                                                    \
    }
SHMEM_REDUCE_ARITH_TYPES(SCAN_TEST)

static const struct {
    const char *name;
    scan_fn *fn;
} types[] = {
#define SCAN_ENTRY(T, N) { #N, scan_##N },
    SHMEM_REDUCE_ARITH_TYPES(SCAN_ENTRY)
};

static void test_team(shmem_team_t t, const char *name)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, MAXN };
    cur_team = name;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        cur_name = types[k].name;
        for (int ex = 0; ex < 2; ex++) {
            cur_op = ex ? "exscan" : "inscan";
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
                for (cur_inplace = 0; cur_inplace < 2; cur_inplace++)
                    types[k].fn(t, cur_n = sizes[si], cur_inplace, ex, 1);
            cur_inplace = 0;
            types[k].fn(t, cur_n = 9, 0, ex, NB2B);
        }
    }
    shmem_team_sync(t);
}

static int call_with(shmem_team_t t)
{
    return shmem_int_sum_inscan(t, (int *)bufs, (int *)bufs, 1);
}

int main(void)
{
    coll_init();
    bufs = coll_malloc((NB2B + 1) * BUF);
    coll_on_teams(test_team, call_with);
    CHECK(shmem_double_sum_exscan(SHMEM_TEAM_INVALID, (double *)bufs, (double *)bufs, 1) !=
          0);
    coll_finish("scans: %zu types", sizeof types / sizeof types[0]);
    return 0;
}
