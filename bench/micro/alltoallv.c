/* shmemx_alltoallv beside the best exchange a program could write itself with
 * put-with-signal, on all PEs, for blocks of -s..-m bytes from every PE to every PE
 * (Shoal's extension, so this one builds against Shoal only).
 *
 * The hand-written exchange ("pws") does what alltoallv does with buffers of its own
 * and no barrier: each receiver puts its offset for each sender into that sender's
 * slot with a signal add (which also says the receiver is ready), and each sender,
 * once all its slots have come, puts its block there with a put-with-signal that
 * sets the receiver's word for it to round << 40 | length. A round ends when every
 * word carries the round. No PE can get a round ahead: a sender's next round needs
 * every receiver's next offset, sent only after that receiver's round ended. Every
 * put is non-blocking and the round ends with shmemx_local_complete, the least that
 * frees the sources (a quiet would wait for a round trip more over the network).
 *
 * -r rounds, interleaved (alltoallv then pws, the order swapped every round), each
 * timing -i calls; printed: the median and range of the rounds' averages (slowest
 * PE). Every size first checks both exchanges' data once. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUND_SHIFT 40

static long psync[SHMEM_ALLTOALL_SYNC_SIZE];
static size_t *t_off, *t_sz, *s_off, *s_sz; /* symmetric, n entries each */
static size_t *slot;                        /* pws: slot[i] = receiver i's offset for me */
static uint64_t slot_sig, *len_sig;         /* pws: slots arrived; per-sender length words */
static unsigned char *src, *dst;            /* symmetric */
static uint64_t pws_round;
static int me, n;

static void layout(size_t m)
{
    for (int i = 0; i < n; i++) {
        s_off[i] = (size_t)i * m;
        s_sz[i] = m;
        t_off[i] = (size_t)((i + 1) % n) * m; /* a rotation: not the identity layout */
    }
}

static void run_v(void)
{
    shmemx_alltoallv(dst, t_off, t_sz, src, s_off, s_sz, 0, 0, n, psync);
}

static void run_pws(void)
{
    uint64_t r = ++pws_round;
    for (int k = 0; k < n; k++) {
        int j = (me + k) % n;
        shmem_putmem_signal_nbi(&slot[me], &t_off[j], sizeof(size_t), &slot_sig, 1,
                                SHMEM_SIGNAL_ADD, j);
    }
    shmem_signal_wait_until(&slot_sig, SHMEM_CMP_GE, r * (uint64_t)n);
    for (int k = 0; k < n; k++) {
        int j = (me + k) % n;
        shmem_putmem_signal_nbi(dst + slot[j], src + s_off[j], s_sz[j], &len_sig[me],
                                r << ROUND_SHIFT | s_sz[j], SHMEM_SIGNAL_SET, j);
    }
    for (int i = 0; i < n; i++) {
        shmem_signal_wait_until(&len_sig[i], SHMEM_CMP_GE, r << ROUND_SHIFT);
        t_sz[i] = len_sig[i] & (((uint64_t)1 << ROUND_SHIFT) - 1);
    }
    /* The nbi puts' sources are free from here. */
    shmemx_local_complete();
}

static double time_calls(void (*run)(void), long iters)
{
    shmem_barrier_all();
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
        run();
    return bench_slowest((bench_now() - t0) * 1e6 / (double)iters);
}

static void verify(const char *what, size_t m)
{
    for (int i = 0; i < n; i++) {
        if (t_sz[i] != m) {
            fprintf(stderr, "alltoallv: PE %d: %s: %zu bytes from PE %d, expected %zu\n", me,
                    what, t_sz[i], i, m);
            shmem_global_exit(1);
        }
        for (size_t b = 0; b < m; b++)
            if (dst[t_off[i] + b] != (unsigned char)(i * 7 + me + b)) {
                fprintf(stderr, "alltoallv: PE %d: %s: byte %zu from PE %d wrong\n", me, what,
                        b, i);
                shmem_global_exit(1);
            }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 65536, 1000, 10 };
    long rounds = 9;
    /* -r ROUNDS is this program's own; the rest are bench_parse's. */
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-r")) {
            rounds = atol(argv[i + 1]);
            memmove(&argv[i], &argv[i + 2], (size_t)(argc - i - 1) * sizeof *argv);
            argc -= 2;
            break;
        }
    if (rounds < 1)
        rounds = 1;
    me = bench_init(argc, argv, &o, "  -r ROUNDS: interleaved rounds (default 9)\n",
                    "alltoallv", 1, BENCH_MAX_PES);
    n = shmem_n_pes();
    size_t span = o.max_size * (size_t)n;
    src = bench_malloc_filled(span, 0);
    dst = bench_malloc_filled(span, 0);
    t_off = bench_malloc_filled((size_t)n * sizeof(size_t), 0);
    t_sz = bench_malloc_filled((size_t)n * sizeof(size_t), 0);
    s_off = bench_malloc_filled((size_t)n * sizeof(size_t), 0);
    s_sz = bench_malloc_filled((size_t)n * sizeof(size_t), 0);
    slot = bench_malloc_filled((size_t)n * sizeof(size_t), 0);
    len_sig = bench_malloc_filled((size_t)n * sizeof(uint64_t), 0);
    double *tv = malloc((size_t)rounds * sizeof *tv),
           *tp = malloc((size_t)rounds * sizeof *tp);
    if (!tv || !tp) {
        fprintf(stderr, "alltoallv: out of memory\n");
        shmem_global_exit(1);
    }

    if (me == 0)
        bench_header(
                "alltoallv vs put-with-signal exchange",
                "# Bytes/block  alltoallv median (min..max) us   pws median (min..max) us");
    for (size_t m = o.min_size; m <= o.max_size; m *= 2) {
        /* Block j of the source: bytes me * 7 + j + b, m apart. */
        for (int j = 0; j < n; j++)
            for (size_t b = 0; b < m; b++)
                src[(size_t)j * m + b] = (unsigned char)(me * 7 + j + b);
        layout(m);
        shmem_barrier_all();
        run_v();
        verify("shmemx_alltoallv", m);
        shmem_barrier_all();
        memset(t_sz, 0, (size_t)n * sizeof(size_t));
        memset(dst, 0, span);
        shmem_barrier_all();
        run_pws();
        verify("put-with-signal exchange", m);
        long iters = bench_iters_for(&o, m * (size_t)n);
        for (long w = 0; w < o.warmup; w++) {
            run_v();
            run_pws();
        }
        for (long r = 0; r < rounds; r++) {
            if (r % 2) {
                tp[r] = time_calls(run_pws, iters);
                tv[r] = time_calls(run_v, iters);
            } else {
                tv[r] = time_calls(run_v, iters);
                tp[r] = time_calls(run_pws, iters);
            }
        }
        if (me == 0) {
            qsort(tv, (size_t)rounds, sizeof *tv, cmp_double);
            qsort(tp, (size_t)rounds, sizeof *tp, cmp_double);
            double mv = tv[rounds / 2], mp = tp[rounds / 2];
            printf("%-13zu %9.2f (%.2f..%.2f) %18.2f (%.2f..%.2f)\n", m, mv, tv[0],
                   tv[rounds - 1], mp, tp[0], tp[rounds - 1]);
            bench_result("alltoallv", m, "lat_us", mv);
            bench_result("alltoallv_pws", m, "lat_us", mp);
        }
    }
    shmem_barrier_all();
    free(tv);
    free(tp);
    shmem_finalize();
    return 0;
}
