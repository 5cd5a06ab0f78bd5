/* Team collect and fcollect: every T1 type (generated from SHMEM_RMA_TYPES) and the
 * mem forms, on SHMEM_TEAM_WORLD and on the odd PEs (split_strided(WORLD, 1, 2, n/2)).
 * fcollect at 0, 1, 7, 1000 and 100000 elements per PE; collect with per-PE counts
 * that differ (some zero, all zero, and thousands). dest must hold every member's
 * block in member order and nothing past the end. Then back-to-back calls into
 * different dests with no synchronization between them. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "coll_check.h"
#include "coll_teams.h"

#define MAXN 100000
#define MAXPES 8
#define ESIZE 16
#define NB2B 4
#define SRCBUF ((size_t)MAXN * ESIZE)
#define DSTBUF (((size_t)MAXN * MAXPES + 1) * ESIZE)
#define VAL(pe, i) (((pe)*31 + (long)(i)*7 + 3) % 101)
#define GUARD 111

static unsigned char *src, *dst;
static const char *cur_type = "", *cur_team = "", *cur_op = "";
static size_t cur_n;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "%s of %s, size pattern %zu, on the %s team", cur_op, cur_type, cur_n,
            cur_team);
}

/* collect's count for member p under pattern k (k = 0: all zero). */
static size_t count_of(int p, size_t k)
{
    switch (k) {
    case 0: return 0;
    case 1: return (size_t)(p * 5 + 1) % 4; /* includes zeros */
    case 2: return p == 1 ? 7 : 0;          /* a single contributor */
    default: return 1000 * (size_t)(p % 3 + 1) + (size_t)p;
    }
}

typedef void fn_t(shmem_team_t t, size_t k, int nb);

#define COLLECT_TEST(T, N)                                                                   \
    /* nb calls back to back into dests nb apart; all counts nelems (fcollect) */            \
    static void fcollect_##N(shmem_team_t t, size_t n, int nb)                               \
    {                                                                                        \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                             \
        T *s = (T *)src;                                                                     \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = (T)VAL(tme, i);                                                           \
        for (int b = 0; b < nb; b++)                                                         \
            for (size_t i = 0; i <= n * (size_t)tn; i++)                                     \
                ((T *)(dst + (size_t)b * DSTBUF))[i] = (T)GUARD;                             \
        shmem_team_sync(t);                                                                  \
        for (int b = 0; b < nb; b++)                                                         \
            TCHECK(shmem_##N##_fcollect(t, (T *)(dst + (size_t)b * DSTBUF), s, n) == 0);     \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = (T *)(dst + (size_t)b * DSTBUF);                                          \
            for (int p = 0; p < tn; p++)                                                     \
                for (size_t i = 0; i < n; i++)                                               \
                    TCHECK(d[(size_t)p * n + i] == (T)VAL(p, i));                            \
            TCHECK(d[n * (size_t)tn] == (T)GUARD);                                           \
        }                                                                                    \
    }                                                                                        \
    static void collect_##N(shmem_team_t t, size_t k, int nb)                                \
    {                                                                                        \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                             \
        size_t total = 0;                                                                    \
        for (int p = 0; p < tn; p++)                                                         \
            total += count_of(p, k);                                                         \
        T *s = (T *)src;                                                                     \
        for (size_t i = 0; i < count_of(tme, k); i++)                                        \
            s[i] = (T)VAL(tme, i);                                                           \
        for (int b = 0; b < nb; b++)                                                         \
            for (size_t i = 0; i <= total; i++)                                              \
                ((T *)(dst + (size_t)b * DSTBUF))[i] = (T)GUARD;                             \
        shmem_team_sync(t);                                                                  \
        for (int b = 0; b < nb; b++)                                                         \
            TCHECK(shmem_##N##_collect(t, (T *)(dst + (size_t)b * DSTBUF), s,                \
                                       count_of(tme, k)) == 0);                              \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = (T *)(dst + (size_t)b * DSTBUF);                                          \
            for (int p = 0; p < tn; p++)                                                     \
                for (size_t i = 0; i < count_of(p, k); i++, d++)                             \
                    TCHECK(*d == (T)VAL(p, i));                                              \
            TCHECK(*d == (T)GUARD);                                                          \
        }                                                                                    \
    }
SHMEM_RMA_TYPES(COLLECT_TEST)

static const struct {
    const char *name;
    fn_t *fcollect, *collect;
} types[] = {
#define COLLECT_ENTRY(T, N) { #N, fcollect_##N, collect_##N },
    SHMEM_RMA_TYPES(COLLECT_ENTRY)
};

static void test_mem(shmem_team_t t)
{
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    size_t mine = (size_t)tme * 3 + 1, total = 0;
    cur_type = "bytes";
    for (size_t i = 0; i < mine || i < 5; i++)
        src[i] = (unsigned char)VAL(tme, i);
    for (size_t i = 0; i <= 5 * (size_t)tn + (size_t)tn * (size_t)tn * 3; i++)
        dst[i] = GUARD;
    shmem_team_sync(t);
    cur_op = "fcollectmem";
    TCHECK(shmem_fcollectmem(t, dst, src, 5) == 0);
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < 5; i++)
            TCHECK(dst[(size_t)p * 5 + i] == VAL(p, i));
    TCHECK(dst[5 * (size_t)tn] == GUARD);
    shmem_team_sync(t);
    cur_op = "collectmem";
    TCHECK(shmem_collectmem(t, dst, src, mine) == 0);
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < (size_t)p * 3 + 1; i++, total++)
            TCHECK(dst[total] == VAL(p, i));
    shmem_team_sync(t);
}

static void test_team(shmem_team_t t, const char *name)
{
    static const size_t fsizes[] = { 0, 1, 7, 1000, MAXN };
    cur_team = name;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cur_type = types[ti].name;
        cur_op = "fcollect";
        for (size_t si = 0; si < sizeof fsizes / sizeof fsizes[0]; si++)
            types[ti].fcollect(t, cur_n = fsizes[si], 1);
        types[ti].fcollect(t, cur_n = 3, NB2B);
        cur_op = "collect";
        for (size_t k = 0; k < 4; k++)
            types[ti].collect(t, cur_n = k, 1);
        types[ti].collect(t, cur_n = 1, NB2B);
        types[ti].collect(t, cur_n = 3, 2);
    }
    test_mem(t);
}

static int call_with(shmem_team_t t)
{
    return shmem_int_collect(t, (int *)dst, (int *)src, 1);
}

int main(void)
{
    coll_init();
    CHECK(npes <= MAXPES);
    src = coll_malloc(SRCBUF);
    dst = coll_malloc(NB2B * DSTBUF);
    coll_on_teams(test_team, call_with);
    CHECK(shmem_fcollectmem(SHMEM_TEAM_INVALID, dst, src, 1) != 0);
    CHECK(shmem_collectmem(SHMEM_TEAM_INVALID, dst, src, 1) != 0);
    coll_finish("collect/fcollect: %zu types", sizeof types / sizeof types[0]);
    return 0;
}
