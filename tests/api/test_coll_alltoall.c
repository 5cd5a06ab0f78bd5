/* Team alltoall and alltoalls: every T1 type (generated from SHMEM_RMA_TYPES) and the
 * mem forms, on SHMEM_TEAM_WORLD and on the odd PEs (split_strided(WORLD, 1, 2, n/2)),
 * at 0, 1, 7, 1000 and 100000 elements per block; alltoalls with contiguous and
 * strided layouts (the elements between strided ones must stay untouched) at 0, 1
 * and 7 elements for every type and at 1000 for the first type of each element size
 * (types of one size take the same path; over the network a strided block is a
 * message per element, and all 24 types at 1000 made this test about 30 s longer at
 * 8 PEs over tcp on 2 cores). Block j of member i's source must land in block i of
 * member j's dest. Then back-to-back calls into different dests with no
 * synchronization between them. */
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
#define NB2B 3
#define BUF (((size_t)MAXN * MAXPES + 1) * ESIZE)
#define SBUF (((size_t)1000 * MAXPES * 3 + 1) * ESIZE) /* strided: up to 1000 x stride 3 */
/* Element i of the block member `from` sends to member `to`: exact in every type. */
#define VAL(from, to, i) (((from)*31 + (to)*17 + (long)(i)*7 + 3) % 101)
#define GUARD 111

static unsigned char *src, *dst;
static const char *cur_type = "", *cur_team = "", *cur_op = "";
static size_t cur_n;

/* Evaluates c once: it may be a collective call. */
static void coll_describe(FILE *out)
{
    fprintf(out, "%s of %zu %s per block on the %s team", cur_op, cur_n, cur_type, cur_team);
}

typedef void fn_t(shmem_team_t t, size_t n, int nb);
typedef void sfn_t(shmem_team_t t, size_t n, ptrdiff_t dst_stride, ptrdiff_t src_stride);

