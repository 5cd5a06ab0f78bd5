/* The collectives that test_coll.c leaves out, on device memory: collect (sizes differ
 * per member, some zero), strided alltoalls, sum_inscan/exscan (and their shmemx_
 * names), and the deprecated active-set forms of broadcast, collect, fcollect,
 * to_all, alltoall and alltoalls. Buffers in three arrangements: source and dest in
 * the device space; source a device buffer of the program's own (device awareness),
 * dest in the device space; source in the device space, dest in the host heap. On
 * the world team and the even PEs' team; active sets over all PEs and over the even
 * and the odd PEs at once. Sizes from one element to several staging chunks. Every
 * result is read back and compared with values computed here; alltoalls and the
 * active-set broadcast also check that the elements they must not write keep a
 * guard value. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"

#define GUARD (-7L)
#define DS 3 /* alltoalls: dest stride */
#define SS 2 /* alltoalls: source stride */

enum kind { DEV_DEV, LOCAL_DEV, DEV_HOST };
static const char *const kind_name[] = { "device->device", "local device->device",
                                         "device->host" };

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long val(int pe, size_t i)
{
    return (long)pe * 1000003L + (long)i * 7 + 1;
}

/* Member pe's collect count: differs per member, zero for every third. */
static size_t cnt(int pe, size_t n)
{
    return pe % 3 == 1 ? 0 : n + (size_t)pe * 5;
}

struct bufs {
    long *src, *dst; /* src: symmetric or a device buffer; dst: symmetric */
    int src_dev, dst_dev;
    long *h;    /* host mirror */
    size_t len; /* longs in each */
};

static void put_in(long *p, int dev, const long *h, size_t n)
{
    if (dev)
        tdev_h2d(p, h, n * sizeof(long));
    else
        memcpy(p, h, n * sizeof(long));
}

static void get_out(long *h, const long *p, int dev, size_t n)
{
    if (dev)
        tdev_d2h(h, p, n * sizeof(long));
    else
        memcpy(h, p, n * sizeof(long));
}

/* Fills source with val(me, i) and dest with GUARD. */
static void reset(const struct bufs *b, int me)
{
    for (size_t i = 0; i < b->len; i++)
        b->h[i] = val(me, i);
    put_in(b->src, b->src_dev, b->h, b->len);
    for (size_t i = 0; i < b->len; i++)
        b->h[i] = GUARD;
    put_in(b->dst, b->dst_dev, b->h, b->len);
}

/* After an alltoalls of n elements (dest stride DS, source stride SS) among np
 * members: element t of block me of member pe's source (me*n*SS + t*SS) is at element
 * t of block pe of this dest (pe*n*DS + t*DS), the gaps between still GUARD. */
static void check_alltoalls(const struct bufs *b, int me, int np, size_t n)
{
    long *h = b->h;
    get_out(h, b->dst, b->dst_dev, (size_t)np * n * DS);
    for (int pe = 0; pe < np; pe++)
        for (size_t t = 0; t < n; t++)
            for (size_t g = 0; g < DS; g++)
                CHECK_EQ(h[((size_t)pe * n + t) * DS + g],
                         g ? GUARD : val(pe, ((size_t)me * n + t) * SS));
}

/* The team collectives of this file on team, n elements. */
static void run_team(shmem_team_t team, const struct bufs *b, size_t n, int use_x)
{
    int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);
    long *h = b->h;

    /* collect */
    reset(b, me);
    CHECK(shmem_long_collect(team, b->dst, b->src, cnt(me, n)) == 0);
    size_t total = 0;
    for (int pe = 0; pe < np; pe++)
        total += cnt(pe, n);
    get_out(h, b->dst, b->dst_dev, total + 1);
    size_t at = 0;
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < cnt(pe, n); i++)
            CHECK_EQ(h[at++], val(pe, i));
    CHECK_EQ(h[total], GUARD);

    /* alltoalls: element t of block j of source (j*n*SS + t*SS) to element t of block
     * me of member j's dest (me*n*DS + t*DS) */
    reset(b, me);
    CHECK(shmem_long_alltoalls(team, b->dst, b->src, DS, SS, n) == 0);
    check_alltoalls(b, me, np, n);

    /* inscan and exscan */
    reset(b, me);
    CHECK((use_x ? shmemx_long_sum_inscan(team, b->dst, b->src, n)
                 : shmem_long_sum_inscan(team, b->dst, b->src, n)) == 0);
    get_out(h, b->dst, b->dst_dev, n + 1);
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int pe = 0; pe <= me; pe++)
            want += val(pe, i);
        CHECK_EQ(h[i], want);
    }
    CHECK_EQ(h[n], GUARD);
    reset(b, me);
    CHECK((use_x ? shmemx_long_sum_exscan(team, b->dst, b->src, n)
                 : shmem_long_sum_exscan(team, b->dst, b->src, n)) == 0);
    get_out(h, b->dst, b->dst_dev, n + 1);
    for (size_t i = 0; i < n && me > 0; i++) {
        long want = 0;
        for (int pe = 0; pe < me; pe++)
            want += val(pe, i);
        CHECK_EQ(h[i], want);
    }
    CHECK_EQ(h[n], GUARD);
    shmem_team_sync(team);
}

