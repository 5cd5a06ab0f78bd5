/* Signals, waits and tests on device-space objects: put-with-signal into a device
 * object with the signal word in the device space, signal_wait_until and
 * wait_until/test on device words, a ring of device-to-device handoffs, and contexts
 * other than the default. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_device.h"

#define N 1000
#define ROUNDS 20

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int *buf = shmem_space_malloc(SHMEM_SPACE_DEVICE, N * sizeof(int));
    uint64_t *sig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    long *flag = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(long));
    int *src = tdev_malloc(N * sizeof(int));
    int *h = malloc(N * sizeof(int));
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0);
    CHECK(buf && sig && flag);

    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            h[i] = r * 1000 + me + i;
        tdev_h2d(src, h, N * sizeof(int));
        /* payload and signal both in the device space, from a device buffer */
        if (r % 2)
            shmem_putmem_signal(buf, src, N * sizeof(int), sig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                right);
        else
            shmem_ctx_putmem_signal_nbi(ctx, buf, src, N * sizeof(int), sig, 1,
                                        SHMEM_SIGNAL_ADD, right);
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, (uint64_t)r);
        CHECK(got >= (uint64_t)r);
        CHECK_EQ(shmem_signal_fetch(sig), r);
        tdev_d2h(h, buf, N * sizeof(int));
        for (int i = 0; i < N; i++)
            CHECK_EQ(h[i], r * 1000 + left + i);
        shmem_ctx_quiet(ctx);
        shmem_barrier_all();
    }

    /* A token passed around the ring through a device word: wait_until and test. */
    if (me == 0)
        shmem_long_atomic_set(flag, 1, right);
    shmem_long_wait_until(flag, SHMEM_CMP_EQ, me == 0 ? np : me);
    CHECK_EQ(shmem_long_test(flag, SHMEM_CMP_EQ, me == 0 ? np : me), 1);
    if (me != 0)
        shmem_long_atomic_set(flag, me + 1, right);
    shmem_barrier_all();
    CHECK_EQ(shmem_long_test(flag, SHMEM_CMP_EQ, -1), 0);

    /* wait_until_all over device words, set by the left neighbour with signal_set. */
    uint64_t *words = shmem_space_alloc(SHMEM_SPACE_DEVICE, 4, sizeof(uint64_t));
    for (int i = 0; i < 4; i++)
        shmem_signal_set(&words[i], (uint64_t)(10 + i), right);
    shmem_uint64_wait_until_all(words, 4, NULL, SHMEM_CMP_GE, 10);
    shmem_barrier_all();

    shmem_ctx_destroy(ctx);
    shmem_free(words);
    tdev_free(src);
    free(h);
    shmem_free(flag);
    shmem_free(sig);
    shmem_free(buf);
    tdev_passed("device.sync");
    return 0;
}
