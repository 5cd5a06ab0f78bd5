/* The deprecated active-set forms the OSU OpenSHMEM benchmarks time, on every PE:
 * barrier_loop is shmem_barrier_all back to back (the loop's time over its count),
 * sum_to_all an 8-byte shmem_long_sum_to_all timed on its own with an untimed
 * barrier after it, alternating two pSync arrays. Each figure is given as the
 * average over the PEs (avg_us, as OSU reports) and the slowest PE's (max_us). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

static long src, dst, pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[2][SHMEM_REDUCE_SYNC_SIZE];

static void report(const char *name, double us)
{
    double avg, worst = bench_slowest_avg(us, &avg);
    if (shmem_my_pe() == 0) {
        bench_result(name, 8, "avg_us", avg);
        bench_result(name, 8, "max_us", worst);
    }
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 20000, 1000 };
    int me = bench_init(argc, argv, &o, NULL, "coll_set", 1, 0);
    int n = shmem_n_pes();
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
    src = me + 1;
    shmem_barrier_all();

    double t0 = 0;
    for (long i = -o.warmup; i < o.iters; i++) {
        if (i == 0)
            t0 = bench_now();
        shmem_barrier_all();
    }
    report("barrier_loop", (bench_now() - t0) / (double)o.iters * 1e6);

    double total = 0;
    int bad = 0;
    for (long i = -o.warmup; i < o.iters; i++) {
        double t = bench_now();
        shmem_long_sum_to_all(&dst, &src, 1, 0, 0, n, pwrk, psync[i & 1]);
        if (i >= 0)
            total += bench_now() - t;
        bad |= dst != (long)n * (n + 1) / 2;
        shmem_barrier_all();
    }
    report("sum_to_all", total / (double)o.iters * 1e6);
    shmem_finalize();
    if (bad)
        fprintf(stderr, "coll_set: PE %d: sum_to_all result wrong\n", me);
    return bad;
}
