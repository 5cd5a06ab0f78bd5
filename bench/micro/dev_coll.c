/* Collectives on device-space objects, beside the device's own copy rate: for each
 * size, the time of broadcast, fcollect, alltoall and a sum reduction (uint64) on the
 * world team, as the bytes each PE receives per second (broadcast: the block; fcollect
 * and alltoall: n - 1 blocks from peers; reduction: the block), next to one device
 * copy of the block between two device buffers of this PE (the backend's d2d: what a
 * copy through a peer's mapping can reach at best). Every result is checked once.
 * Also the host bounces (shmemx_device_host_bounces) the collectives made: zero when
 * every PE is on this node. Slowest PE's time, median of -i repetitions. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum { BCAST, FCOLLECT, ALLTOALL, SUM, NCOLL };
static const char *const names[NCOLL] = { "broadcast", "fcollect", "alltoall", "sum_reduce" };

static void run(int which, uint64_t *dst, uint64_t *src, size_t nelems)
{
    switch (which) {
    case BCAST:
        CHECK(shmem_uint64_broadcast(SHMEM_TEAM_WORLD, dst, src, nelems, 0) == 0);
        break;
    case FCOLLECT:
        CHECK(shmem_uint64_fcollect(SHMEM_TEAM_WORLD, dst, src, nelems) == 0);
        break;
    case ALLTOALL:
        CHECK(shmem_uint64_alltoall(SHMEM_TEAM_WORLD, dst, src, nelems) == 0);
        break;
    default: CHECK(shmem_uint64_sum_reduce(SHMEM_TEAM_WORLD, dst, src, nelems) == 0);
    }
}

/* What member pe's dest holds at element i after collective which, every member's
 * source element j being pe * 2^32 + j. */
static uint64_t want(int which, int np, int me, size_t n, size_t i)
{
    switch (which) {
    case BCAST: return i;
    case FCOLLECT: return ((uint64_t)(i / n) << 32) + i % n;
    case ALLTOALL: return ((uint64_t)(i / n) << 32) + (size_t)me * n + i % n;
    default: return ((uint64_t)np * (uint64_t)(np - 1) / 2 << 32) + (uint64_t)np * i;
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 4096, 16 << 20, 10, 1 };
    bench_init(argc, argv, &o, NULL, "dev_coll", 1, 0);
    int me = shmem_my_pe(), np = shmem_n_pes();
    size_t top = o.max_size / sizeof(uint64_t) * (size_t)np;
    uint64_t *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, top * sizeof(uint64_t));
    uint64_t *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, top * sizeof(uint64_t));
    uint64_t *h = malloc(top * sizeof(uint64_t));
    void *a = tdev_malloc(o.max_size), *b = tdev_malloc(o.max_size);
    CHECK(src && dst && h);
    for (size_t j = 0; j < top; j++)
        h[j] = ((uint64_t)me << 32) + j;
    tdev_h2d(src, h, top * sizeof(uint64_t));
    int reps = (int)(o.iters > 0 ? o.iters : 1);
    double *t = malloc((size_t)reps * sizeof *t);
    CHECK(t != NULL);
    if (me == 0)
        printf("# %d PEs on %s, uint64 on device-space objects; GB/s received per PE, "
               "slowest PE, median of %d\n%-8s %12s %12s %12s %12s %12s\n",
               np, tdev_name(), reps, "bytes", "d2d copy", names[0], names[1], names[2],
               names[3]);
    uint64_t ops0 = 0, bytes0 = 0, ops1 = 0, bytes1 = 0;
    shmemx_device_host_bounces(&ops0, &bytes0);
    for (size_t len = o.min_size; len <= o.max_size; len *= 4) {
        size_t n = len / sizeof(uint64_t);
        double gbs[NCOLL + 1];
        for (int r = 0; r < reps; r++) {
            double t0 = bench_now();
            tdev_d2d(b, a, len);
            t[r] = bench_now() - t0;
        }
        qsort(t, (size_t)reps, sizeof *t, cmp_d);
        gbs[0] = (double)len / t[reps / 2] / 1e9;
        for (int c = 0; c < NCOLL; c++) {
            for (long w = 0; w < o.warmup; w++)
                run(c, dst, src, n);
            for (int r = 0; r < reps; r++) {
                shmem_barrier_all();
                double t0 = bench_now();
                run(c, dst, src, n);
                t[r] = bench_slowest(bench_now() - t0);
            }
            size_t got = c == FCOLLECT || c == ALLTOALL ? n * (size_t)np : n;
            tdev_d2h(h, dst, got * sizeof(uint64_t));
            for (size_t i = 0; i < got; i++)
                if (h[i] != want(c, np, me, n, i)) {
                    fprintf(stderr,
                            "FAIL PE %d: dev_coll: %s of %zu bytes, element %zu: %llu, "
                            "want %llu\n",
                            me, names[c], len, i, (unsigned long long)h[i],
                            (unsigned long long)want(c, np, me, n, i));
                    shmem_global_exit(1);
                }
            qsort(t, (size_t)reps, sizeof *t, cmp_d);
            size_t recv = c == FCOLLECT || c == ALLTOALL ? len * (size_t)(np - 1) : len;
            gbs[c + 1] = np > 1 ? (double)recv / t[reps / 2] / 1e9 : 0;
        }
        if (me == 0) {
            printf("%-8zu %12.2f %12.2f %12.2f %12.2f %12.2f\n", len, gbs[0], gbs[1], gbs[2],
                   gbs[3], gbs[4]);
            bench_result("dev_coll_d2d_copy", len, "GB/s", gbs[0]);
            for (int c = 0; c < NCOLL; c++) {
                char name[64];
                snprintf(name, sizeof name, "dev_coll_%s", names[c]);
                bench_result(name, len, "GB/s", gbs[c + 1]);
            }
        }
    }
    shmemx_device_host_bounces(&ops1, &bytes1);
    if (me == 0) {
        printf("host bounces during the collectives: %llu copies, %llu bytes\n",
               (unsigned long long)(ops1 - ops0), (unsigned long long)(bytes1 - bytes0));
        bench_result("dev_coll_host_bounce_bytes", 0, "bytes", (double)(bytes1 - bytes0));
    }
    tdev_free(a);
    tdev_free(b);
    free(t);
    free(h);
    shmem_finalize();
    return 0;
}
