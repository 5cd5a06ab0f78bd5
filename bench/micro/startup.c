/* Start-up cost per PE: how long shmem_init takes (the slowest PE's), how long each
 * PE then needs to reach every other PE once (a put to each and a quiet: connections
 * that are made on first use are made here), and the memory (resident set) the
 * library added to the process by then, the largest of any PE.
 * usage: startup   (no options; run it at several PE counts) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Resident set of this process in KiB (/proc/self/status VmRSS); 0 when unknown. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

static long flag;

int main(void)
{
    long before = rss_kib();
    double t0 = bench_now();
    shmem_init();
    double init_s = bench_now() - t0;
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > BENCH_MAX_PES) {
        if (me == 0)
            fprintf(stderr, "startup: at most %d PEs\n", BENCH_MAX_PES);
        shmem_finalize();
        return 1;
    }
    shmem_barrier_all();
    t0 = bench_now();
    for (int i = 1; i < n; i++)
        shmem_long_p(&flag, me, (me + i) % n);
    shmem_quiet();
    double contact_s = bench_now() - t0;
    shmem_barrier_all();
    long added = rss_kib() - before;

    /* A barrier after each: PE 0 reads its array before the next figure lands there. */
    double worst_init = bench_slowest(init_s);
    shmem_barrier_all();
    double worst_contact = bench_slowest(contact_s);
    shmem_barrier_all();
    double worst_rss = bench_slowest((double)added);
    if (me == 0) {
        bench_header("start-up: slowest shmem_init, first contact with every PE, "
                     "largest resident memory added",
                     "# init (ms)   contact (ms)   memory (MiB)");
        printf("%12.1f %14.1f %14.1f\n", worst_init * 1e3, worst_contact * 1e3,
               worst_rss / 1024);
        bench_result("startup_init", 0, "ms", worst_init * 1e3);
        bench_result("startup_contact", 0, "ms", worst_contact * 1e3);
        bench_result("startup_rss", 0, "MiB", worst_rss / 1024);
    }
    shmem_finalize();
    return 0;
}
