/* Non-blocking transfers on device memory complete at quiet, fence and barriers, not
 * before: on a same-node peer they are asynchronous device copies (the emu backend
 * defers them to the next sync, as a GPU stream may), so each case below reads stale
 * bytes if the routine that must complete them does not. Each PE sends to the next
 * one, a new pattern every round:
 *   put_nbi from a device-space object, a device buffer and a host buffer into the
 *     peer's device-space object, then quiet, then a flag the peer waits for;
 *   the same with fence in place of quiet;
 *   put_nbi, then barrier_all;
 *   put_nbi on a created context, then shmem_ctx_quiet;
 *   get_nbi from the peer's device-space object into a device buffer and a host
 *     buffer, then quiet;
 *   iput (blocking) into the peer's device-space object, then the flag. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"

#define N 40000 /* longs: a few hundred KiB, past the staging chunk over the network */

static long flag; /* symmetric, host: round number, set by the previous PE */

static long val(int pe, int round, int part, size_t i)
{
    return (long)pe * 7919L + (long)round * 1000003L + (long)part * 104729L + (long)i;
}

static void fill(long *h, int pe, int round, int part)
{
    for (size_t i = 0; i < N; i++)
        h[i] = val(pe, round, part, i);
}

/* Checks the N longs at p (device memory) against the pattern of pe, round, part. */
static void expect_dev(long *h, const long *p, int pe, int round, int part)
{
    tdev_d2h(h, p, N * sizeof(long));
    for (size_t i = 0; i < N; i++)
        CHECK_EQ(h[i], val(pe, round, part, i));
}

static void expect_host(const long *h, int pe, int round, int part)
{
    for (size_t i = 0; i < N; i++)
        CHECK_EQ(h[i], val(pe, round, part, i));
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int next = (me + 1) % np, prev = (me + np - 1) % np;
    long *dsrc = shmem_space_malloc(SHMEM_SPACE_DEVICE, 3 * N * sizeof(long));
    long *ddst = shmem_space_malloc(SHMEM_SPACE_DEVICE, 3 * N * sizeof(long));
    long *lbuf = tdev_malloc(N * sizeof(long)); /* the program's own device buffer */
    long *hsrc = malloc(N * sizeof(long)), *h = malloc(N * sizeof(long));
    CHECK(dsrc && ddst && hsrc && h);
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    int round = 0;

    for (int rep = 0; rep < 2; rep++) {
        /* put_nbi from three kinds of source, completed by quiet or by fence */
        for (int use_fence = 0; use_fence < 2; use_fence++) {
            round++;
            fill(h, me, round, 0);
            tdev_h2d(dsrc, h, N * sizeof(long));
            fill(h, me, round, 1);
            tdev_h2d(lbuf, h, N * sizeof(long));
            fill(hsrc, me, round, 2);
            shmem_putmem_nbi(ddst, dsrc, N * sizeof(long), next);
            shmem_long_put_nbi(ddst + N, lbuf, N, next);
            shmem_long_put_nbi(ddst + 2 * N, hsrc, N, next);
            if (use_fence)
                shmem_fence();
            else
                shmem_quiet();
            shmem_long_atomic_set(&flag, round, next);
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
            for (int part = 0; part < 3; part++)
                expect_dev(h, ddst + (size_t)part * N, prev, round, part);
            shmem_barrier_all(); /* the sources may change again */
        }

        /* put_nbi, then a barrier */
        round++;
        fill(h, me, round, 0);
        tdev_h2d(dsrc, h, N * sizeof(long));
        shmem_long_put_nbi(ddst, dsrc, N, next);
        shmem_barrier_all();
        expect_dev(h, ddst, prev, round, 0);
        shmem_barrier_all();

        /* put_nbi on a context, then shmem_ctx_quiet */
        round++;
        fill(h, me, round, 1);
        tdev_h2d(lbuf, h, N * sizeof(long));
        shmem_ctx_long_put_nbi(ctx, ddst, lbuf, N, next);
        shmem_ctx_quiet(ctx);
        shmem_long_atomic_set(&flag, round, next);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
        expect_dev(h, ddst, prev, round, 1);
        shmem_barrier_all();

        /* get_nbi from the next PE's device-space object, then quiet */
        round++;
        fill(h, me, round, 0);
        tdev_h2d(dsrc, h, N * sizeof(long));
        shmem_barrier_all();
        memset(hsrc, 0, N * sizeof(long));
        shmem_long_get_nbi(lbuf, dsrc, N, next);
        shmem_long_get_nbi(hsrc, dsrc, N, next);
        shmem_quiet();
        expect_dev(h, lbuf, next, round, 0);
        expect_host(hsrc, next, round, 0);
        shmem_barrier_all();

        /* iput (blocking): every other element, then the flag */
        round++;
        fill(hsrc, me, round, 2);
        shmem_long_iput(ddst, hsrc, 2, 1, N / 2, next);
        shmem_long_atomic_set(&flag, round, next);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, round);
        tdev_d2h(h, ddst, N * sizeof(long));
        for (size_t i = 0; i < N / 2; i++)
            CHECK_EQ(h[2 * i], val(prev, round, 2, i));
        shmem_barrier_all();
    }

    shmem_ctx_destroy(ctx);
    tdev_free(lbuf);
    shmem_free(ddst);
    shmem_free(dsrc);
    free(hsrc);
    free(h);
    tdev_passed("device.async");
    return 0;
}
