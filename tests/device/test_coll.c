/* Collectives on device-space objects: broadcast, sum/max reductions, fcollect and
 * alltoall, on the world team and on a team of the even PEs, at sizes below and above
 * one staging chunk; every result read back through the device and checked. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_device.h"

static long val(int pe, size_t i)
{
    return (long)pe * 1000003L + (long)i * 7 + 1;
}

static void run(shmem_team_t team, size_t n)
{
    int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);
    size_t total = n * (size_t)np;
    long *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, total * sizeof(long));
    long *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, total * sizeof(long));
    long *h = malloc(total * sizeof(long));
    CHECK(src && dst && h);
    for (size_t i = 0; i < total; i++)
        h[i] = val(me, i);
    tdev_h2d(src, h, total * sizeof(long));

    /* broadcast from the last member */
    int root = np - 1;
    CHECK(shmem_long_broadcast(team, dst, src, n, root) == 0);
    tdev_d2h(h, dst, n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(h[i], val(root, i));

    /* sum and max */
    CHECK(shmem_long_sum_reduce(team, dst, src, n) == 0);
    tdev_d2h(h, dst, n * sizeof(long));
    for (size_t i = 0; i < n; i++) {
        long want = 0;
        for (int pe = 0; pe < np; pe++)
            want += val(pe, i);
        CHECK_EQ(h[i], want);
    }
    CHECK(shmem_long_max_reduce(team, dst, src, n) == 0);
    tdev_d2h(h, dst, n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(h[i], val(np - 1, i));

    /* fcollect: member i's n elements at dst + i*n */
    CHECK(shmem_long_fcollect(team, dst, src, n) == 0);
    tdev_d2h(h, dst, total * sizeof(long));
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(h[(size_t)pe * n + i], val(pe, i));

    /* alltoall: block j of member i's source lands in block i of member j's dest */
    CHECK(shmem_long_alltoall(team, dst, src, n) == 0);
    tdev_d2h(h, dst, total * sizeof(long));
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < n; i++)
            CHECK_EQ(h[(size_t)pe * n + i], val(pe, (size_t)me * n + i));

    shmem_team_sync(team);
    free(h);
    shmem_free(dst);
    shmem_free(src);
}

int main(void)
{
    shmem_init();
    int np = shmem_n_pes();
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (np + 1) / 2, NULL, 0, &evens);
    size_t sizes[] = { 1, 100, 20000 }; /* 20000 longs: several staging chunks */
    for (size_t s = 0; s < 3; s++) {
        run(SHMEM_TEAM_WORLD, sizes[s]);
        /* the team's members allocate symmetric memory too, so every PE takes part */
        if (evens != SHMEM_TEAM_INVALID)
            run(evens, sizes[s]);
        else {
            void *a = shmem_space_malloc(SHMEM_SPACE_DEVICE,
                                         sizes[s] * (size_t)((np + 1) / 2) * sizeof(long));
            void *b = shmem_space_malloc(SHMEM_SPACE_DEVICE,
                                         sizes[s] * (size_t)((np + 1) / 2) * sizeof(long));
            shmem_free(b);
            shmem_free(a);
        }
    }
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    tdev_passed("device.coll");
    return 0;
}
