#define _GNU_SOURCE
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

size_t bench_parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    switch (*end) {
    case 'k':
    case 'K':
        v *= 1024.0;
        end++;
        break;
    case 'm':
    case 'M':
        v *= 1024.0 * 1024.0;
        end++;
        break;
    case 'g':
    case 'G':
        v *= 1024.0 * 1024.0 * 1024.0;
        end++;
        break;
    default: break;
    }
    if (end == s || *end != '\0' || v < 0) {
        fprintf(stderr, "bad size '%s'\n", s);
        exit(2);
    }
    return (size_t)v;
}

void bench_parse(int argc, char **argv, struct bench_opts *o, const char *usage)
{
    int c;
    while ((c = getopt(argc, argv, "s:m:i:w:h")) != -1) {
        switch (c) {
        case 's': o->min_size = bench_parse_size(optarg); break;
        case 'm': o->max_size = bench_parse_size(optarg); break;
        case 'i': o->iters = atol(optarg); break;
        case 'w': o->warmup = atol(optarg); break;
        default:
            fprintf(stderr,
                    "usage: %s [-s min_size] [-m max_size] [-i iters] [-w warmup]\n%s",
                    argv[0], usage ? usage : "");
            exit(c == 'h' ? 0 : 2);
        }
    }
    if (o->min_size < 1 || o->max_size < o->min_size || o->iters < 1 || o->warmup < 0) {
        fprintf(stderr, "%s: need 1 <= min_size <= max_size, iters >= 1, warmup >= 0\n",
                argv[0]);
        exit(2);
    }
}

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

long bench_iters_for(const struct bench_opts *o, size_t size)
{
    /* Above 8 KiB, keep the bytes per size constant; never fewer than 10 rounds. */
    const size_t knee = 8192;
    if (size <= knee)
        return o->iters;
    long n = (long)((double)o->iters * (double)knee / (double)size);
    return n < 10 ? 10 : n;
}

/* BENCH_IMPL names a variant of one library (scripts/bench.sh sets shoal-ofi). */
const char *bench_impl(void)
{
    const char *label = getenv("BENCH_IMPL");
    if (label && *label)
        return label;
#if defined(OSHMEM_MAJOR_VERSION)
    return "oshmem";
#else
    static char name[SHMEM_MAX_NAME_LEN];
    if (name[0] == '\0') {
        shmem_info_get_name(name);
        if (strstr(name, "Shoal"))
            strcpy(name, "shoal");
    }
    return name;
#endif
}

static const char *target_name(void)
{
    const char *t = getenv("BENCH_TARGET");
    if (!t || !*t)
        return NULL;
    if (strcmp(t, "heap") && strcmp(t, "global")) {
        fprintf(stderr, "BENCH_TARGET=%s: use heap or global\n", t);
        exit(2);
    }
    return t;
}

int bench_init(int argc, char **argv, struct bench_opts *o, const char *usage,
               const char *name, int min_pes, int max_pes)
{
    shmem_init();
    bench_parse(argc, argv, o, usage);
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < min_pes || (max_pes > 0 && n > max_pes)) {
        if (me == 0) {
            if (n < min_pes)
                fprintf(stderr, "%s needs at least %d PEs\n", name, min_pes);
            else
                fprintf(stderr, "%s supports at most %d PEs\n", name, max_pes);
        }
        shmem_finalize();
        exit(1);
    }
    return me;
}

static void *sym_malloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);
    if (!p) {
        fprintf(stderr, "shmem_malloc(%zu) failed\n", bytes);
        exit(1);
    }
    return p;
}

static double slowest_of[BENCH_MAX_PES]; /* static data: symmetric */

double bench_slowest_avg(double mine, double *avg)
{
    shmem_double_p(&slowest_of[shmem_my_pe()], mine, 0);
    shmem_barrier_all();
    double worst = 0, sum = 0;
    if (shmem_my_pe() == 0)
        for (int pe = 0; pe < shmem_n_pes(); pe++) {
            worst = slowest_of[pe] > worst ? slowest_of[pe] : worst;
            sum += slowest_of[pe];
        }
    *avg = sum / shmem_n_pes();
    return worst;
}

double bench_slowest(double mine)
{
    double avg;
    return bench_slowest_avg(mine, &avg);
}

double bench_time_coll(void (*call)(int which, size_t count), int which, size_t count,
                       long iters, long warmup)
{
    double sum = 0;
    for (long i = -warmup; i < iters; i++) {
        shmem_barrier_all();
        double t0 = bench_now();
        call(which, count);
        if (i >= 0)
            sum += bench_now() - t0;
    }
    return bench_slowest(sum / (double)iters * 1e6);
}

void *bench_malloc_filled(size_t bytes, int fill)
{
    return memset(sym_malloc(bytes), fill, bytes);
}

void *bench_target(void *global, size_t global_bytes, size_t bytes)
{
    const char *t = target_name();
    if (!t || strcmp(t, "global"))
        return sym_malloc(bytes);
    if (bytes > global_bytes) {
        fprintf(stderr, "BENCH_TARGET=global: %zu bytes asked, the static buffer has %zu\n",
                bytes, global_bytes);
        exit(2);
    }
    return global;
}

void bench_result(const char *bench, size_t size, const char *metric, double value)
{
    const char *t = target_name();
    printf("RESULT,%s%s%s,%s,%d,%zu,%s,%.6g\n", bench, t ? "." : "", t ? t : "", bench_impl(),
           shmem_n_pes(), size, metric, value);
}

void bench_header(const char *title, const char *columns)
{
    printf("# %s (%s, %d PEs)\n", title, bench_impl(), shmem_n_pes());
    if (columns[0] != '\0')
        printf("%s\n", columns);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}