#define ALLTOALL_TEST(T, N)                                                                  \
    static void alltoall_##N(shmem_team_t t, size_t n, int nb)                               \
    {                                                                                        \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                             \
        T *s = (T *)src;                                                                     \
        for (int j = 0; j < tn; j++)                                                         \
            for (size_t i = 0; i < n; i++)                                                   \
                s[(size_t)j * n + i] = (T)VAL(tme, j, i);                                    \
        for (int b = 0; b < nb; b++)                                                         \
            for (size_t i = 0; i <= n * (size_t)tn; i++)                                     \
                ((T *)(dst + (size_t)b * BUF))[i] = (T)GUARD;                                \
        shmem_team_sync(t);                                                                  \
        for (int b = 0; b < nb; b++)                                                         \
            TCHECK(shmem_##N##_alltoall(t, (T *)(dst + (size_t)b * BUF), s, n) == 0);        \
        for (int b = 0; b < nb; b++) {                                                       \
            T *d = (T *)(dst + (size_t)b * BUF);                                             \
            for (int p = 0; p < tn; p++)                                                     \
                for (size_t i = 0; i < n; i++)                                               \
                    TCHECK(d[(size_t)p * n + i] == (T)VAL(p, tme, i));                       \
            TCHECK(d[n * (size_t)tn] == (T)GUARD);                                           \
        }                                                                                    \
    }                                                                                        \
    static void alltoalls_##N(shmem_team_t t, size_t n, ptrdiff_t ds, ptrdiff_t ss)          \
    {                                                                                        \
        int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);                             \
        size_t dlen = n * (size_t)tn * (size_t)ds, slen = n * (size_t)tn * (size_t)ss;       \
        T *s = (T *)src, *d = (T *)dst;                                                      \
        for (size_t e = 0; e < slen; e++)                                                    \
            s[e] = (T)GUARD;                                                                 \
        for (int j = 0; j < tn; j++)                                                         \
            for (size_t i = 0; i < n; i++)                                                   \
                s[((size_t)j * n + i) * (size_t)ss] = (T)VAL(tme, j, i);                     \
        for (size_t e = 0; e <= dlen; e++)                                                   \
            d[e] = (T)GUARD;                                                                 \
        shmem_team_sync(t);                                                                  \
        TCHECK(shmem_##N##_alltoalls(t, d, s, ds, ss, n) == 0);                              \
        for (size_t e = 0; e <= dlen; e++) {                                                 \
            size_t el = e / (size_t)ds;                                                      \
            int p = n ? (int)(el / n) : 0;                                                   \
            if (e % (size_t)ds || e == dlen)                                                 \
                TCHECK(d[e] == (T)GUARD);                                                    \
            else                                                                             \
                TCHECK(d[e] == (T)VAL(p, tme, el % n));                                      \
        }                                                                                    \
        shmem_team_sync(t);                                                                  \
    }
SHMEM_RMA_TYPES(ALLTOALL_TEST)

static const struct {
    const char *name;
    fn_t *alltoall;
    sfn_t *alltoalls;
    size_t size;
} types[] = {
#define ALLTOALL_ENTRY(T, N) { #N, alltoall_##N, alltoalls_##N, sizeof(T) },
    SHMEM_RMA_TYPES(ALLTOALL_ENTRY)
};

static void test_mem(shmem_team_t t)
{
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    const size_t n = 5;
    cur_type = "bytes";
    cur_n = n;
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < n; i++) {
            src[(size_t)j * n + i] = (unsigned char)VAL(tme, j, i);
            src[n * (size_t)tn + ((size_t)j * n + i) * 2] = (unsigned char)VAL(tme, j, i);
        }
    shmem_team_sync(t);
    cur_op = "alltoallmem";
    TCHECK(shmem_alltoallmem(t, dst, src, n) == 0);
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < n; i++)
            TCHECK(dst[(size_t)p * n + i] == VAL(p, tme, i));
    shmem_team_sync(t);
    cur_op = "alltoallsmem";
    TCHECK(shmem_alltoallsmem(t, dst, src + n * (size_t)tn, 3, 2, n) == 0);
    for (int p = 0; p < tn; p++)
        for (size_t i = 0; i < n; i++)
            TCHECK(dst[((size_t)p * n + i) * 3] == VAL(p, tme, i));
    shmem_team_sync(t);
}

static void test_team(shmem_team_t t, const char *name)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, MAXN };
    static const size_t ssizes[] = { 0, 1, 7, 1000 };
    static const ptrdiff_t strides[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 3, 2 } };
    cur_team = name;
    unsigned sizes_seen = 0; /* bit s: a type of s bytes ran the largest alltoalls */
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cur_type = types[ti].name;
        cur_op = "alltoall";
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            types[ti].alltoall(t, cur_n = sizes[si], 1);
        types[ti].alltoall(t, cur_n = 7, NB2B);
        cur_op = "alltoalls";
        size_t nsizes = sizeof ssizes / sizeof ssizes[0];
        if (sizes_seen & (1u << types[ti].size))
            nsizes--;
        sizes_seen |= 1u << types[ti].size;
        for (size_t si = 0; si < nsizes; si++)
            for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++)
                types[ti].alltoalls(t, cur_n = ssizes[si], strides[k][0], strides[k][1]);
    }
    test_mem(t);
}

static int call_with(shmem_team_t t)
{
    return shmem_int_alltoall(t, (int *)dst, (int *)src, 1);
}

int main(void)
{
    coll_init();
    CHECK(npes <= MAXPES && SBUF <= BUF);
    src = coll_malloc(BUF);
    dst = coll_malloc(NB2B * BUF);
    coll_on_teams(test_team, call_with);
    CHECK(shmem_alltoallmem(SHMEM_TEAM_INVALID, dst, src, 1) != 0);
    coll_finish("alltoall(s): %zu types", sizeof types / sizeof types[0]);
    return 0;
}
