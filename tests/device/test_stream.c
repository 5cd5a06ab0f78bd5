/* Stream-ordered operations (shmemx_*_on_stream): each runs after the work queued
 * before it on the stream and before the work queued after it, and the calling thread
 * does not wait. Every stream first runs a kernel that holds it until the host sets a
 * flag, and the host queues everything while it holds: a call that waited for the
 * stream would never return (the test's time limit ends it), and a call that did not
 * wait for the kernels before it would send what a kernel has not written yet.
 *
 * Each round r, on PE me's stream:
 *   fill(src, value(me, r)) after a delay;       -- work before
 *   putmem_signal_on_stream(dst[r] on next, src, ...);
 *   signal_wait_until_on_stream(...);            -- prev's round-r data is here
 *   copy(out[r], dst[r]);                         -- work after
 * with the signal in the device heap, SET to r (odd rounds: on one node the stream
 * does both itself), or in the host heap, ADD 1 (even rounds: through the proxy),
 * waited for with GE, as next may run rounds ahead;
 * then put/quiet/barrier_all, get, team barrier, broadcast, alltoall and sum reduce on
 * the stream, each followed by a copy of its result that the host checks. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_stream.h"

#define ROUNDS 8
#define W 512 /* 64-bit words per block */

static uint64_t value(int pe, int r)
{
    return (uint64_t)pe * 1000003u + (uint64_t)r * 7919u + 1;
}

static void expect_words(const uint64_t *dev, size_t n, uint64_t v, const char *what, int r)
{
    uint64_t *h = malloc(n * sizeof *h);
    CHECK(h != NULL);
    tdev_d2h(h, dev, n * sizeof *h);
    for (size_t i = 0; i < n; i++)
        if (h[i] != v) {
            fprintf(stderr, "PE %d: %s, round %d: word %zu is %llu, expected %llu\n",
                    shmem_my_pe(), what, r, i, (unsigned long long)h[i],
                    (unsigned long long)v);
            CHECK(h[i] == v);
        }
    free(h);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int next = (me + 1) % np, prev = (me + np - 1) % np;
    size_t blk = W * sizeof(uint64_t);
    uint64_t *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, blk);
    uint64_t *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, ROUNDS * blk);
    uint64_t *sig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    uint64_t *hsig = shmem_calloc(1, sizeof(uint64_t));
    uint64_t *a2a_src = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * blk);
    uint64_t *a2a_dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * blk);
    uint64_t *red_src = shmem_space_malloc(SHMEM_SPACE_DEVICE, blk);
    uint64_t *red_dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, blk);
    uint64_t *bc = shmem_space_malloc(SHMEM_SPACE_DEVICE, blk);
    uint64_t *box = shmem_space_malloc(SHMEM_SPACE_DEVICE, blk); /* put + barrier */
    CHECK(src && dst && sig && hsig && a2a_src && a2a_dst && red_src && red_dst && bc && box);
    uint64_t *out = tdev_malloc((ROUNDS + 8) * blk); /* the program's own device memory */
    uint64_t *got = tdev_malloc(blk);

    void *s = tstream_create();
    volatile uint32_t *flag = tstream_host_word(), *seen = tstream_host_word();
    tstream_hold(s, flag, seen, 20000);

    for (int r = 1; r <= ROUNDS; r++) {
        tstream_fill(s, src, W, value(me, r), 2000);
        uint64_t *d = dst + (size_t)(r - 1) * W;
        if (r % 2) {
            shmemx_putmem_signal_on_stream(d, src, blk, sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                           next, s);
            shmemx_signal_wait_until_on_stream(sig, SHMEM_CMP_GE, (uint64_t)r, s);
        } else {
            shmemx_putmem_signal_on_stream(d, src, blk, hsig, 1, SHMEM_SIGNAL_ADD, next, s);
            shmemx_signal_wait_until_on_stream(hsig, SHMEM_CMP_GE, (uint64_t)r / 2, s);
        }
        tstream_copy(s, out + (size_t)(r - 1) * W, dst + (size_t)(r - 1) * W, blk);
    }
    uint64_t *o = out + (size_t)ROUNDS * W;
    /* put, quiet, barrier: after the barrier, prev's box has arrived here. */
    tstream_fill(s, src, W, value(me, 100), 1000);
    shmemx_putmem_on_stream(box, src, blk, next, s);
    shmemx_quiet_on_stream(s);
    shmemx_barrier_all_on_stream(s);
    tstream_copy(s, o, box, blk);
    /* get of next's box (holding value(me, 100) from me), after a team barrier. */
    CHECK(shmemx_team_barrier_on_stream(SHMEM_TEAM_WORLD, s) == 0);
    shmemx_getmem_on_stream(got, box, blk, next, s);
    tstream_copy(s, o + W, got, blk);
    /* broadcast from the last PE. */
    tstream_fill(s, src, W, value(me, 200), 1000);
    CHECK(shmemx_broadcastmem_on_stream(SHMEM_TEAM_WORLD, bc, src, blk, np - 1, s) == 0);
    tstream_copy(s, o + 2 * W, bc, blk);
    /* alltoall: block j of my source holds value(me, 300 + j). */
    for (int j = 0; j < np; j++)
        tstream_fill(s, a2a_src + (size_t)j * W, W, value(me, 300 + j), 0);
    CHECK(shmemx_alltoallmem_on_stream(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, blk, s) == 0);
    /* sum reduce of (me + 1) over the world. */
    tstream_fill(s, red_src, W, (uint64_t)me + 1, 1000);
    CHECK(shmemx_uint64_sum_reduce_on_stream(SHMEM_TEAM_WORLD, red_dst, red_src, W, s) == 0);
    tstream_copy(s, o + 3 * W, red_dst, blk);

    /* Everything is queued and every PE's stream is still held: nothing may have run.
     * (The host barrier comes first on every PE, before the streams' collectives.) */
    CHECK(__atomic_load_n(seen, __ATOMIC_ACQUIRE) == 0);
    expect_words(sig, 1, 0, "signal before the stream ran", 0);
    CHECK(shmem_signal_fetch(hsig) == 0);
    shmem_barrier_all();
    __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
    tstream_sync(s);
    CHECK(*seen == 1); /* released by the flag, not by the kernel's time limit */

    for (int r = 1; r <= ROUNDS; r++)
        expect_words(out + (size_t)(r - 1) * W, W, value(prev, r), "put_signal + wait", r);
    expect_words(o, W, value(prev, 100), "put + quiet + barrier_all", 0);
    expect_words(o + W, W, value(me, 100), "team barrier + get", 0);
    expect_words(o + 2 * W, W, value(np - 1, 200), "broadcast", 0);
    for (int j = 0; j < np; j++)
        expect_words(a2a_dst + (size_t)j * W, W, value(j, 300 + me), "alltoall", j);
    expect_words(o + 3 * W, W, (uint64_t)np * (np + 1) / 2, "sum reduce", 0);

    tstream_destroy(s);
    tstream_host_word_free(flag);
    tstream_host_word_free(seen);
    tdev_free(out);
    tdev_free(got);
    shmem_barrier_all();
    tdev_passed("device.stream");
    return 0;
}
