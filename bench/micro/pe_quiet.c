/* Completing the puts to one PE while puts to many others are in flight: every PE
 * posts a put_nbi of the size to each other PE, then completes the one to its right
 * neighbour, with pe_quiet on that PE or with quiet (everything), and tells it so
 * with a flag; the neighbour checks the payload. The time of that completion call is
 * what is measured: pe_quiet waits for one PE's puts, quiet for all n - 1. A quiet
 * and a barrier end each round (untimed), so every round starts with nothing in
 * flight. Cray OpenSHMEMX's shmemx_pe_quiet (shmemx.h), as Shoal has it.
 * Result lines: pe_quiet_us and quiet_us, per payload size. */
#include "bench.h"

#include <shmemx.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(int src, long round, size_t i)
{
    return (unsigned char)(src * 31 + round * 13 + (long)(i % 251));
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 1024, 256 * 1024, 50, 3 };
    int me = bench_init(argc, argv, &o, NULL, "pe_quiet", 2, 0);
    int n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    /* One payload area per sender. */
    unsigned char *data = shmem_malloc(o.max_size * (size_t)n);
    long *flag = shmem_calloc(1, sizeof *flag);
    unsigned char *src = malloc(o.max_size);
    if (!data || !flag || !src) {
        fprintf(stderr, "pe_quiet: PE %d: out of memory\n", me);
        shmem_global_exit(1);
    }
    if (me == 0) {
        char title[96];
        snprintf(title, sizeof title, "completing 1 of %d PEs' puts: pe_quiet vs quiet",
                 n - 1);
        bench_header(title, "# Size      pe_quiet (us)      quiet (us)");
    }
    long round = 0;
    int bad = 0;
    for (size_t size = o.min_size; size <= o.max_size; size *= 2) {
        long iters = bench_iters_for(&o, size);
        double spent[2] = { 0, 0 };
        for (int all = 0; all < 2; all++)
            for (long it = -o.warmup; it < iters; it++, round++) {
                for (size_t i = 0; i < size; i++)
                    src[i] = pattern(me, round, i);
                shmem_barrier_all();
                /* right's last, behind the others */
                for (int k = 2; k <= n; k++)
                    shmem_putmem_nbi(data + (size_t)me * o.max_size, src, size,
                                     k < n ? (me + k) % n : right);
                double t0 = bench_now();
                if (!all)
                    shmemx_pe_quiet(right);
                else
                    shmem_quiet();
                if (it >= 0)
                    spent[all] += bench_now() - t0;
                shmem_long_atomic_set(flag, round + 1, right);
                shmem_long_wait_until(flag, SHMEM_CMP_GE, round + 1);
                const unsigned char *d = data + (size_t)left * o.max_size;
                for (size_t i = 0; i < size && !bad; i++)
                    if (d[i] != pattern(left, round, i)) {
                        fprintf(stderr,
                                "pe_quiet: PE %d: byte %zu of the %zu-byte payload from PE "
                                "%d in round %ld is %u, expected %u: it was not complete "
                                "when its sender's %s returned\n",
                                me, i, size, left, round, d[i], pattern(left, round, i),
                                all ? "quiet" : "pe_quiet");
                        bad = 1;
                    }
                shmem_quiet();
            }
        double pq = bench_slowest(spent[0] / (double)iters * 1e6);
        double q = bench_slowest(spent[1] / (double)iters * 1e6);
        if (me == 0) {
            printf("%-10zu %16.2f %16.2f\n", size, pq, q);
            bench_result("pe_quiet", size, "pe_quiet_us", pq);
            bench_result("pe_quiet", size, "quiet_us", q);
        }
    }
    shmem_barrier_all();
    free(src);
    shmem_free(flag);
    shmem_free(data);
    shmem_finalize();
    return bad; /* the PE that saw a payload incomplete fails the job */
}
