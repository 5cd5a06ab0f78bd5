/* The AMO rows the OSU OpenSHMEM atomics benchmark reports, measured its way: every
 * PE of the lower half works on its partner in the upper half (PE i -> PE i + N/2),
 * all pairs at once, the upper half idle in a barrier. Microseconds per operation,
 * the slowest PE's:
 *   int fadd, fetch, cswap   blocking fetching AMOs, one after the other;
 *   int inc, set, longlong add   non-fetching, -i of them, then one quiet.
 * Each target then checks its words against what its partner sent, so an AMO that
 * is lost or applied twice fails the run (odd N: the last PE stays idle). */
#include "bench.h"

#include <stdio.h>

/* cswap last: Open MPI 4.1's OSHMEM ends with "stack smashing detected" in its int
 * compare-swap, and the rows before it still come out. */
enum kind { FADD, FETCH, INC, SET, LL_ADD, CSWAP, KINDS };
static const char *const names[KINDS] = { "int_fadd", "int_fetch",    "int_inc",
                                          "int_set",  "longlong_add", "int_cswap" };

static int iword[KINDS]; /* symmetric: the int targets */
static long long llword; /* symmetric: longlong add's target */

static double run(enum kind k, long iters, long warmup, int to)
{
    double t0 = 0;
    volatile int sink = 0;
    for (long i = -warmup; i < iters; i++) {
        if (i == 0)
            t0 = bench_now();
        switch (k) {
        case FADD: sink = shmem_int_atomic_fetch_add(&iword[FADD], 1, to); break;
        case CSWAP:
            sink = shmem_int_atomic_compare_swap(&iword[CSWAP], (int)i, (int)i + 1, to);
            break;
        case FETCH: sink = shmem_int_atomic_fetch(&iword[FETCH], to); break;
        case INC: shmem_int_atomic_inc(&iword[INC], to); break;
        case SET: shmem_int_atomic_set(&iword[SET], (int)i, to); break;
        case LL_ADD: shmem_longlong_atomic_add(&llword, 3, to); break;
        case KINDS: break;
        }
    }
    if (k == INC || k == SET || k == LL_ADD)
        shmem_quiet();
    (void)sink;
    return (bench_now() - t0) / (double)iters * 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 10000, 100 };
    int me = bench_init(argc, argv, &o, NULL, "amo_pairs", 2, 0);
    int n = shmem_n_pes(), half = n / 2;
    int sender = me < half, to = me + half;
    if (me == 0)
        bench_header("int and longlong AMOs, PE i -> PE i + N/2, all pairs at once",
                     "# Operation            Latency (us)");
    for (int k = 0; k < KINDS; k++) {
        shmem_barrier_all();
        double us = sender ? run(k, o.iters, o.warmup, to) : 0;
        shmem_barrier_all();
        us = bench_slowest(us);
        if (me == 0) {
            printf("%-20s %14.3f\n", names[k], us);
            bench_result(names[k], sizeof(int), "lat_us", us);
        }
    }
    shmem_barrier_all();
    long total = o.iters + o.warmup, bad = 0;
    if (me >= half && me < 2 * half) {
        /* cswap succeeds from i = 0 on (the word starts at 0), set leaves the last i */
        if (iword[FADD] != total || iword[INC] != total || iword[CSWAP] != o.iters ||
            iword[SET] != o.iters - 1 || llword != 3 * total) {
            fprintf(stderr,
                    "amo_pairs: PE %d: fadd %d, inc %d, cswap %d, set %d, add %lld; "
                    "expected %ld, %ld, %ld, %ld, %ld\n",
                    me, iword[FADD], iword[INC], iword[CSWAP], iword[SET], llword, total,
                    total, o.iters, o.iters - 1, 3 * total);
            bad = 1;
        }
    }
    shmem_finalize();
    return bad ? 1 : 0; /* the launcher fails the job when any PE fails */
}
