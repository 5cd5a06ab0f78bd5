/* Collective latency over sizes on all PEs: barrier, broadcast, sum reduction,
 * fcollect, alltoall. Uses the 1.5 team interfaces where the library has them and the
 * 1.4 active-set interfaces (pSync/pWrk) otherwise, so it builds everywhere. Each call
 * is timed on its own between barriers; the figure is the slowest PE's average. */
#include "bench.h"

#include <stdio.h>

#if !BENCH_HAVE_SPEC_1_5
#define MAX2(a, b) ((a) > (b) ? (a) : (b))
static long psync[MAX2(SHMEM_BCAST_SYNC_SIZE,
                       MAX2(SHMEM_REDUCE_SYNC_SIZE, SHMEM_ALLTOALL_SYNC_SIZE))];
static long *pwrk; /* reduction work array, sized for the largest reduction */
#endif

enum coll { BARRIER, BCAST, REDUCE, FCOLLECT, ALLTOALL, COLLS };
static const char *const coll_names[COLLS] = { "barrier", "bcast", "reduce", "fcollect",
                                               "alltoall" };
static void *src, *dst; /* symmetric */

/* One collective on the whole job; `bytes` is per PE (a multiple of 8). */
static void run_coll(int c, size_t bytes)
{
#if BENCH_HAVE_SPEC_1_5
    switch (c) {
    case BARRIER: shmem_barrier_all(); break;
    case BCAST: shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, 0); break;
    case REDUCE: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, bytes / 8); break;
    case FCOLLECT: shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, bytes); break;
    case ALLTOALL: shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, bytes); break;
    }
#else
    int n = shmem_n_pes();
    switch (c) {
    case BARRIER: shmem_barrier_all(); break;
    case BCAST: shmem_broadcast64(dst, src, bytes / 8, 0, 0, 0, n, psync); break;
    case REDUCE:
        shmem_long_sum_to_all(dst, src, (int)(bytes / 8), 0, 0, n, pwrk, psync);
        break;
    case FCOLLECT: shmem_fcollect64(dst, src, bytes / 8, 0, 0, n, psync); break;
    case ALLTOALL: shmem_alltoall64(dst, src, bytes / 8, 0, 0, n, psync); break;
    }
#endif
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 1u << 20, 1000, 20 };
    int me = bench_init(argc, argv, &o, NULL, "coll", 1, BENCH_MAX_PES);
    int n = shmem_n_pes();
    if (o.min_size < 8)
        o.min_size = 8;
    size_t span = o.max_size * (size_t)n; /* fcollect/alltoall move bytes per PE times n */
    src = bench_malloc_filled(span, me + 1);
    dst = bench_malloc_filled(span, 0);
#if !BENCH_HAVE_SPEC_1_5
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    size_t wrk = o.max_size / 8 / 2 + 1;
    pwrk = shmem_malloc(
            (wrk > SHMEM_REDUCE_MIN_WRKDATA_SIZE ? wrk : SHMEM_REDUCE_MIN_WRKDATA_SIZE) *
            sizeof(long));
#endif
    shmem_barrier_all();

    for (int c = 0; c < COLLS; c++) {
        if (me == 0)
            bench_header(coll_names[c],
                         c == BARRIER ? "# Size          Latency (us)"
                                      : "# Size/PE       Latency (us)");
        size_t first = c == BARRIER ? 0 : o.min_size, last = c == BARRIER ? 0 : o.max_size;
        for (size_t size = first; size <= last; size = size ? size * 2 : 1) {
            double us = bench_time_coll(run_coll, c, size,
                                        bench_iters_for(&o, size * (size_t)n), o.warmup);
            if (me == 0) {
                printf("%-14zu %14.2f\n", size, us);
                bench_result(coll_names[c], size, "lat_us", us);
            }
        }
    }
    shmem_barrier_all();
#if !BENCH_HAVE_SPEC_1_5
    shmem_free(pwrk);
#endif
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
