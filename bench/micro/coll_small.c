/* The small collectives a launch setting shows up in first: barrier, and 8-byte
 * broadcast, sum reduction, collect and fcollect, on all PEs. Each call is timed
 * on its own between barriers; the figure is the slowest PE's average. Written
 * against 1.4 (active sets) or 1.5 (teams) so Open MPI's OSHMEM builds it too;
 * scripts/bench-binding.sh runs it to compare launch settings. */
#include "bench.h"

#include <stdio.h>

enum coll { BARRIER, BCAST, REDUCE, COLLECT, FCOLLECT, COLLS };
static const char *const names[COLLS] = { "barrier", "bcast", "reduce", "collect",
                                          "fcollect" };

static long src[1], dst[4096];
#if !BENCH_HAVE_SPEC_1_5
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_COLLECT_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE ? SHMEM_COLLECT_SYNC_SIZE
                                                                   : SHMEM_REDUCE_SYNC_SIZE];
#endif

/* One collective of count longs per PE on the whole job. */
static void run(int c, size_t count)
{
#if BENCH_HAVE_SPEC_1_5
    switch (c) {
    case BARRIER: shmem_barrier_all(); break;
    case BCAST: shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, count, 0); break;
    case REDUCE: shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, count); break;
    case COLLECT: shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, count); break;
    case FCOLLECT: shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, count); break;
    }
#else
    int n = shmem_n_pes();
    switch (c) {
    case BARRIER: shmem_barrier_all(); break;
    case BCAST: shmem_broadcast64(dst, src, count, 0, 0, 0, n, psync); break;
    case REDUCE: shmem_long_sum_to_all(dst, src, (int)count, 0, 0, n, pwrk, psync); break;
    case COLLECT: shmem_collect64(dst, src, count, 0, 0, n, psync); break;
    case FCOLLECT: shmem_fcollect64(dst, src, count, 0, 0, n, psync); break;
    }
#endif
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 20000, 200 };
    int me = bench_init(argc, argv, &o, NULL, "coll_small", 1,
                        (int)(sizeof dst / sizeof dst[0]));
    int n = shmem_n_pes();
#if !BENCH_HAVE_SPEC_1_5
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
#endif
    src[0] = me + 1;
    shmem_barrier_all();
    for (int c = 0; c < COLLS; c++) {
        double worst = bench_time_coll(run, c, 1, o.iters, o.warmup);
        if (me == 0)
            bench_result(names[c], c == BARRIER ? 0 : 8, "lat_us", worst);
    }
    /* The last collective ran was fcollect: dst holds every PE's src. */
    int bad = 0;
    for (int pe = 0; pe < n; pe++)
        bad |= dst[pe] != pe + 1;
    shmem_finalize();
    if (bad)
        fprintf(stderr, "coll_small: PE %d: fcollect result wrong\n", me);
    return bad;
}
