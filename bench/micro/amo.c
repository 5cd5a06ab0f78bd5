/* Latency and rate of every AMO kind on unsigned long, PE 0 -> PE 1 (seed 001,
 * Fig. 18): fetching (blocking), non-fetching, and fetching _nbi where the library
 * implements OpenSHMEM 1.5. Latency: one op then completion (quiet for non-fetching
 * and _nbi). Rate: windows of 64 ops, one quiet per window. Other PEs stay idle. */
#include "bench.h"

#include <stdio.h>

enum amo_kind {
    FETCH,
    FETCH_ADD,
    FETCH_INC,
    SWAP,
    CSWAP,
    FETCH_AND,
    FETCH_OR,
    FETCH_XOR, /* fetching */
    SET,
    ADD,
    INC,
    AND,
    OR,
    XOR, /* non-fetching */
#if BENCH_HAVE_SPEC_1_5
    FETCH_NBI,
    FETCH_ADD_NBI,
    FETCH_INC_NBI,
    SWAP_NBI,
    CSWAP_NBI,
    FETCH_AND_NBI,
    FETCH_OR_NBI,
    FETCH_XOR_NBI,
#endif
    AMO_KINDS
};

static const char *const kind_names[AMO_KINDS] = {
    "fetch",
    "fetch_add",
    "fetch_inc",
    "swap",
    "compare_swap",
    "fetch_and",
    "fetch_or",
    "fetch_xor",
    "set",
    "add",
    "inc",
    "and",
    "or",
    "xor",
#if BENCH_HAVE_SPEC_1_5
    "fetch_nbi",
    "fetch_add_nbi",
    "fetch_inc_nbi",
    "swap_nbi",
    "compare_swap_nbi",
    "fetch_and_nbi",
    "fetch_or_nbi",
    "fetch_xor_nbi",
#endif
};

#define WINDOW 64
static unsigned long global_target; /* symmetric: the target with BENCH_TARGET=global */
static unsigned long *target;       /* it, or a heap word (bench_target) */
#if BENCH_HAVE_SPEC_1_5
static unsigned long fetched[WINDOW]; /* _nbi fetch destinations, one per op of a window */
#endif
static volatile unsigned long sink; /* keeps blocking fetches from being optimized out */

/* Issues one AMO of `kind` to PE 1; `slot` picks the _nbi fetch destination. */
static void amo(enum amo_kind kind, unsigned long v, int slot)
{
    unsigned long *t = target;
    (void)slot;
    switch (kind) {
    case FETCH: sink = shmem_ulong_atomic_fetch(t, 1); break;
    case FETCH_ADD: sink = shmem_ulong_atomic_fetch_add(t, v, 1); break;
    case FETCH_INC: sink = shmem_ulong_atomic_fetch_inc(t, 1); break;
    case SWAP: sink = shmem_ulong_atomic_swap(t, v, 1); break;
    case CSWAP: sink = shmem_ulong_atomic_compare_swap(t, v - 1, v, 1); break;
    case FETCH_AND: sink = shmem_ulong_atomic_fetch_and(t, ~v, 1); break;
    case FETCH_OR: sink = shmem_ulong_atomic_fetch_or(t, v, 1); break;
    case FETCH_XOR: sink = shmem_ulong_atomic_fetch_xor(t, v, 1); break;
    case SET: shmem_ulong_atomic_set(t, v, 1); break;
    case ADD: shmem_ulong_atomic_add(t, v, 1); break;
    case INC: shmem_ulong_atomic_inc(t, 1); break;
    case AND: shmem_ulong_atomic_and(t, ~v, 1); break;
    case OR: shmem_ulong_atomic_or(t, v, 1); break;
    case XOR: shmem_ulong_atomic_xor(t, v, 1); break;
#if BENCH_HAVE_SPEC_1_5
    case FETCH_NBI: shmem_ulong_atomic_fetch_nbi(&fetched[slot], t, 1); break;
    case FETCH_ADD_NBI: shmem_ulong_atomic_fetch_add_nbi(&fetched[slot], t, v, 1); break;
    case FETCH_INC_NBI: shmem_ulong_atomic_fetch_inc_nbi(&fetched[slot], t, 1); break;
    case SWAP_NBI: shmem_ulong_atomic_swap_nbi(&fetched[slot], t, v, 1); break;
    case CSWAP_NBI:
        shmem_ulong_atomic_compare_swap_nbi(&fetched[slot], t, v - 1, v, 1);
        break;
    case FETCH_AND_NBI: shmem_ulong_atomic_fetch_and_nbi(&fetched[slot], t, ~v, 1); break;
    case FETCH_OR_NBI: shmem_ulong_atomic_fetch_or_nbi(&fetched[slot], t, v, 1); break;
    case FETCH_XOR_NBI: shmem_ulong_atomic_fetch_xor_nbi(&fetched[slot], t, v, 1); break;
#endif
    case AMO_KINDS: break;
    }
}

static int fetching_blocking(enum amo_kind k)
{
    return k <= FETCH_XOR;
}

static double latency_us(enum amo_kind k, long iters, long warmup)
{
    double t0 = 0;
    for (long i = -warmup; i < iters; i++) {
        if (i == 0)
            t0 = bench_now();
        amo(k, (unsigned long)i, 0);
        if (!fetching_blocking(k))
            shmem_quiet();
    }
    return (bench_now() - t0) / (double)iters * 1e6;
}

static double rate_mops(enum amo_kind k, long rounds, long warmup)
{
    double t0 = 0;
    for (long r = -warmup; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        for (int w = 0; w < WINDOW; w++)
            amo(k, (unsigned long)(r * WINDOW + w), w);
        shmem_quiet();
    }
    return (double)rounds * WINDOW / (bench_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 20000, 100 };
    int me = bench_init(argc, argv, &o, NULL, "amo", 2, 0);
    target = bench_target(&global_target, sizeof global_target, sizeof *target);
    *target = 0;
    shmem_barrier_all();
    if (me == 0) {
        bench_header("unsigned long AMOs, PE 0 -> PE 1",
                     "# Operation            Latency (us)    Rate (Mops/s)");
        for (int k = 0; k < AMO_KINDS; k++) {
            double lat = latency_us(k, o.iters, o.warmup);
            double rate = rate_mops(k, o.iters / WINDOW + 1, o.warmup / WINDOW + 1);
            printf("%-20s %14.3f %16.3f\n", kind_names[k], lat, rate);
            char name[64];
            snprintf(name, sizeof name, "amo_%s", kind_names[k]);
            bench_result(name, 8, "lat_us", lat);
            bench_result(name, 8, "rate_Mops", rate);
        }
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
