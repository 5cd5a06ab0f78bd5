/* Fence with many targets: every PE, in turn to each other PE x, puts a payload
 * to x, fences, and puts a flag to x (the common "data, fence, flag" pattern),
 * then waits for every other PE's flags and checks their payloads. The time of
 * the sending loop, per message (payload + fence + flag), is what a fence costs
 * when earlier puts to other PEs are still in flight: OpenSHMEM's fence orders
 * only operations to the same PE. A barrier ends each round (untimed), so every
 * round starts with nothing in flight.
 *   -a  the flag is an atomic set instead of a put;
 *   -b  before each message, a 64 KiB put_nbi to the PE half-way round (no flag,
 *       nothing waits for it): bulk traffic to one PE beside the synchronised
 *       messages to the others, which a fence does not order before them.
 * Result lines: fence_flag_put (or fence_flag_amo, with _bulk after -b), per_msg_us,
 * per payload size. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(int src, int dst, long round, size_t i)
{
    return (unsigned char)(src * 31 + dst * 7 + round * 13 + (long)(i % 251));
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 64 * 1024, 200, 5 };
    int amo_flag = 0, bulk = 0;
    const size_t bulk_size = 64 * 1024;
    /* -a is this program's own; the rest are the common options. */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-a"))
            amo_flag = 1;
        else if (!strcmp(argv[i], "-b"))
            bulk = 1;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    int me = bench_init(
            argc, argv, &o,
            "  -a   the flag is an atomic set, not a put\n"
            "  -b   a 64 KiB put_nbi to the PE half-way round before each message\n",
            "fence", 2, 0);
    int n = shmem_n_pes();
    /* One payload area and one flag per sender. */
    unsigned char *data = shmem_malloc(o.max_size * (size_t)n);
    long *flag = shmem_calloc((size_t)n, sizeof *flag);
    unsigned char *src = malloc(o.max_size * (size_t)n);
    unsigned char *bulk_dst = shmem_malloc(bulk_size), *bulk_src = malloc(bulk_size);
    if (!data || !flag || !src || !bulk_dst || !bulk_src) {
        fprintf(stderr, "fence: PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    memset(bulk_src, 0x42, bulk_size);
    int far = (me + n / 2) % n;
    char name[32];
    snprintf(name, sizeof name, "fence_flag_%s%s", amo_flag ? "amo" : "put",
             bulk ? "_bulk" : "");
    if (me == 0) {
        char title[96];
        snprintf(title, sizeof title, "put, fence, %s flag to each of %d PEs%s",
                 amo_flag ? "AMO" : "put", n - 1, bulk ? ", 64 KiB bulk beside" : "");
        bench_header(title, "# Size      Per message (us)");
    }
    long round = 0;
    int bad = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_iters_for(&o, size);
        double spent = 0;
        for (long it = -o.warmup; it < iters; it++, round++) {
            for (int k = 1; k < n; k++) {
                int x = (me + k) % n;
                for (size_t i = 0; i < size; i++)
                    src[(size_t)x * o.max_size + i] = pattern(me, x, round, i);
            }
            shmem_barrier_all();
            double t0 = bench_now();
            for (int k = 1; k < n; k++) {
                int x = (me + k) % n;
                if (bulk)
                    shmem_putmem_nbi(bulk_dst, bulk_src, bulk_size, far);
                shmem_putmem(data + (size_t)me * o.max_size, src + (size_t)x * o.max_size,
                             size, x);
                shmem_fence();
                if (amo_flag)
                    shmem_long_atomic_set(&flag[me], round + 1, x);
                else
                    shmem_long_p(&flag[me], round + 1, x);
            }
            if (it >= 0)
                spent += bench_now() - t0;
            for (int k = 1; k < n; k++) {
                int s = (me + n - k) % n;
                shmem_long_wait_until(&flag[s], SHMEM_CMP_GE, round + 1);
                const unsigned char *d = data + (size_t)s * o.max_size;
                for (size_t i = 0; i < size; i++)
                    if (d[i] != pattern(s, me, round, i)) {
                        if (!bad)
                            fprintf(stderr,
                                    "fence: PE %d: byte %zu of the %zu-byte payload from "
                                    "PE %d in round %ld is %u, expected %u: it landed "
                                    "after its flag\n",
                                    me, i, size, s, round, d[i], pattern(s, me, round, i));
                        bad = 1;
                        break;
                    }
            }
        }
        double per_msg = spent / (double)iters / (double)(n - 1) * 1e6;
        if (me == 0) {
            printf("%-10zu %18.2f\n", size, per_msg);
            bench_result(name, size, "per_msg_us", per_msg);
        }
    }
    shmem_barrier_all();
    free(src);
    free(bulk_src);
    shmem_free(bulk_dst);
    shmem_free(flag);
    shmem_free(data);
    shmem_finalize();
    return bad; /* the PE that saw a payload land late fails the job */
}