/* The active-set forms over (start, log, size), n elements. */
static void run_set(int start, int lg, int size, const struct bufs *b, size_t n, long *wrk)
{
    int me = (shmem_my_pe() - start) >> lg, np = size;
    long *h = b->h;
    int root = np - 1;

    reset(b, me);
    shmem_broadcast64(b->dst, b->src, n, root, start, lg, size, psync);
    get_out(h, b->dst, b->dst_dev, n);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(h[i], me == root ? GUARD : val(root, i));

    reset(b, me);
    shmem_fcollect64(b->dst, b->src, n, start, lg, size, psync);
    get_out(h, b->dst, b->dst_dev, (size_t)np * n + 1);
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(h[(size_t)pe * n + i], val(pe, i));
    CHECK_EQ(h[(size_t)np * n], GUARD);

    reset(b, me);
    shmem_collect64(b->dst, b->src, cnt(me, n), start, lg, size, psync);
    size_t at = 0;
    for (int pe = 0; pe < np; pe++)
        at += cnt(pe, n);
    get_out(h, b->dst, b->dst_dev, at + 1);
    CHECK_EQ(h[at], GUARD);
    at = 0;
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < cnt(pe, n); i++)
            CHECK_EQ(h[at++], val(pe, i));

    reset(b, me);
    shmem_long_sum_to_all(b->dst, b->src, (int)n, start, lg, size, wrk, psync);
    get_out(h, b->dst, b->dst_dev, n + 1);
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int pe = 0; pe < np; pe++)
            want += val(pe, i);
        CHECK_EQ(h[i], want);
    }
    CHECK_EQ(h[n], GUARD);

    reset(b, me);
    shmem_alltoall64(b->dst, b->src, n, start, lg, size, psync);
    get_out(h, b->dst, b->dst_dev, (size_t)np * n);
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(h[(size_t)pe * n + i], val(pe, (size_t)me * n + i));

    reset(b, me);
    shmem_alltoalls64(b->dst, b->src, DS, SS, n, start, lg, size, psync);
    check_alltoalls(b, me, np, n);

    /* 32-bit elements: alltoalls32 on ints, packed two to a long of the buffers */
    int *hi = (int *)h;
    for (size_t i = 0; i < (size_t)np * n * SS; i++)
        hi[i] = (int)val(me, i);
    put_in(b->src, b->src_dev, h, ((size_t)np * n * SS + 1) / 2);
    for (size_t i = 0; i < (size_t)np * n * DS; i++)
        hi[i] = -1;
    put_in(b->dst, b->dst_dev, h, ((size_t)np * n * DS + 1) / 2);
    shmem_alltoalls32(b->dst, b->src, DS, SS, n, start, lg, size, psync);
    get_out(h, b->dst, b->dst_dev, ((size_t)np * n * DS + 1) / 2);
    for (int pe = 0; pe < np; pe++)
        for (size_t t = 0; t < n; t++)
            for (size_t g = 0; g < DS; g++)
                CHECK_EQ(hi[((size_t)pe * n + t) * DS + g],
                         g ? -1 : (int)val(pe, ((size_t)me * n + t) * SS));
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (np + 1) / 2, NULL, 0, &evens);
    size_t sizes[] = { 1, 100, 5000 }; /* 5000 longs: several staging chunks */
    size_t len = 5000 * (size_t)np * DS + 5 * (size_t)np * np + 1;
    long *h = malloc(len * sizeof(long));
    long *wrk = shmem_space_malloc(SHMEM_SPACE_DEVICE, (5000 / 2 + 1) * sizeof(long));
    long *dsrc = shmem_space_malloc(SHMEM_SPACE_DEVICE, len * sizeof(long));
    long *ddst = shmem_space_malloc(SHMEM_SPACE_DEVICE, len * sizeof(long));
    long *hdst = shmem_malloc(len * sizeof(long));
    long *lsrc = tdev_malloc(len * sizeof(long));
    CHECK(h && wrk && dsrc && ddst && hdst);
    for (int k = DEV_DEV; k <= DEV_HOST; k++) {
        struct bufs b = { k == LOCAL_DEV ? lsrc : dsrc,
                          k == DEV_HOST ? hdst : ddst,
                          1,
                          k != DEV_HOST,
                          h,
                          len };
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            run_team(SHMEM_TEAM_WORLD, &b, sizes[s], s == 1);
            if (evens != SHMEM_TEAM_INVALID)
                run_team(evens, &b, sizes[s], 0);
            shmem_barrier_all();
            if (k == LOCAL_DEV)
                continue; /* active sets: symmetric sources */
            run_set(0, 0, np, &b, sizes[s], wrk);
            /* the even and the odd PEs at once, sharing pSync and the staging */
            if (np > 1)
                run_set(me & 1, 1, me & 1 ? np / 2 : (np + 1) / 2, &b, sizes[s], wrk);
            shmem_barrier_all();
        }
        if (me == 0)
            printf("device.coll_all: %s passed\n", kind_name[k]);
    }
    tdev_free(lsrc);
    shmem_free(hdst);
    shmem_free(ddst);
    shmem_free(dsrc);
    shmem_free(wrk);
    free(h);
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    tdev_passed("device.coll_all");
    return 0;
}
