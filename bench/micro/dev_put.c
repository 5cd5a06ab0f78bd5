/* GPU-aware put, in the form of the paper's section 6.2 (modified OSU put tests): for
 * each pairing of source and destination memory, H-H, H-D, D-H and D-D (source
 * first; D = the device space, H = the default space), PE 0 -> PE 1:
 *   dev_put_lat   blocking shmem_putmem + shmem_quiet (delivery), microseconds;
 *   dev_put_bw    a window of shmem_putmem_nbi then shmem_quiet, MB/s.
 * Needs SHMEM_SYMMETRIC_SIZE_DEVICE >= 2 x the largest size (both buffers of a
 * device pairing live in the device space) and Shoal's shmemx.h memory spaces. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 4u << 20, 1000, 20 };
    int me = bench_init(argc, argv, &o, NULL, "dev_put", 2, 0);
    char *h[2] = { shmem_malloc(o.max_size), shmem_malloc(o.max_size) };
    char *d[2] = { shmem_space_malloc(SHMEM_SPACE_DEVICE, o.max_size),
                   shmem_space_malloc(SHMEM_SPACE_DEVICE, o.max_size) };
    if (!h[0] || !h[1] || !d[0] || !d[1]) {
        if (me == 0)
            fprintf(stderr,
                    "dev_put: set SHMEM_SYMMETRIC_SIZE_DEVICE to at least twice -m\n");
        shmem_global_exit(1);
    }
    memset(h[0], 3, o.max_size);
    /* Fill the device source through a put from host memory, and check one landing. */
    shmem_putmem(d[0], h[0], o.max_size, me);
    shmem_barrier_all();

    static const char *pair[] = { "HH", "HD", "DH", "DD" };
    for (int p = 0; p < 4; p++) {
        char *src = p & 2 ? d[0] : h[0];
        char *dst = p & 1 ? d[1] : h[1];
        char name[32];
        snprintf(name, sizeof name, "dev_put_%s", pair[p]);
        if (me == 0) {
            char title[96];
            snprintf(title, sizeof title,
                     "put %c->%c: latency (put + quiet) and put_nbi bandwidth", pair[p][0],
                     pair[p][1]);
            bench_header(title, "# Size          Latency (us)    Bandwidth (MB/s)");
        }
        for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
            long iters = bench_iters_for(&o, size);
            shmem_barrier_all();
            if (me == 0) {
                double t0 = 0;
                for (long i = -o.warmup; i < iters; i++) {
                    if (i == 0)
                        t0 = bench_now();
                    shmem_putmem(dst, src, size, 1);
                    shmem_quiet();
                }
                double lat = (bench_now() - t0) / (double)iters * 1e6;
                long reps = iters / WINDOW > 0 ? iters / WINDOW : 1;
                for (long i = -1; i < reps; i++) {
                    if (i == 0)
                        t0 = bench_now();
                    for (int w = 0; w < WINDOW; w++)
                        shmem_putmem_nbi(dst, src, size, 1);
                    shmem_quiet();
                }
                double bw = (double)size * WINDOW * (double)reps / (bench_now() - t0) / 1e6;
                printf("%-15zu %-15.2f %.1f\n", size, lat, bw);
                snprintf(name, sizeof name, "dev_put_lat_%s", pair[p]);
                bench_result(name, size, "latency_us", lat);
                snprintf(name, sizeof name, "dev_put_bw_%s", pair[p]);
                bench_result(name, size, "bandwidth_MBps", bw);
            }
        }
        shmem_barrier_all();
        /* The last put delivered the source's bytes to PE 1's destination. */
        if (me == 0) {
            char c;
            shmem_getmem(&c, dst + o.max_size - 1, 1, 1);
            if (c != 3) {
                fprintf(stderr, "dev_put %s: PE 1 holds %d, expected 3\n", pair[p], c);
                shmem_global_exit(1);
            }
        }
    }
    shmem_barrier_all();
    shmem_free(d[1]);
    shmem_free(d[0]);
    shmem_free(h[1]);
    shmem_free(h[0]);
    shmem_finalize();
    return 0;
}
