/* Strided alltoall latency over block sizes on all PEs: shmem_alltoalls with both
 * strides 2 (every other element of source and dest), for 4-, 8- and 16-byte
 * elements. -s/-m give the elements per block (from one member to another), not
 * bytes. Each call is timed on its own between barriers; the figure is the slowest
 * PE's average. Uses the 1.5 team interfaces where the library has them and the 1.4
 * active-set ones (32 and 64 bits only) otherwise, so it builds everywhere. */
#include "bench.h"

#include <stdio.h>

#define STRIDE 2

#if !BENCH_HAVE_SPEC_1_5
static long psync[SHMEM_ALLTOALLS_SYNC_SIZE];
#endif

enum kind { A32, A64, A128, KINDS };
static const char *const names[KINDS] = { "alltoalls32", "alltoalls64", "alltoalls128" };
static const size_t esizes[KINDS] = { 4, 8, 16 };

static void *src, *dst; /* symmetric */

/* One strided alltoall of nelems elements per block on the whole job. */
static void run(int k, size_t nelems)
{
#if BENCH_HAVE_SPEC_1_5
    switch (k) {
    case A32:
        shmem_int32_alltoalls(SHMEM_TEAM_WORLD, dst, src, STRIDE, STRIDE, nelems);
        break;
    case A64:
        shmem_int64_alltoalls(SHMEM_TEAM_WORLD, dst, src, STRIDE, STRIDE, nelems);
        break;
    case A128:
        shmem_longdouble_alltoalls(SHMEM_TEAM_WORLD, dst, src, STRIDE, STRIDE, nelems);
        break;
    }
#else
    int n = shmem_n_pes();
    switch (k) {
    case A32: shmem_alltoalls32(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    case A64: shmem_alltoalls64(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    }
#endif
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 4096, 1000, 20 };
    int me = bench_init(argc, argv, &o, "  -s/-m: elements per block\n", "alltoalls", 1,
                        BENCH_MAX_PES);
    int n = shmem_n_pes();
    /* n blocks of max_size elements, STRIDE apart, of the largest element */
    size_t span = o.max_size * (size_t)n * STRIDE * 16;
    src = bench_malloc_filled(span, me + 1);
    dst = bench_malloc_filled(span, 0);
#if !BENCH_HAVE_SPEC_1_5
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
#endif
    shmem_barrier_all();

    for (int k = 0; k < KINDS; k++) {
        if (!BENCH_HAVE_SPEC_1_5 && k == A128)
            continue;
        if (me == 0)
            bench_header(names[k], "# Elements/block  Latency (us)");
        for (size_t m = o.min_size; m <= o.max_size; m *= 2) {
            size_t bytes = m * esizes[k] * (size_t)n;
            double us = bench_time_coll(run, k, m, bench_iters_for(&o, bytes), o.warmup);
            if (me == 0) {
                printf("%-16zu %14.2f\n", m, us);
                bench_result(names[k], m, "lat_us", us);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
