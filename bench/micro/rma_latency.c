/* Blocking put and get latency between PE 0 and PE 1, 1 B .. max size (into the heap
 * or static data, by BENCH_TARGET), OSU's 8-byte put latency (put_lat_osu: puts
 * back to back, one quiet at the end of the loop, time divided by the count), and the
 * half round trip of an 8-byte ping-pong (shmem_long_p + wait_until): the figure to
 * hold against the machine's plain shared-memory ping-pong. Other PEs stay idle. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

static long ping;                 /* symmetric: the ping-pong flag */
static char global_dst[4u << 20]; /* symmetric: the put/get target with BENCH_TARGET=global */

/* A blocking get, or a put and the quiet that completes it, to PE 1. */
static double latency(int get, char *dst, const char *src, size_t size, long iters,
                      long warmup)
{
    double t0 = 0;
    for (long i = -warmup; i < iters; i++) {
        if (i == 0)
            t0 = bench_now();
        if (get) {
            shmem_getmem(dst, src, size, 1);
        } else {
            shmem_putmem(dst, src, size, 1);
            shmem_quiet();
        }
    }
    return (bench_now() - t0) / (double)iters;
}

/* As osu_oshm_put measures it: no quiet per put, so this is the time to issue one. */
static double put_latency_osu(char *dst, const char *src, size_t size, long iters,
                              long warmup)
{
    for (long i = 0; i < warmup; i++)
        shmem_putmem(dst, src, size, 1);
    shmem_quiet();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
        shmem_putmem(dst, src, size, 1);
    shmem_quiet();
    return (bench_now() - t0) / (double)iters;
}

/* Returns the half round trip on PE 0; PE 1 answers every ping. */
static double pingpong(int me, long iters, long warmup)
{
    double t0 = 0;
    for (long i = 1 - warmup; i <= iters; i++) {
        long v = i + warmup; /* strictly increasing, never 0 */
        if (i == 1)
            t0 = bench_now();
        if (me == 0) {
            shmem_long_p(&ping, v, 1);
            shmem_long_wait_until(&ping, SHMEM_CMP_EQ, -v);
        } else {
            shmem_long_wait_until(&ping, SHMEM_CMP_EQ, v);
            shmem_long_p(&ping, -v, 0);
        }
    }
    return (bench_now() - t0) / (double)iters / 2.0;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 4u << 20, 10000, 100 };
    int me = bench_init(argc, argv, &o, NULL, "rma_latency", 2, 0);
    char *dst = bench_target(global_dst, sizeof global_dst, o.max_size);
    char *src = bench_malloc_filled(o.max_size, 2);
    memset(dst, 1, o.max_size);
    shmem_barrier_all();

    static const char *names[] = { "put_lat", "get_lat" };
    for (int kind = 0; kind < 2; kind++) {
        if (me == 0)
            bench_header(kind == 0 ? "shmem_putmem + quiet latency" : "shmem_getmem latency",
                         "# Size          Latency (us)");
        for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
            long iters = bench_iters_for(&o, size);
            shmem_barrier_all();
            if (me == 0) {
                double t = latency(kind, dst, src, size, iters, o.warmup);
                printf("%-14zu %14.2f\n", size, t * 1e6);
                bench_result(names[kind], size, "lat_us", t * 1e6);
            }
        }
    }

    shmem_barrier_all();
    if (me == 0 && o.max_size >= 8) {
        double t = put_latency_osu(dst, src, 8, o.iters, o.warmup);
        bench_header("8-byte shmem_putmem latency, OSU style (one quiet per loop)",
                     "# Size          Latency (us)");
        printf("%-14d %14.2f\n", 8, t * 1e6);
        bench_result("put_lat_osu", 8, "lat_us", t * 1e6);
    }
    shmem_barrier_all();
    if (me <= 1) {
        double t = pingpong(me, o.iters, o.warmup);
        if (me == 0) {
            bench_header("8-byte ping-pong (p + wait_until), half round trip",
                         "# Size          Latency (us)");
            printf("%-14d %14.2f\n", 8, t * 1e6);
            bench_result("pingpong", 8, "lat_us", t * 1e6);
        }
    }
    shmem_barrier_all();
    shmem_free(src);
    if (dst != global_dst)
        shmem_free(dst);
    shmem_finalize();
    return 0;
}
