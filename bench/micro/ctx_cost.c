/* What contexts cost: every PE creates N contexts (-i, default 32), then puts
 * one long to its right neighbour on each and quiets it, timing that first
 * operation; the resident and proportional set sizes (/proc/self/smaps_rollup)
 * before the contexts and after their first operations give the memory. */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long slot[1024]; /* symmetric: context i writes slot[i] on the right neighbour */

/* Rss and Pss of this process in kB, from smaps_rollup. */
static void footprint(long *rss, long *pss)
{
    *rss = *pss = 0;
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "Rss:", 4))
            *rss = atol(line + 4);
        else if (!strncmp(line, "Pss:", 4))
            *pss = atol(line + 4);
    }
    fclose(f);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 32, 0 };
    bench_parse(argc, argv, &o, "[-i contexts]");
    long n = o.iters < 1 ? 1 : o.iters > 1024 ? 1024 : o.iters;
    shmem_init();
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    shmem_ctx_t *ctx = malloc((size_t)n * sizeof *ctx);
    double *first = malloc((size_t)n * sizeof *first);
    long rss0, pss0, rss1, pss1;
    shmem_barrier_all();
    footprint(&rss0, &pss0);
    for (long i = 0; i < n; i++) {
        if (shmem_ctx_create(0, &ctx[i])) {
            fprintf(stderr, "ctx_cost: PE %d: shmem_ctx_create failed at context %ld\n", me,
                    i);
            shmem_global_exit(1);
        }
        double t0 = bench_now();
        shmem_ctx_long_p(ctx[i], &slot[i], me + 1000 * (i + 1), right);
        shmem_ctx_quiet(ctx[i]);
        first[i] = (bench_now() - t0) * 1e6;
    }
    footprint(&rss1, &pss1);
    shmem_barrier_all();
    int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    for (long i = 0; i < n; i++)
        if (slot[i] != left + 1000 * (i + 1)) {
            fprintf(stderr, "ctx_cost: PE %d: slot %ld holds %ld\n", me, i, slot[i]);
            shmem_global_exit(1);
        }
    qsort(first, (size_t)n, sizeof *first, by_value);
    if (me == 0) {
        bench_header("Contexts: first operation and memory", "Metric              Value");
        printf("contexts            %ld\n", n);
        printf("first op median     %.1f us\n", first[n / 2]);
        printf("first op max        %.1f us\n", first[n - 1]);
        printf("extra RSS           %.1f MB\n", (double)(rss1 - rss0) / 1024.0);
        printf("extra PSS           %.1f MB\n", (double)(pss1 - pss0) / 1024.0);
        bench_result("ctx_first_op_median", (size_t)n, "lat_us", first[n / 2]);
        bench_result("ctx_first_op_max", (size_t)n, "lat_us", first[n - 1]);
        bench_result("ctx_extra_rss", (size_t)n, "MB", (double)(rss1 - rss0) / 1024.0);
        bench_result("ctx_extra_pss", (size_t)n, "MB", (double)(pss1 - pss0) / 1024.0);
    }
    for (long i = 0; i < n; i++)
        shmem_ctx_destroy(ctx[i]);
    free(ctx);
    free(first);
    shmem_finalize();
    return 0;
}
