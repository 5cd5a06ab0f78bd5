/* Strided alltoall latency over block sizes on all PEs: shmem_alltoalls with both
 * strides 2 (every other element of source and dest), for 4-, 8- and 16-byte
 * elements. -s/-m give the elements per block (from one member to another), not
 * bytes. Each call is timed on its own between barriers; the figure is the slowest
 * PE's average. Uses the 1.5 team interfaces where the library has them and the 1.4
 * active-set ones (32 and 64 bits only) otherwise, so it builds everywhere; with the
 * team ones, the active-set ones over all PEs too (rows alltoalls32_set and
 * alltoalls64_set). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRIDE 2

static long psync[SHMEM_ALLTOALLS_SYNC_SIZE];

enum kind { A32, A64, A128, S32, S64, KINDS };
static const char *const names[KINDS] = { "alltoalls32", "alltoalls64", "alltoalls128",
                                          "alltoalls32_set", "alltoalls64_set" };
static const size_t esizes[KINDS] = { 4, 8, 16, 4, 8 };

/* One strided alltoall of nelems elements per block on the whole job. */
static void run(enum kind k, void *dst, const void *src, size_t nelems)
{
    int n = shmem_n_pes();
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
    case S32: shmem_alltoalls32(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    case S64: shmem_alltoalls64(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    case KINDS: break;
    }
#else
    switch (k) {
    case A32: shmem_alltoalls32(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    case A64: shmem_alltoalls64(dst, src, STRIDE, STRIDE, nelems, 0, 0, n, psync); break;
    case A128:
    case S32:
    case S64:
    case KINDS: break;
    }
#endif
}

/* Returns the slowest PE's average microseconds per call (valid on PE 0). */
static double time_one(enum kind k, void *dst, const void *src, size_t nelems, long iters,
                       long warmup)
{
    double sum = 0;
    for (long i = -warmup; i < iters; i++) {
        shmem_barrier_all(); /* every PE starts the call together */
        double t0 = bench_now();
        run(k, dst, src, nelems);
        if (i >= 0)
            sum += bench_now() - t0;
    }
    return bench_slowest(sum / (double)iters * 1e6);
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 4096, 1000, 20 };
    shmem_init();
    bench_parse(argc, argv, &o, "  -s/-m: elements per block\n");
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > BENCH_MAX_PES) {
        if (me == 0)
            fprintf(stderr, "alltoalls supports at most %d PEs\n", BENCH_MAX_PES);
        shmem_finalize();
        return 1;
    }
    /* n blocks of max_size elements, STRIDE apart, of the largest element */
    size_t span = o.max_size * (size_t)n * STRIDE * 16;
    char *src = shmem_malloc(span);
    char *dst = shmem_malloc(span);
    if (!src || !dst) {
        if (me == 0)
            fprintf(stderr, "alltoalls: %zu bytes of symmetric heap twice do not fit\n",
                    span);
        shmem_global_exit(1);
    }
    memset(src, me + 1, span);
    memset(dst, 0, span);
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    for (int k = 0; k < KINDS; k++) {
        /* Without the team forms, alltoalls32/64 are the active-set ones already. */
        if (!BENCH_HAVE_SPEC_1_5 && k >= A128)
            continue;
        if (me == 0)
            bench_header(names[k], "# Elements/block  Latency (us)");
        for (size_t m = o.min_size; m <= o.max_size; m *= 2) {
            size_t bytes = m * esizes[k] * (size_t)n;
            double us = time_one(k, dst, src, m, bench_iters_for(&o, bytes), o.warmup);
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
