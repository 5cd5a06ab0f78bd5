/* Small-message rates from PE 0 to PE 1: 8-byte shmem_putmem_nbi with one quiet per
 * window, and shmem_long_p (single-element put) likewise. Other PEs stay idle. */
#include "bench.h"

#include <stdio.h>

static long global_target[64]; /* symmetric: the target with BENCH_TARGET=global */
static long *target;           /* it, or a heap array (bench_target); each op of a
                                 * window writes its own element */
static long source[64];

static double rate(int use_p, long rounds, long warmup)
{
    const int window = 64;
    double t0 = 0;
    for (long r = -warmup; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        for (int w = 0; w < window; w++) {
            if (use_p)
                shmem_long_p(&target[w], r, 1);
            else
                shmem_putmem_nbi(&target[w], &source[w], sizeof(long), 1);
        }
        shmem_quiet();
    }
    return (double)rounds * window / (bench_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 20000, 100 };
    int me = bench_init(argc, argv, &o, NULL, "msg_rate", 2, 0);
    target = bench_target(global_target, sizeof global_target, sizeof global_target);
    shmem_barrier_all();
    if (me == 0) {
        bench_header("8-byte message rate", "# Operation         Rate (Mops/s)");
        double nbi = rate(0, o.iters, o.warmup);
        printf("%-20s %14.3f\n", "putmem_nbi", nbi);
        bench_result("put_nbi_rate", 8, "rate_Mops", nbi);
        double p = rate(1, o.iters, o.warmup);
        printf("%-20s %14.3f\n", "long_p", p);
        bench_result("p_rate", 8, "rate_Mops", p);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
