/* Put and get bandwidth from PE 0 to PE 1: windows of `-W` non-blocking transfers
 * then one shmem_quiet, as the OSU bandwidth tests do. Other PEs stay idle. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double window_rate(int get, char *dst, char *src, size_t size, long rounds,
                          long warmup, int window)
{
    double t0 = 0;
    for (long r = -warmup; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        for (int w = 0; w < window; w++) {
            if (get)
                shmem_getmem_nbi(dst, src, size, 1);
            else
                shmem_putmem_nbi(dst, src, size, 1);
        }
        shmem_quiet();
    }
    double bytes = (double)size * (double)window * (double)rounds;
    return bytes / (bench_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 4u << 20, 1000, 10 };
    const int window = 64;
    int me = bench_init(argc, argv, &o, NULL, "rma_bandwidth", 2, 0);
    char *dst = bench_malloc_filled(o.max_size, 1);
    char *src = bench_malloc_filled(o.max_size, 2);
    shmem_barrier_all();

    static const char *names[] = { "put_bw", "get_bw" };
    for (int get = 0; get < 2; get++) {
        if (me == 0)
            bench_header(get ? "shmem_getmem_nbi bandwidth (window 64)"
                             : "shmem_putmem_nbi bandwidth (window 64)",
                         "# Size      Bandwidth (MB/s)");
        for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
            /* Every put of a window lands at the same place: bandwidth, not capacity. */
            long rounds = bench_iters_for(&o, size * window);
            shmem_barrier_all();
            if (me == 0) {
                double mbs = window_rate(get, dst, src, size, rounds, o.warmup, window);
                printf("%-10zu %18.2f\n", size, mbs);
                bench_result(names[get], size, "bw_MBps", mbs);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
