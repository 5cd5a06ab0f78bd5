/* An integer sort shaped like Intel's ISx, weak scaling: every PE makes keys_per_pe
 * uniform random keys in [0, keys_per_pe * npes), sorts them into one bucket per PE by
 * key range, and sends each bucket to its PE by one of two exchanges (-x):
 *   put        a fetch-add on the destination's offset counter reserves room in its
 *              receive buffer, a blocking put fills it, and a barrier ends the
 *              exchange (ISx's own);
 *   alltoallv  one shmemx_team_alltoallv_packed, which lays the buckets out in the
 *              receive buffer in sender order (Shoal's builds only, the default there);
 *   both       the two by turns, iteration by iteration, to compare them in one run.
 * Each PE then sorts what it received with a counting sort.
 *
 * Timed per iteration and PE: bucketize (histogram, offsets, scatter), the exchange
 * (put: exchange, with the fetch-adds, the puts and the closing barrier each also on
 * its own; alltoallv: exchange_alltoallv) and the local sort. An untimed barrier comes before the bucketize and another before the exchange,
 * so each phase starts together and a skew of one phase is not charged to the next.
 * Reported: for each phase, the median over the timed iterations of the slowest PE's
 * time, in ms, with the fastest and slowest iteration beside it.
 *
 * Verified every iteration: each received key is in this PE's range, the sorted keys
 * do not decrease, and, summed over all PEs by a reduction, the key count and an
 * order-independent hash of the keys equal those of the keys made.
 *
 * OpenSHMEM 1.4 (Open MPI's oshcc builds it too) or 1.5, as bench/common/bench.h says. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum phase { BUCKETIZE, EXCHANGE, EX_AMO, EX_PUT, EX_BARRIER, EX_A2AV, SORT, TOTAL, PHASES };
static const char *const phase_names[PHASES] = {
    "bucketize",        "exchange",           "exchange_amo", "exchange_put",
    "exchange_barrier", "exchange_alltoallv", "sort",         "total"
};

/* shmemx_team_alltoallv_packed is Shoal's (HPE Cray OpenSHMEMX's) extension; CMake
 * says when it is there. */
#ifdef BENCH_HAVE_ALLTOALLV
#include <shmemx.h>
enum { HAVE_A2AV = 1 };
#else
enum { HAVE_A2AV = 0 };
#endif
enum exch { EXCH_PUT, EXCH_A2AV, EXCH_BOTH };

/* Whether phase p is timed in an iteration that exchanges by way x. */
static int phase_in(int p, enum exch x)
{
    if (p == EXCHANGE || p == EX_AMO || p == EX_PUT || p == EX_BARRIER)
        return x == EXCH_PUT;
    return p != EX_A2AV || x == EXCH_A2AV;
}

static long recv_count; /* symmetric: keys received so far this iteration (the counter) */

/* The reduction's operands: key count, hash sum of the keys made, of the keys sorted. */
enum { N_SUMS = 3 };
static long sums_in[N_SUMS], sums_out[N_SUMS];
#if !BENCH_HAVE_SPEC_1_5
static long pwrk[N_SUMS / 2 + 1 > SHMEM_REDUCE_MIN_WRKDATA_SIZE
                         ? N_SUMS / 2 + 1
                         : SHMEM_REDUCE_MIN_WRKDATA_SIZE];
static long psync[SHMEM_REDUCE_SYNC_SIZE];
#endif

static void sum_all(void)
{
    shmem_barrier_all(); /* every PE's sums_in is written, and the last use of psync done */
#if BENCH_HAVE_SPEC_1_5
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sums_out, sums_in, N_SUMS);
#else
    shmem_long_sum_to_all(sums_out, sums_in, N_SUMS, 0, 0, shmem_n_pes(), pwrk, psync);
#endif
}

/* A key's contribution to the order-independent hash (splitmix64's finalizer, top 24
 * bits): the sums stay exact in a long, which the reduction adds without overflow, up
 * to 2^39 keys in all. */
