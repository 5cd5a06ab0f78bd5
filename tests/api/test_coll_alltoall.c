/* Team alltoall and alltoalls: every T1 type (generated from SHMEM_RMA_TYPES) and the
 * mem forms, on SHMEM_TEAM_WORLD, on the odd PEs (split_strided(WORLD, 1, 2, n/2))
 * and, from 3 PEs, on a team of three (PEs 1, 3, 5 from 6 PEs, else 0, 1, 2: a
 * strided subset and a team size that is no power of two). alltoall at 0, 1, 7, 1000
 * and 100000 elements per block (0, 1 and 7 on the team of three); alltoalls with
 * contiguous and strided layouts (dst, sst: 1 1, 2 1, 1 3, 3 2; the elements between
 * strided ones must stay untouched) at 0, 1 and 7 elements for every type, and at 1000
 * and 4000 for the first type of each element size (1, 2, 4, 8, 16 bytes; types of
 * one size take the same path), which over the network take the packed path
 * (alltoall.c), 4000 in several rounds. Block j of member i's source must land in
 * block i of member j's dest. Then back-to-back calls into different dests with no
 * synchronization between them, and strided ones between reductions and a
 * broadcast on the same team, which use the same scratch. */
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
#define SMAX 4000 /* strided: up to SMAX elements per block, stride 3 */
#define SBUF (((size_t)SMAX * MAXPES * 3 + 1) * ESIZE)
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

/* Strided alltoalls (8-byte elements, sst 2) into three dests, between two sum
 * reductions (one through the channels, one through the scratch inbox) and a
 * broadcast, with no synchronization between the calls: the packed path shares the
 * team's scratch with them. */
#define MIX_RED_SMALL 700
#define MIX_RED_LARGE 3000
#define MIX_BCAST 500
static long red_src[MIX_RED_LARGE], red_dst[2][MIX_RED_LARGE], bc_src[MIX_BCAST],
        bc_dst[MIX_BCAST];

static void test_mixed(shmem_team_t t)
{
    static const struct {
        size_t n;
        ptrdiff_t ds;
    } calls[] = { { 1000, 3 }, { 7, 2 }, { 3000, 2 }, { 1000, 1 } };
    const ptrdiff_t ss = 2;
    int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
    int64_t *s = (int64_t *)src;
    size_t ncalls = sizeof calls / sizeof calls[0];
    cur_type = "int64";
    cur_op = "alltoalls between reductions and a broadcast";
    cur_n = 0;
    for (size_t c = 0; c < ncalls; c++) {
        int64_t *d = (int64_t *)(dst + c * SBUF);
        for (size_t e = 0; e <= calls[c].n * (size_t)tn * (size_t)calls[c].ds; e++)
            d[e] = GUARD;
    }
    for (size_t e = 0; e < (size_t)SMAX * (size_t)tn * (size_t)ss; e++)
        s[e] = GUARD;
    for (int j = 0; j < tn; j++)
        for (size_t i = 0; i < 3000; i++)
            s[((size_t)j * 3000 + i) * (size_t)ss] = VAL(tme, j, i);
    for (size_t i = 0; i < MIX_RED_LARGE; i++)
        red_src[i] = tme + (long)i;
    for (size_t i = 0; i < MIX_BCAST; i++)
        bc_src[i] = tme == 0 ? 5 + (long)i : -1;
    shmem_team_sync(t);
    /* Each call's block j starts at j * n elements of the source, so the calls
     * with fewer elements than 3000 read other values: expected below by index. */
    for (size_t c = 0; c < ncalls; c++) {
        TCHECK(shmem_int64_alltoalls(t, (int64_t *)(dst + c * SBUF), s, calls[c].ds, ss,
                                     calls[c].n) == 0);
        if (c == 0)
            TCHECK(shmem_long_sum_reduce(t, red_dst[0], red_src, MIX_RED_SMALL) == 0);
        if (c == 1)
            TCHECK(shmem_long_broadcast(t, bc_dst, bc_src, MIX_BCAST, 0) == 0);
        if (c == 2)
            TCHECK(shmem_long_sum_reduce(t, red_dst[1], red_src, MIX_RED_LARGE) == 0);
    }
    for (size_t c = 0; c < ncalls; c++) {
        int64_t *d = (int64_t *)(dst + c * SBUF);
        size_t n = calls[c].n, dlen = n * (size_t)tn * (size_t)calls[c].ds;
        cur_n = n;
        for (size_t e = 0; e <= dlen; e++) {
            size_t el = e / (size_t)calls[c].ds, p = el / n;
            /* Element el % n of member p's block for me: its source element
             * (tme * n + el % n), which member p filled as VAL(p, q, i) for
             * q * 3000 + i. */
            size_t at = (size_t)tme * n + el % n;
            if (e % (size_t)calls[c].ds || e == dlen)
                TCHECK(d[e] == GUARD);
            else
                TCHECK(d[e] == VAL((long)p, (long)(at / 3000), at % 3000));
        }
    }
    long sum_me = (long)tn * (long)(tn - 1) / 2;
    for (size_t i = 0; i < MIX_RED_LARGE; i++) {
        if (i < MIX_RED_SMALL)
            TCHECK(red_dst[0][i] == sum_me + (long)tn * (long)i);
        TCHECK(red_dst[1][i] == sum_me + (long)tn * (long)i);
    }
    for (size_t i = 0; i < MIX_BCAST; i++)
        TCHECK(bc_dst[i] == 5 + (long)i);
    shmem_team_sync(t);
}

