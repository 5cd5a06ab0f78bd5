/* Put-with-signal against the hand-built equivalent, put + fence + atomic_set
 * (seed 001, Fig. 17), PE 0 <-> PE 1:
 *  - latency: half round trip of a ping-pong whose every message is data + signal;
 *  - bandwidth: windows of blocking data+signal messages (signal ADD), one quiet each.
 * shmem_putmem_signal exists from OpenSHMEM 1.5; on older libraries only the
 * hand-built variant runs. Other PEs stay idle. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

static uint64_t sig; /* symmetric signal word (uint64_t is unsigned long on LP64) */

enum variant { MANUAL, PUT_SIGNAL, VARIANTS };

static void send(enum variant v, char *dst, const char *src, size_t size, uint64_t value,
                 int add, int pe)
{
#if BENCH_HAVE_SPEC_1_5
    if (v == PUT_SIGNAL) {
        shmem_putmem_signal(dst, src, size, &sig, value,
                            add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET, pe);
        return;
    }
#endif
    (void)v;
    shmem_putmem(dst, src, size, pe);
    shmem_fence();
    if (add)
        shmem_ulong_atomic_add(&sig, value, pe);
    else
        shmem_ulong_atomic_set(&sig, value, pe);
}

static void wait_signal(enum variant v, uint64_t value)
{
#if BENCH_HAVE_SPEC_1_5
    if (v == PUT_SIGNAL) {
        shmem_signal_wait_until(&sig, SHMEM_CMP_GE, value);
        return;
    }
#endif
    (void)v;
    shmem_ulong_wait_until(&sig, SHMEM_CMP_GE, value);
}

static double latency(enum variant v, int me, char *dst, const char *src, size_t size,
                      long iters)
{
    double t0 = bench_now();
    for (long i = 1; i <= iters; i++) {
        if (me == 0) {
            send(v, dst, src, size, 2 * i - 1, 0, 1);
            wait_signal(v, 2 * i);
        } else {
            wait_signal(v, 2 * i - 1);
            send(v, dst, src, size, 2 * i, 0, 0);
        }
    }
    return (bench_now() - t0) / (double)iters / 2.0;
}

static double bandwidth(enum variant v, int me, char *dst, const char *src, size_t size,
                        long rounds)
{
    const int window = 64;
    double t0 = bench_now();
    if (me == 0) {
        for (long r = 0; r < rounds; r++) {
            for (int w = 0; w < window; w++)
                send(v, dst, src, size, 1, 1, 1);
            shmem_quiet();
        }
    } else {
        wait_signal(v, (uint64_t)rounds * window);
    }
    return (double)size * window * (double)rounds / (bench_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1, 1u << 20, 5000, 0 };
    static const char *const names[VARIANTS] = { "put_fence_set", "put_signal" };
    int me = bench_init(argc, argv, &o, NULL, "signal", 2, 0);
    char *dst = bench_malloc_filled(o.max_size, 1);
    char *src = bench_malloc_filled(o.max_size, 2);
    int variants = BENCH_HAVE_SPEC_1_5 ? VARIANTS : 1;

    for (int v = 0; v < variants; v++) {
        for (int bw = 0; bw < 2; bw++) {
            char title[96], bench[64];
            snprintf(title, sizeof title, "%s %s", names[v],
                     bw ? "bandwidth (window 64)" : "ping-pong latency (half round trip)");
            snprintf(bench, sizeof bench, "%s_%s", names[v], bw ? "bw" : "lat");
            if (me == 0)
                bench_header(title,
                             bw ? "# Size      Bandwidth (MB/s)"
                                : "# Size          Latency (us)");
            for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
                sig = 0;
                shmem_barrier_all();
                if (me <= 1) {
                    double x = bw
                            ? bandwidth(v, me, dst, src, size, bench_iters_for(&o, size * 64))
                            : latency(v, me, dst, src, size, bench_iters_for(&o, size)) * 1e6;
                    if (me == 0) {
                        printf(bw ? "%-10zu %18.2f\n" : "%-14zu %14.2f\n", size, x);
                        bench_result(bench, size, bw ? "bw_MBps" : "lat_us", x);
                    }
                }
                shmem_barrier_all();
            }
        }
    }
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
