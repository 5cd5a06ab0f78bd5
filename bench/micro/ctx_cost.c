/* What contexts cost: every PE creates N contexts (-i, default 32), then puts
 * one long to its right neighbour on each and quiets it, timing the creation and
 * that first operation apart (the specification lets creation be the slower of
 * the two); PE 0 reports its own figures, and the slowest first operation of
 * any PE; the resident and proportional set sizes (/proc/self/smaps_rollup)
 * before the contexts and after their first operations give the memory.
 *
 * -o private|serialized|shared picks the contexts' options (default shared: no
 * option). -T gives every context a thread of its own that creates it and makes
 * its first operation (one thread after another, so the first operations do not
 * compete), the way a SHMEM_THREAD_MULTIPLE program uses private contexts; the
 * threads' stacks are then part of the extra memory (a few pages each). With -o
 * private, serialized or -T the program starts with SHMEM_THREAD_MULTIPLE. */
#include "bench.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long slot[1024]; /* symmetric: context i writes slot[i] on the right neighbour */
static double my_max, all_max; /* symmetric: the slowest first operation, here and anywhere */

static long ctx_options;
static int me, right;
static shmem_ctx_t *ctx;
static double *first, *created;

/* The threads of -T: each signals when its first operation is done, then waits
 * for the end to destroy its context (a private context is its creator's). */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static long done_upto; /* contexts whose first operation is done */
static int finish;

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

/* Creates context i and times that and its first put + quiet. */
static void first_op(long i)
{
    double c0 = bench_now();
    if (shmem_ctx_create(ctx_options, &ctx[i])) {
        fprintf(stderr, "ctx_cost: PE %d: shmem_ctx_create failed at context %ld\n", me, i);
        shmem_global_exit(1);
    }
    double t0 = bench_now();
    created[i] = (t0 - c0) * 1e6;
    shmem_ctx_long_p(ctx[i], &slot[i], me + 1000 * (i + 1), right);
    shmem_ctx_quiet(ctx[i]);
    first[i] = (bench_now() - t0) * 1e6;
}

static void *ctx_thread(void *arg)
{
    long i = (long)(intptr_t)arg;
    first_op(i);
    pthread_mutex_lock(&mu);
    done_upto = i + 1;
    pthread_cond_broadcast(&cv);
    while (!finish)
        pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    shmem_ctx_destroy(ctx[i]);
    return NULL;
}

/* Takes -o and -T out of argv; the rest is for bench_parse. */
static int own_args(int *argc, char **argv, const char **mode)
{
    int threads = 0, out = 1;
    for (int a = 1; a < *argc; a++) {
        if (!strcmp(argv[a], "-T")) {
            threads = 1;
        } else if (!strcmp(argv[a], "-o") && a + 1 < *argc) {
            *mode = argv[++a];
            if (!strcmp(*mode, "private"))
                ctx_options = SHMEM_CTX_PRIVATE;
            else if (!strcmp(*mode, "serialized"))
                ctx_options = SHMEM_CTX_SERIALIZED;
            else if (strcmp(*mode, "shared")) {
                fprintf(stderr, "ctx_cost: -o takes private, serialized or shared\n");
                exit(2);
            }
        } else {
            argv[out++] = argv[a];
        }
    }
    *argc = out;
    return threads;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 32, 0 };
    const char *mode = "shared";
    int threads = own_args(&argc, argv, &mode);
    bench_parse(argc, argv, &o, "[-i contexts] [-o private|serialized|shared] [-T]");
    long n = o.iters < 1 ? 1 : o.iters > 1024 ? 1024 : o.iters;
    if (threads || ctx_options) {
        int got;
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &got);
        if (got != SHMEM_THREAD_MULTIPLE) {
            fprintf(stderr, "ctx_cost: no SHMEM_THREAD_MULTIPLE\n");
            shmem_global_exit(1);
        }
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    right = (me + 1) % shmem_n_pes();
    ctx = malloc((size_t)n * sizeof *ctx);
    first = malloc((size_t)n * sizeof *first);
    created = malloc((size_t)n * sizeof *created);
    pthread_t *tid = malloc((size_t)n * sizeof *tid);
    long rss0, pss0, rss1, pss1;
    shmem_barrier_all();
    footprint(&rss0, &pss0);
    for (long i = 0; i < n; i++) {
        if (!threads) {
            first_op(i);
            continue;
        }
        if (pthread_create(&tid[i], NULL, ctx_thread, (void *)(intptr_t)i)) {
            fprintf(stderr, "ctx_cost: PE %d: cannot start thread %ld\n", me, i);
            shmem_global_exit(1);
        }
        pthread_mutex_lock(&mu);
        while (done_upto <= i)
            pthread_cond_wait(&cv, &mu);
        pthread_mutex_unlock(&mu);
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
    my_max = first[n - 1];
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &all_max, &my_max, 1);
    qsort(created, (size_t)n, sizeof *created, by_value);
    if (me == 0) {
        bench_header("Contexts: first operation and memory", "Metric              Value");
        printf("contexts            %ld (%s%s)\n", n, mode,
               threads ? ", one thread each" : "");
        printf("create median       %.1f us\n", created[n / 2]);
        printf("create max          %.1f us\n", created[n - 1]);
        printf("first op median     %.1f us\n", first[n / 2]);
        printf("first op max        %.1f us\n", first[n - 1]);
        printf("first op max, any PE %.1f us\n", all_max);
        printf("extra RSS           %.1f MB\n", (double)(rss1 - rss0) / 1024.0);
        printf("extra PSS           %.1f MB\n", (double)(pss1 - pss0) / 1024.0);
        bench_result("ctx_create_median", (size_t)n, "lat_us", created[n / 2]);
        bench_result("ctx_create_max", (size_t)n, "lat_us", created[n - 1]);
        bench_result("ctx_first_op_median", (size_t)n, "lat_us", first[n / 2]);
        bench_result("ctx_first_op_max", (size_t)n, "lat_us", first[n - 1]);
        bench_result("ctx_first_op_max_all", (size_t)n, "lat_us", all_max);
        bench_result("ctx_extra_rss", (size_t)n, "MB", (double)(rss1 - rss0) / 1024.0);
        bench_result("ctx_extra_pss", (size_t)n, "MB", (double)(pss1 - pss0) / 1024.0);
    }
    if (threads) {
        pthread_mutex_lock(&mu);
        finish = 1;
        pthread_cond_broadcast(&cv);
        pthread_mutex_unlock(&mu);
        for (long i = 0; i < n; i++)
            pthread_join(tid[i], NULL);
    } else {
        for (long i = 0; i < n; i++)
            shmem_ctx_destroy(ctx[i]);
    }
    free(tid);
    free(ctx);
    free(first);
    free(created);
    shmem_finalize();
    return 0;
}
