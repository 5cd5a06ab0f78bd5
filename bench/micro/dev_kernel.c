/* Device-initiated puts from emu kernels (shmemx_device.h), PE 0 -> PE 1, what the
 * emulated device can say about the kernel paths whose GPU figures
 * tests/device/cuda/devinit_cuda.cu prints:
 *   a block-form and a warp-form put of -m bytes by a kernel of -t threads, against
 *     one memcpy between the same buffers (the emulated device's copy rate) and the
 *     host path's shmem_putmem + shmem_quiet to the same PE;
 *   one kernel thread keeping -m / 16 KiB putmem_nbi in flight, then quiet, with the
 *     proxy's batches and merged puts (SHOAL_DEVICE_PROXY_ALL=1: every put through
 *     the proxy, which is what its figures are about);
 *   the round trip of an 8-byte put-with-signal between kernels of the two PEs.
 * Medians of -i repetitions; each put is checked once. Emu only (its kernels are host
 * threads); run: SHOAL_DEVICE=emu SHMEM_SYMMETRIC_SIZE_DEVICE=64M oshrun -n 2 dev_kernel */
#include "bench.h"

#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PIECE (16 << 10)
#define PINGS 200

static int threads = 16;
static unsigned char *dst, *src;
static uint64_t *sig;
static size_t len;

static void k_block(int t, int nt, void *arg)
{
    (void)t, (void)nt, (void)arg;
    shmemx_dev_putmem_block(dst, src, len, 1);
}

static void k_warp(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    int warps = (threads + SHMEMX_DEV_EMU_WARP - 1) / SHMEMX_DEV_EMU_WARP;
    int w = t / SHMEMX_DEV_EMU_WARP;
    size_t slice = len / (size_t)warps, off = slice * (size_t)w;
    shmemx_dev_putmem_warp(dst + off, src + off, w == warps - 1 ? len - off : slice, 1);
}

static void k_inflight(int t, int nt, void *arg)
{
    (void)t, (void)nt, (void)arg;
    for (size_t off = 0; off < len; off += PIECE)
        shmemx_dev_putmem_nbi(dst + off, src + off, len - off < PIECE ? len - off : PIECE, 1);
    shmemx_dev_quiet();
}

/* PE 0 and PE 1 bounce a signal; *(double *)arg: seconds per round trip. */
static void k_ping(int t, int nt, void *arg)
{
    (void)t, (void)nt;
    int me = shmemx_dev_my_pe();
    double t0 = bench_now();
    for (uint64_t r = 1; r <= PINGS; r++) {
        if (me == 1)
            shmemx_dev_signal_wait_until(sig, SHMEM_CMP_GE, r);
        shmemx_dev_putmem_signal(dst, src, 8, sig, r, SHMEM_SIGNAL_SET, 1 - me);
        if (me == 0)
            shmemx_dev_signal_wait_until(sig, SHMEM_CMP_GE, r);
    }
    *(double *)arg = (bench_now() - t0) / PINGS;
}

static void check(const char *what)
{
    unsigned char *got = malloc(len), *want = malloc(len);
    if (!got || !want) {
        fprintf(stderr, "dev_kernel: out of memory\n");
        shmem_global_exit(1);
    }
    shmem_getmem(got, dst, len, 1);
    shmem_getmem(want, src, len, 0);
    if (memcmp(got, want, len) != 0) {
        fprintf(stderr, "dev_kernel: %s: PE 1's destination differs from PE 0's source\n",
                what);
        shmem_global_exit(1);
    }
    free(got);
    free(want);
}

static double time_kernel(void (*k)(int, int, void *), int nt, int reps, double *t)
{
    for (int i = -1; i < reps; i++) { /* the first is a warm-up */
        double t0 = bench_now();
        shmemx_device_launch(k, nt, NULL);
        if (i >= 0)
            t[i] = bench_now() - t0;
    }
    return bench_median(t, reps);
}

