/* shmemx_alltoallv and _packed, active-set and team forms: every pair of members
 * exchanges a block whose length (0 included) and bytes follow from the two world PE
 * numbers and the round alone, so each receiver knows what must arrive. Senders lay
 * their blocks out in reverse member order with gaps, receivers place them in a
 * rotated order with gaps, and every byte not written must keep its guard value.
 * Sets: every PE (run as the world team), PEs 1.. (odd-sized at even PE counts), and
 * the even and odd PEs at once on one pSync (stride 2, 3 members where the job has
 * 6 or more PEs); team: the even PEs' split. Two rounds per set on the same pSync.
 * With SHMEM_ALLTOALLV_TSIZE_CHK=trunc the receivers' limits cut some blocks (and
 * the packed target_len cuts the tail); with abort the limits equal the lengths, so
 * nothing may abort. In the second round each PE's target starts at a place of its
 * own (dst + its shift), which the offsets are relative to. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAXPES 16
#define BIG 70000 /* one pair per round sends this much: the bulk path too */
#define SLOT (BIG + 64)
#define BUF ((size_t)MAXPES * SLOT)
#define GUARD 0xA5

static long psync[SHMEM_ALLTOALL_SYNC_SIZE];
static size_t t_off[MAXPES], t_sz[MAXPES], s_off[MAXPES], s_sz[MAXPES], t_total;
static unsigned char *src, *dst; /* symmetric */
static int me, npes, trunc_mode, abort_mode;
static const char *cur = "";

/* Bytes world PE s sends world PE r in round k: 0 for about one pair in five. */
static size_t len_of(int s, int r, int k)
{
    unsigned h = (unsigned)(s * 7919 + r * 104729 + k * 1299709) * 2654435761u;
    if (s == (r + 1) % npes && k == 1)
        return BIG;
    return (h >> 7) % 5 == 0 ? 0 : (h >> 11) % 300 + 1;
}

/* The most r takes from s under trunc: about half the blocks are cut. */
static size_t limit_of(int s, int r, int k)
{
    size_t l = len_of(s, r, k);
    if (abort_mode)
        return l;
    return (s + r + k) % 2 ? l / 3 : l + 5;
}

static unsigned char byte_of(int s, int r, int k, size_t at)
{
    return (unsigned char)(s * 31 + r * 17 + k * 5 + at * 3 + 1);
}