/* full: also the contiguous alltoall at 1000 and MAXN elements (the three-PE team
 * is here for the strided path, which this keeps test time down for). */
static void run_team(shmem_team_t t, const char *name, int full)
{
    static const size_t sizes[] = { 0, 1, 7, 1000, MAXN };
    static const size_t ssizes[] = { 0, 1, 7, 1000, SMAX };
    static const ptrdiff_t strides[][2] = { { 1, 1 }, { 2, 1 }, { 1, 3 }, { 3, 2 } };
    cur_team = name;
    unsigned sizes_seen = 0; /* bit s: a type of s bytes ran 1000 and SMAX elements */
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        cur_type = types[ti].name;
        cur_op = "alltoall";
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0] - (full ? 0 : 2); si++)
            types[ti].alltoall(t, cur_n = sizes[si], 1);
        types[ti].alltoall(t, cur_n = 7, NB2B);
        cur_op = "alltoalls";
        size_t nsizes = sizeof ssizes / sizeof ssizes[0];
        if (sizes_seen & (1u << types[ti].size))
            nsizes -= 2;
        sizes_seen |= 1u << types[ti].size;
        for (size_t si = 0; si < nsizes; si++)
            for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++)
                types[ti].alltoalls(t, cur_n = ssizes[si], strides[k][0], strides[k][1]);
    }
    test_mem(t);
    test_mixed(t);
}

static void test_team(shmem_team_t t, const char *name)
{
    run_team(t, name, 1);
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
    if (npes >= 3) {
        shmem_team_t three = SHMEM_TEAM_INVALID;
        int start = npes >= 6 ? 1 : 0, stride = npes >= 6 ? 2 : 1;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, 3, NULL, 0, &three);
        int member = me >= start && (me - start) % stride == 0 && (me - start) / stride < 3;
        CHECK((three != SHMEM_TEAM_INVALID) == member);
        if (three != SHMEM_TEAM_INVALID)
            run_team(three, "three-PE", 0);
        shmem_team_destroy(three);
    }
    CHECK(shmem_alltoallmem(SHMEM_TEAM_INVALID, dst, src, 1) != 0);
    coll_finish("alltoall(s): %zu types", sizeof types / sizeof types[0]);
    return 0;
}