int main(int argc, char **argv)
{
    int provided;
    /* The proxy thread needs threads; bench_init's shmem_init then nests. */
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    struct bench_opts o = { 1, 16 << 20, 10, 1 };
    int me = bench_init(argc, argv, &o, NULL, "dev_kernel", 2, 2);
    const char *env = getenv("DEV_KERNEL_THREADS");
    if (env)
        threads = atoi(env);
    if (threads < 1 || threads > 1024) {
        fprintf(stderr, "dev_kernel: DEV_KERNEL_THREADS must be 1 to 1024\n");
        shmem_global_exit(1);
    }
    len = o.max_size;
    int reps = (int)o.iters;
    dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, len);
    src = shmem_space_malloc(SHMEM_SPACE_DEVICE, len);
    sig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof *sig);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!dst || !src || !sig || !t) {
        if (me == 0)
            fprintf(stderr,
                    "dev_kernel: set SHMEM_SYMMETRIC_SIZE_DEVICE to at least 2 x -m\n");
        shmem_global_exit(1);
    }
    struct shmemx_dev_state *st = shmemx_device_state();
    *(uint64_t *)shmemx_dev_ptr(sig, me) = 0;
    unsigned char *mine = shmemx_dev_ptr(src, me);
    for (size_t i = 0; i < len; i++)
        mine[i] = (unsigned char)(i * 13 + 7);
    shmem_barrier_all();
    double rtt = 0;
    shmemx_device_launch(k_ping, 1, &rtt);
    shmem_barrier_all();
    if (me == 0) {
        int proxied = shmemx_dev_ptr(dst, 1) == NULL;
        const char *path = proxied ? "through the proxy" : "direct";
        double gb = (double)len / 1e9;
        unsigned char *peer = shmemx_dev_ptr(dst, 1);
        double copy = 0;
        if (peer) {
            for (int i = -1; i < reps; i++) {
                double t0 = bench_now();
                memcpy(peer, mine, len);
                if (i >= 0)
                    t[i] = bench_now() - t0;
            }
            copy = gb / bench_median(t, reps);
        }
        for (int i = -1; i < reps; i++) {
            double t0 = bench_now();
            shmem_putmem(dst, src, len, 1);
            shmem_quiet();
            if (i >= 0)
                t[i] = bench_now() - t0;
        }
        double host = gb / bench_median(t, reps);
        check("host put");
        double block = gb / time_kernel(k_block, threads, reps, t);
        check("block put");
        double warp = gb / time_kernel(k_warp, threads, reps, t);
        check("warp put");
        uint64_t b0 = st->ring ? st->ring->batches : 0, m0 = st->ring ? st->ring->merged : 0;
        double fly = gb / time_kernel(k_inflight, 1, reps, t);
        check("puts in flight");
        printf("# PE 0 -> PE 1 on emu, %s, %zu bytes, kernels of %d threads, medians of "
               "%d\n",
               path, len, threads, reps);
        printf("block put %.2f GB/s, warp put %.2f GB/s; memcpy %.2f GB/s; host put %.2f "
               "GB/s (block put: %.0f%% of it)\n",
               block, warp, copy, host, 100 * block / host);
        printf("one thread, %zu putmem_nbi of %d KiB then quiet: %.2f GB/s", len / PIECE,
               PIECE >> 10, fly);
        if (st->ring)
            printf(" (proxy: %llu batches, %llu merged puts)",
                   (unsigned long long)(st->ring->batches - b0),
                   (unsigned long long)(st->ring->merged - m0));
        printf("\n8 B put-with-signal round trip, kernel to kernel: %.2f us\n", rtt * 1e6);
        const char *tag = proxied ? "proxy" : "direct";
        char name[48];
        snprintf(name, sizeof name, "dev_kernel_block_%s", tag);
        bench_result(name, len, "GB/s", block);
        snprintf(name, sizeof name, "dev_kernel_warp_%s", tag);
        bench_result(name, len, "GB/s", warp);
        snprintf(name, sizeof name, "dev_kernel_host_%s", tag);
        bench_result(name, len, "GB/s", host);
        snprintf(name, sizeof name, "dev_kernel_inflight_%s", tag);
        bench_result(name, len, "GB/s", fly);
        snprintf(name, sizeof name, "dev_kernel_rtt_%s", tag);
        bench_result(name, 8, "us", rtt * 1e6);
    }
    shmem_barrier_all();
    free(t);
    shmem_free(sig);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    shmem_finalize();
    return 0;
}