static uint64_t key_hash(uint32_t key)
{
    uint64_t z = key + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) >> 40;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *alloc_or_die(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "isx: PE %d: cannot allocate %zu bytes for %s\n", shmem_my_pe(),
                bytes, what);
        shmem_global_exit(1);
    }
    return p;
}

int main(int argc, char **argv)
{
    size_t keys_per_pe = (size_t)1 << 22;
    long iters = 10, warmup = 2;
    enum exch exch = HAVE_A2AV ? EXCH_A2AV : EXCH_PUT;
    int c, bad_exch = 0;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    while ((c = getopt(argc, argv, "k:i:w:x:h")) != -1) {
        switch (c) {
        case 'k': keys_per_pe = bench_parse_size(optarg); break;
        case 'i': iters = atol(optarg); break;
        case 'w': warmup = atol(optarg); break;
        case 'x':
            if (!strcmp(optarg, "put"))
                exch = EXCH_PUT;
            else if (HAVE_A2AV && !strcmp(optarg, "alltoallv"))
                exch = EXCH_A2AV;
            else if (HAVE_A2AV && !strcmp(optarg, "both"))
                exch = EXCH_BOTH;
            else
                bad_exch = 1;
            break;
        default:
            if (me == 0)
                fprintf(stderr,
                        "usage: %s [-k keys per PE, K/M suffixes (default 4M)] [-i timed "
                        "iterations (10)] [-w untimed warm-up iterations (2)] [-x "
                        "exchange: put%s]\n",
                        argv[0],
                        HAVE_A2AV ? ", alltoallv (default) or both" : " (the only one here)");
            shmem_finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    if (bad_exch) {
        if (me == 0)
            fprintf(stderr, "isx: -x takes put%s\n",
                    HAVE_A2AV ? ", alltoallv or both"
                              : " only: this OpenSHMEM has no shmemx_team_alltoallv_packed");
        shmem_finalize();
        return 2;
    }
    /* Keys are 32-bit: the largest key, keys_per_pe * npes - 1, must fit. */
    if (keys_per_pe < 1 || iters < 1 || warmup < 0 ||
        keys_per_pe > (((size_t)1 << 32) / (size_t)npes)) {
        if (me == 0)
            fprintf(stderr,
                    "isx: need 1 <= keys per PE <= 2^32 / PEs (%zu), iterations >= 1, "
                    "warm-up >= 0\n",
                    ((size_t)1 << 32) / (size_t)npes);
        shmem_finalize();
        return 2;
    }
#if !BENCH_HAVE_SPEC_1_5
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
#endif
    /* Bucket b holds keys [b * keys_per_pe, (b + 1) * keys_per_pe). A bucket's size is
     * binomial around keys_per_pe; the receive buffer has room for half as many again
     * (and a margin for tiny runs), and an exchange that would overflow it is refused
     * and fails the check. */
    const uint64_t max_key = (uint64_t)keys_per_pe * (uint64_t)npes;
    const size_t width = keys_per_pe;
    const size_t capacity = keys_per_pe + keys_per_pe / 2 + 1024;
    const uint32_t lo = (uint32_t)((uint64_t)me * width);
    uint32_t *keys = alloc_or_die(keys_per_pe * sizeof *keys, "the keys");
    uint32_t *sorted = alloc_or_die(capacity * sizeof *sorted, "the sorted keys");
    uint32_t *counts = alloc_or_die(width * sizeof *counts, "the key counts");
    size_t *bucket_count = alloc_or_die((size_t)npes * sizeof *bucket_count, "buckets");
    size_t *bucket_start = alloc_or_die((size_t)npes * sizeof *bucket_start, "buckets");
    size_t *fill = alloc_or_die((size_t)npes * sizeof *fill, "buckets");
    /* Symmetric: the exchange's target, and alltoallv's source and arrays (bytes). */
    uint32_t *recv = shmem_malloc(capacity * sizeof *recv);
    uint32_t *sendbuf = shmem_malloc(keys_per_pe * sizeof *sendbuf);
    size_t *s_off = shmem_malloc((size_t)npes * sizeof *s_off);
    size_t *s_len = shmem_malloc((size_t)npes * sizeof *s_len);
    if (!recv || !sendbuf || !s_off || !s_len) {
        fprintf(stderr,
                "isx: PE %d: shmem_malloc(%zu) failed; raise the symmetric heap "
                "(SHMEM_SYMMETRIC_SIZE)\n",
                me,
                (capacity + keys_per_pe) * sizeof *recv + 2 * (size_t)npes * sizeof *s_off);
        shmem_global_exit(1);
    }
    double *times = alloc_or_die((size_t)iters * PHASES * sizeof *times, "the timings");
    enum exch *how = alloc_or_die((size_t)iters * sizeof *how, "the timings");
    int failed = 0;

    for (long it = -warmup; it < iters; it++) {
        /* Keys from a stream of this PE and iteration, so every iteration sorts anew. */
        uint64_t state = ((uint64_t)(it + warmup) << 32) ^ (uint64_t)me * 0x51ed27ull;
        uint64_t made_hash = 0;
        for (size_t i = 0; i < keys_per_pe; i++) {
            keys[i] = (uint32_t)(((bench_rand(&state) >> 32) * max_key) >> 32);
            made_hash += key_hash(keys[i]);
        }
        recv_count = 0;
        enum exch x = exch == EXCH_BOTH ? (it & 1 ? EXCH_A2AV : EXCH_PUT) : exch;
        double t[PHASES] = { 0 };
        shmem_barrier_all();

        double t0 = bench_now();
        memset(bucket_count, 0, (size_t)npes * sizeof *bucket_count);
        for (size_t i = 0; i < keys_per_pe; i++)
            bucket_count[keys[i] / width]++;
        size_t at = 0;
        for (int b = 0; b < npes; b++) {
            bucket_start[b] = fill[b] = at;
            at += bucket_count[b];
        }
        for (size_t i = 0; i < keys_per_pe; i++)
            sendbuf[fill[keys[i] / width]++] = keys[i];
        t[BUCKETIZE] = bench_now() - t0;

        /* Nobody reserves room here before this PE has reset its counter. */
        shmem_barrier_all();
        t0 = bench_now();
        for (int k = 0; x == EXCH_PUT && k < npes; k++) {
            int pe = (me + k) % npes;
            size_t n = bucket_count[pe];
            if (n == 0)
                continue;
            double ta = bench_now();
            long off = shmem_long_atomic_fetch_add(&recv_count, (long)n, pe);
            double tp = bench_now();
            t[EX_AMO] += tp - ta;
            if ((size_t)off + n > capacity) {
                fprintf(stderr,
                        "isx: PE %d: bucket of %zu keys for PE %d overflows its %zu\n", me, n,
                        pe, capacity);
                failed = 1;
                continue;
            }
            shmem_putmem(recv + off, sendbuf + bucket_start[pe], n * sizeof *recv, pe);
            t[EX_PUT] += bench_now() - tp;
        }
        if (x == EXCH_PUT) {
            double tb = bench_now();
            shmem_barrier_all();
            double te = bench_now();
            t[EX_BARRIER] = te - tb;
            t[EXCHANGE] = te - t0;
        }
#ifdef BENCH_HAVE_ALLTOALLV
        else {
            for (int pe = 0; pe < npes; pe++) {
                s_off[pe] = bucket_start[pe] * sizeof *sendbuf;
                s_len[pe] = bucket_count[pe] * sizeof *sendbuf;
            }
            /* A bucket past the receive buffer ends the job, with the library's message. */
            size_t bytes;
            shmemx_team_alltoallv_packed(SHMEM_TEAM_WORLD, recv, capacity * sizeof *recv,
                                         &bytes, sendbuf, s_off, s_len);
            t[EX_A2AV] = bench_now() - t0;
            recv_count = (long)(bytes / sizeof *recv);
        }
#endif

        /* The counting sort: how often each key of this PE's range came, then the keys
         * written out in order. */
        /* Untimed: a key out of this PE's range would be counted out of bounds. The
         * counter also counts a refused bucket, so it may exceed the buffer. */
        size_t got = (size_t)recv_count < capacity ? (size_t)recv_count : capacity;
        for (size_t i = 0; i < got; i++)
            if (recv[i] < lo || recv[i] - lo >= width) {
                fprintf(stderr, "isx: PE %d: iteration %ld: key %u is not this PE's\n", me,
                        it, (unsigned)recv[i]);
                failed = 1;
                got = 0;
            }
        t0 = bench_now();
        memset(counts, 0, width * sizeof *counts);
        for (size_t i = 0; i < got; i++)
            counts[recv[i] - lo]++;
        size_t j = 0;
        for (size_t v = 0; v < width; v++)
            for (uint32_t r = counts[v]; r > 0; r--)
                sorted[j++] = lo + (uint32_t)v;
        t[SORT] = bench_now() - t0;
        t[TOTAL] = t[BUCKETIZE] + t[EXCHANGE] + t[EX_A2AV] + t[SORT];

        /* The rest of the check, untimed. */
        uint64_t sorted_hash = 0;
        for (size_t i = 0; i < j; i++) {
            if (i > 0 && sorted[i] < sorted[i - 1]) {
                fprintf(stderr, "isx: PE %d: iteration %ld: sorted keys out of order\n", me,
                        it);
                failed = 1;
                break;
            }
            sorted_hash += key_hash(sorted[i]);
        }
        sums_in[0] = (long)j;
        sums_in[1] = (long)made_hash;
        sums_in[2] = (long)sorted_hash;
        sum_all();
        if (me == 0 &&
            ((size_t)sums_out[0] != keys_per_pe * (size_t)npes ||
             sums_out[1] != sums_out[2])) {
            fprintf(stderr, "isx: iteration %ld: %ld keys sorted of %zu made, key hash %s\n",
                    it, sums_out[0], keys_per_pe * (size_t)npes,
                    sums_out[1] == sums_out[2] ? "matches" : "differs");
            failed = 1;
        }
        if (it >= 0) {
            memcpy(times + (size_t)it * PHASES, t, sizeof t);
            how[it] = x;
        }
    }

    /* Every phase: the slowest PE per iteration, then the median over iterations. */
    double *slowest = alloc_or_die((size_t)iters * sizeof *slowest, "the timings");
    if (me == 0) {
        bench_header("ISx-shaped integer sort, weak scaling", "");
        printf("# %zu keys per PE, keys < %llu, %ld iterations (+%ld warm-up); slowest PE "
               "per iteration, ms\n",
               keys_per_pe, (unsigned long long)max_key, iters, warmup);
        printf("# %-18s %10s %10s %10s\n", "phase", "median", "min", "max");
    }
    /* A phase of one exchange counts the iterations that exchanged so (-x both: every
     * other; total mixes the two). */
    for (int p = 0; p < PHASES; p++) {
        long m = 0;
        for (long it = 0; it < iters; it++)
            if (phase_in(p, how[it]))
                slowest[m++] = bench_slowest(times[(size_t)it * PHASES + p] * 1e3);
        if (me == 0 && m) {
            qsort(slowest, (size_t)m, sizeof *slowest, cmp_double);
            double med = m % 2 ? slowest[m / 2] : (slowest[m / 2 - 1] + slowest[m / 2]) / 2;
            printf("  %-18s %10.3f %10.3f %10.3f\n", phase_names[p], med, slowest[0],
                   slowest[m - 1]);
            char metric[40];
            snprintf(metric, sizeof metric, "%s_ms", phase_names[p]);
            bench_result("isx", keys_per_pe, metric, med);
        }
    }

    /* Any PE's failure fails the run on every PE. */
    sums_in[0] = failed;
    sums_in[1] = sums_in[2] = 0;
    sum_all();
    int status = sums_out[0] != 0;
    if (me == 0)
        printf("# verification %s\n", status ? "FAILED" : "PASSED");
    shmem_barrier_all();
    shmem_free(s_len);
    shmem_free(s_off);
    shmem_free(sendbuf);
    shmem_free(recv);
    free(slowest);
    free(how);
    free(times);
    free(fill);
    free(bucket_start);
    free(bucket_count);
    free(counts);
    free(sorted);
    free(keys);
    shmem_finalize();
    return status;
}