static size_t min_sz(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Fills this PE's source for a group whose member i is world PE w[i]. */
static void fill_source(const int *w, int n, int k)
{
    size_t at = 0;
    for (int i = n - 1; i >= 0; i--) {
        s_off[i] = at;
        s_sz[i] = len_of(me, w[i], k);
        for (size_t b = 0; b < s_sz[i]; b++)
            src[at + b] = byte_of(me, w[i], k, b);
        at += s_sz[i] + 7;
    }
}

static void check_guard(size_t from, size_t to)
{
    for (size_t b = from; b < to; b++)
        if (dst[b] != GUARD)
            check_failed(__FILE__, __LINE__, "%s: target byte %zu overwritten (0x%02x)", cur,
                         b, dst[b]);
}

/* One round of alltoallv over the group; team: SHMEM_TEAM_INVALID for the set. */
static size_t shift_of(int k)
{
    return k ? (size_t)me * 3 + 1 : 0; /* within BUF at MAXPES */
}

static void round_v(const int *w, int n, int my, int k, shmem_team_t team, int start,
                    int logstride)
{
    size_t sh = shift_of(k);
    fill_source(w, n, k);
    memset(dst, GUARD, BUF);
    for (int i = 0; i < n; i++) {
        t_off[i] = (size_t)((i + my) % n) * SLOT + 3;
        t_sz[i] = trunc_mode || abort_mode ? limit_of(w[i], me, k) : 12345;
    }
    if (team == SHMEM_TEAM_INVALID)
        shmemx_alltoallv(dst + sh, t_off, t_sz, src, s_off, s_sz, start, logstride, n, psync);
    else
        CHECK_EQ(shmemx_team_alltoallv(team, dst + sh, t_off, t_sz, src, s_off, s_sz), 0);
    size_t prev = 0;
    for (int r = 0; r < n; r++) {
        int i = (r - my % n + n) % n; /* the member whose slot is r */
        size_t want = len_of(w[i], me, k);
        if (trunc_mode)
            want = min_sz(want, limit_of(w[i], me, k));
        if (t_sz[i] != want)
            check_failed(__FILE__, __LINE__,
                         "%s round %d: t_sizes[%d] (PE %d) is %zu, not %zu", cur, k, i, w[i],
                         t_sz[i], want);
        check_guard(prev, sh + t_off[i]);
        for (size_t b = 0; b < want; b++)
            if (dst[sh + t_off[i] + b] != byte_of(w[i], me, k, b))
                check_failed(__FILE__, __LINE__, "%s round %d: byte %zu from PE %d is 0x%02x",
                             cur, k, b, w[i], dst[sh + t_off[i] + b]);
        prev = sh + t_off[i] + want;
    }
    check_guard(prev, BUF);
}

/* One round of the packed form: blocks in member order, cut at target_len. */
static void round_packed(const int *w, int n, int k, shmem_team_t team, int start,
                         int logstride)
{
    size_t sh = shift_of(k);
    fill_source(w, n, k);
    memset(dst, GUARD, BUF);
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += len_of(w[i], me, k);
    size_t cap = trunc_mode ? total / 2 : total;
    if (team == SHMEM_TEAM_INVALID)
        shmemx_alltoallv_packed(dst + sh, cap, &t_total, src, s_off, s_sz, start, logstride,
                                n, psync);
    else
        CHECK_EQ(shmemx_team_alltoallv_packed(team, dst + sh, cap, &t_total, src, s_off,
                                              s_sz),
                 0);
    check_guard(0, sh);
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t l = min_sz(len_of(w[i], me, k), cap - at);
        for (size_t b = 0; b < l; b++)
            if (dst[sh + at + b] != byte_of(w[i], me, k, b))
                check_failed(__FILE__, __LINE__,
                             "%s round %d: packed byte %zu from PE %d is 0x%02x", cur, k, b,
                             w[i], dst[sh + at + b]);
        at += l;
    }
    if (t_total != at)
        check_failed(__FILE__, __LINE__, "%s round %d: *t_size is %zu, not %zu", cur, k,
                     t_total, at);
    check_guard(sh + at, BUF);
}

/* Both forms, two rounds each, over the group of world PEs start + i * stride. */
static void run_group(const char *name, int start, int logstride, int n, shmem_team_t team)
{
    int w[MAXPES], my = -1;
    for (int i = 0; i < n; i++) {
        w[i] = start + (i << logstride);
        if (w[i] == me)
            my = i;
    }
    if (my < 0)
        return;
    cur = name;
    for (int k = 0; k < 2; k++)
        round_v(w, n, my, k, team, start, logstride);
    for (int k = 0; k < 2; k++)
        round_packed(w, n, k, team, start, logstride);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPES);
    const char *chk = getenv("SHMEM_ALLTOALLV_TSIZE_CHK");
    trunc_mode = chk && !strcmp(chk, "trunc");
    abort_mode = chk && !strcmp(chk, "abort");
    src = test_malloc(BUF);
    dst = test_malloc(BUF);
    for (int i = 0; i < SHMEM_ALLTOALL_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    run_group("set of all PEs", 0, 0, npes, SHMEM_TEAM_INVALID);
    run_group("team world", 0, 0, npes, SHMEM_TEAM_WORLD);
    shmem_barrier_all();
    if (npes > 1)
        run_group("set of PEs 1..", 1, 0, npes - 1, SHMEM_TEAM_INVALID);
    shmem_barrier_all();
    /* Even and odd PEs at once, stride 2, on the same pSync. */
    int half = npes >= 6 ? 3 : (npes + 1) / 2;
    run_group("set of even PEs", 0, 1, half, SHMEM_TEAM_INVALID);
    if (npes > 1)
        run_group("set of odd PEs", 1, 1, npes >= 6 ? 3 : npes / 2, SHMEM_TEAM_INVALID);
    shmem_barrier_all();

    shmem_team_t even;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    if (me % 2 == 0) {
        run_group("team of even PEs", 0, 1, (npes + 1) / 2, even);
        shmem_team_destroy(even);
    } else {
        size_t one = 1;
        CHECK(shmemx_team_alltoallv(even, dst, &one, &one, src, &one, &one) != 0);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("alltoallv (%s): OK at %d PEs\n", chk ? chk : "none", npes);
    shmem_finalize();
    return 0;
}
