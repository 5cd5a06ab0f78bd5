/* Team broadcast: every T1 type (generated from SHMEM_RMA_TYPES) and broadcastmem, at
 * 0, 1, 7, 1000 and 5000 elements from every root and 100000 from the first and last,
 * on SHMEM_TEAM_WORLD and on the odd PEs (split_strided(WORLD, 1, 2, n/2)). Every
 * member's dest, the root's included, must hold the root's source, and the element
 * past the end must be untouched. Then back-to-back broadcasts from changing roots
 * into different dests, with no synchronization between them, and the return codes
 * for SHMEM_TEAM_INVALID. */
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "coll_check.h"
#include "coll_teams.h"

#define MAXN 100000
#define ESIZE 16 /* the largest T1 type */
#define BUF ((MAXN + 1) * ESIZE)
#define NB2B 5                                         /* back-to-back broadcasts */
#define VAL(pe, i) (((pe)*31 + (long)(i)*7 + 3) % 101) /* exact in every type */
#define GUARD 111

static unsigned char *src, *dst; /* symmetric: BUF and NB2B * BUF bytes */
static const char *cur_type = "", *cur_team = "";
static size_t cur_n;
static int cur_root;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "broadcast of %zu %s on the %s team from root %d", cur_n, cur_type, cur_team,
            cur_root);
}

typedef void bcast_fn(shmem_team_t t, size_t n, int root);
typedef void b2b_fn(shmem_team_t t, size_t n);

#define BCAST_TEST(T, N)                                                                     \
    static void bcast_##N(shmem_team_t t, size_t n, int root)                                \
    {                                                                                        \
        T *s = (T *)src, *d = (T *)dst;                                                      \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = (T)VAL(shmem_team_my_pe(t), i);                                           \
        for (size_t i = 0; i <= n; i++)                                                      \
            d[i] = (T)GUARD;                                                                 \
        shmem_team_sync(t);                                                                  \
        TCHECK(shmem_##N##_broadcast(t, d, s, n, root) == 0);                                \
        for (size_t i = 0; i < n; i++)                                                       \
            TCHECK(d[i] == (T)VAL(root, i));                                                 \
        TCHECK(d[n] == (T)GUARD);                                                            \
    }                                                                                        \
    static void b2b_##N(shmem_team_t t, size_t n)                                            \
    {                                                                                        \
        int tn = shmem_team_n_pes(t);                                                        \
        T *s = (T *)src;                                                                     \
        for (size_t i = 0; i < n; i++)                                                       \
            s[i] = (T)VAL(shmem_team_my_pe(t), i);                                           \
        for (int k = 0; k < NB2B; k++)                                                       \
            for (size_t i = 0; i < n; i++)                                                   \
                ((T *)(dst + (size_t)k * BUF))[i] = (T)GUARD;                                \
        shmem_team_sync(t);                                                                  \
        for (int k = 0; k < NB2B; k++)                                                       \
            TCHECK(shmem_##N##_broadcast(t, (T *)(dst + (size_t)k * BUF), s, n,              \
                                         (k * 3) % tn) == 0);                                \
        for (int k = 0; k < NB2B; k++) {                                                     \
            cur_root = (k * 3) % tn;                                                         \
            for (size_t i = 0; i < n; i++)                                                   \
                TCHECK(((T *)(dst + (size_t)k * BUF))[i] == (T)VAL(cur_root, i));            \
        }                                                                                    \
    }
SHMEM_RMA_TYPES(BCAST_TEST)

static const struct {
    const char *name;
    bcast_fn *bcast;
    b2b_fn *b2b;
} types[] = {
#define BCAST_ENTRY(T, N) { #N, bcast_##N, b2b_##N },
    SHMEM_RMA_TYPES(BCAST_ENTRY)
};

static void test_mem(shmem_team_t t, size_t n, int root)
{
    cur_type = "bytes (broadcastmem)";
    for (size_t i = 0; i < n; i++)
        src[i] = (unsigned char)VAL(shmem_team_my_pe(t), i);
    for (size_t i = 0; i <= n; i++)
        dst[i] = GUARD;
    shmem_team_sync(t);
    TCHECK(shmem_broadcastmem(t, dst, src, n, root) == 0);
    for (size_t i = 0; i < n; i++)
        TCHECK(dst[i] == VAL(root, i));
    TCHECK(dst[n] == GUARD);
}

static void test_team(shmem_team_t t, const char *name)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, 5000, MAXN };
    int tn = shmem_team_n_pes(t);
    cur_team = name;
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cur_type = types[ti].name;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            cur_n = sizes[si];
            for (int root = 0; root < tn; root++) {
                if (cur_n == MAXN && root != 0 && root != tn - 1)
                    continue;
                cur_root = root;
                types[ti].bcast(t, cur_n, root);
            }
        }
        cur_n = 7;
        types[ti].b2b(t, cur_n);
        cur_n = 40000; /* scatter + ring for every type of two bytes or more */
        types[ti].b2b(t, cur_n);
    }
    for (int root = 0; root < tn; root++) {
        cur_root = root;
        test_mem(t, cur_n = 3, root);
        test_mem(t, cur_n = 70000, root);
    }
    shmem_team_sync(t);
}

static int call_with(shmem_team_t t)
{
    return shmem_int_broadcast(t, (int *)dst, (int *)src, 1, 0);
}

int main(void)
{
    coll_init();
    src = coll_malloc(BUF);
    dst = coll_malloc(NB2B * BUF);
    coll_on_teams(test_team, call_with);
    CHECK(shmem_broadcastmem(SHMEM_TEAM_INVALID, dst, src, 1, 0) != 0);
    coll_finish("broadcast: %zu types", sizeof types / sizeof types[0]);
    return 0;
}
