/* The GPU figures of docs/gpu.md, PE 0 to PE 1 on one node (run at 2 PEs):
 *   put bandwidth H-D, D-H, D-D at 1 and 16 MiB, beside the backend's own copy
 *     between the same buffers (cuMemcpyAsync + stream synchronize on cuda: the limit);
 *   8 B device-to-device put latency;
 *   how long a 1 MiB device put takes while a kernel of the program holds the GPU for
 *     about a second, as a share of the kernel's time;
 *   what an 8 B stream-ordered put adds to its stream over a plain 8 B stream copy,
 *     device to device (the stream's own copy) and into a host-heap object (through
 *     the proxy), and a host put's latency beside it.
 * Medians of -i repetitions. Shoal-internal (the backend's copies, the test streams),
 * so it links libshoal statically. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_stream.h"

/* The backend's own copy between dst and src, waited for: what a put can at best do. */
static void ref_copy(void *s, void *dst, const void *src, size_t n)
{
    if (tstream_is_emu()) {
        if (shoal_dev_is_device(dst) && shoal_dev_is_device(src))
            tdev_d2d(dst, src, n);
        else if (shoal_dev_is_device(dst))
            tdev_h2d(dst, src, n);
        else
            tdev_d2h(dst, src, n);
        return;
    }
    CHECK(tcu.MemcpyAsync((uintptr_t)dst, (uintptr_t)src, n, s) == 0);
    tstream_sync(s);
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 16 << 20, 20, 2 };
    bench_init(argc, argv, &o, NULL, "dev_stream", 2, 0);
    int me = shmem_my_pe();
    size_t big = o.max_size;
    unsigned char *dsym = shmem_space_malloc(SHMEM_SPACE_DEVICE, big);
    unsigned char *hsym = shmem_malloc(big);
    unsigned char *dbuf = tdev_malloc(big), *hbuf = malloc(big);
    CHECK(dsym && hsym && hbuf);
    memset(hbuf, 1, big);
    memset(hsym, 2, big);
    void *s = tstream_create();
    int reps = (int)o.iters;
    double *t = malloc((size_t)(reps > 1000 ? reps : 1000) * sizeof *t);
    CHECK(t != NULL);
    shmem_barrier_all();
    if (me == 0) {
        printf("# PE 0 -> PE 1 on %s, medians of %d\n", tdev_name(), reps);
        printf("%-6s %10s %12s %12s %8s\n", "kind", "bytes", "put GB/s", "copy GB/s",
               "ratio");
        unsigned char *pd = shmem_ptr(dsym, 1), *ph = shmem_ptr(hsym, 1);
        struct {
            const char *kind;
            void *dst, *peer;
            const void *src;
        } k[] = { { "H-D", dsym, pd, hbuf },
                  { "D-H", hsym, ph, dbuf },
                  { "D-D", dsym, pd, dbuf } };
        for (size_t c = 0; c < 3; c++)
            for (size_t n = 1 << 20; n <= big; n *= 16) {
                for (int i = 0; i < reps; i++) {
                    double t0 = bench_now();
                    shmem_putmem(k[c].dst, k[c].src, n, 1);
                    t[i] = bench_now() - t0;
                }
                double put = n / bench_median(t, reps) / 1e9;
                double ref = 0;
                if (k[c].peer) {
                    for (int i = 0; i < reps; i++) {
                        double t0 = bench_now();
                        ref_copy(s, k[c].peer, k[c].src, n);
                        t[i] = bench_now() - t0;
                    }
                    ref = n / bench_median(t, reps) / 1e9;
                }
                printf("%-6s %10zu %12.2f %12.2f %8.2f\n", k[c].kind, n, put, ref,
                       ref > 0 ? put / ref : 0);
                char name[32];
                snprintf(name, sizeof name, "dev_put_%s", k[c].kind);
                bench_result(name, n, "GB/s", put);
                snprintf(name, sizeof name, "dev_copy_%s", k[c].kind);
                bench_result(name, n, "GB/s", ref);
            }
        for (int i = 0; i < 1000; i++) {
            double t0 = bench_now();
            shmem_putmem(dsym, dbuf, 8, 1);
            t[i] = bench_now() - t0;
        }
        double lat = bench_median(t, 1000) * 1e6;
        for (int i = 0; i < 1000; i++) {
            double t0 = bench_now();
            shmem_putmem(hsym, hbuf, 8, 1);
            t[i] = bench_now() - t0;
        }
        double host_lat = bench_median(t, 1000) * 1e6;
        printf("8 B D-D put: %.2f us; 8 B host put: %.3f us\n", lat, host_lat);
        bench_result("dev_put_latency_8B", 8, "us", lat);
        bench_result("host_put_latency_8B", 8, "us", host_lat);

        /* A put while the program's kernel holds the GPU. */
        volatile uint32_t *flag = tstream_host_word(), *seen = tstream_host_word();
        double k0 = bench_now();
        tstream_hold(s, flag, seen, 10000);
        double p0 = bench_now();
        shmem_putmem(dsym, dbuf, 1 << 20, 1);
        double put_us = (bench_now() - p0) * 1e6;
        while (bench_now() - k0 < 1.0)
            ;
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
        tstream_sync(s);
        double kernel_us = (bench_now() - k0) * 1e6;
        printf("1 MiB put during a %.0f us kernel: %.1f us (%.3f%% of the kernel)%s\n",
               kernel_us, put_us, 100 * put_us / kernel_us,
               *seen == 1 ? "" : " [the kernel timed out: the put waited for it]");
        tstream_host_word_free(flag);
        tstream_host_word_free(seen);
        bench_result("put_during_kernel", 1 << 20, "us", put_us);
        bench_result("put_during_kernel_share", 1 << 20, "percent", 100 * put_us / kernel_us);

        /* Stream-ordered 8 B puts against plain 8 B stream copies, K of each. */
        int K = 200;
        double te[5], tp[5];
        for (int r = 0; r < 5; r++) {
            double t0 = bench_now();
            for (int i = 0; i < K; i++)
                tstream_copy(s, dbuf + 64, dbuf, 8);
            tstream_sync(s);
            te[r] = bench_now() - t0;
            t0 = bench_now();
            for (int i = 0; i < K; i++)
                shmemx_putmem_on_stream(dsym, dbuf, 8, 1, s);
            tstream_sync(s);
            tp[r] = bench_now() - t0;
        }
        double empty = bench_median(te, 5) / K * 1e6, sput = bench_median(tp, 5) / K * 1e6;
        /* Into PE 1's host heap: the proxy runs each put. */
        for (int r = 0; r < 5; r++) {
            double t0 = bench_now();
            for (int i = 0; i < K; i++)
                shmemx_putmem_on_stream(hsym, dbuf, 8, 1, s);
            tstream_sync(s);
            tp[r] = bench_now() - t0;
        }
        double pput = bench_median(tp, 5) / K * 1e6;
        printf("stream op: 8 B copy %.2f us; 8 B put_on_stream D-D %.2f us (+%.2f), through "
               "the proxy (D to a host-heap object) %.2f us (+%.2f); host put %.3f us\n",
               empty, sput, sput - empty, pput, pput - empty, host_lat);
        bench_result("stream_copy_8B", 8, "us", empty);
        bench_result("stream_put_8B", 8, "us", sput);
        bench_result("stream_put_overhead_8B", 8, "us", sput - empty);
        bench_result("stream_put_proxy_8B", 8, "us", pput);
        bench_result("stream_put_proxy_overhead_8B", 8, "us", pput - empty);
    }
    shmem_barrier_all();
    tstream_destroy(s);
    tdev_free(dbuf);
    shmem_free(hsym);
    shmem_free(dsym);
    free(hbuf);
    free(t);
    shmem_finalize();
    return 0;
}
