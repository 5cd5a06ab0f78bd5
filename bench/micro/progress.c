/* What a PE that does not call the library costs its peers and itself:
 *   get_busy   8-byte blocking get latency from PE 0 to PE 1 while PE 1 computes
 *              (spins on plain loads, no SHMEM call): over a network whose
 *              provider needs the target's progress, only a progress thread
 *              serves it;
 *   get_wait   the same while PE 1 waits in shmem_long_wait_until;
 *   idle_cpu   the CPU time (percent of one core) a PE uses while its program
 *              sleeps for a second between SHMEM calls (getrusage);
 *   busy_bg_cpu  while PE 1 computes for half a second with no traffic, the CPU
 *              time of its threads other than the main one (the library's
 *              progress thread, if any): what the library takes from a PE that
 *              computes (RUSAGE_SELF less RUSAGE_THREAD);
 *   wait_cpu   meanwhile the CPU time of PE 0, waiting in shmem_barrier_all for
 *              PE 1: a waiting PE that owns its core polls, so this is near 100 %
 *              by design there, and low where PEs outnumber cores.
 * get_busy and get_wait are means, as OSU's latencies are; *_p50, *_p99 and *_max
 * beside them are the median, 99th percentile and slowest get, timed one by one:
 * where a few gets wait milliseconds for the target's progress thread to be
 * scheduled, the mean and the median part (docs/performance.md).
 * Other PEs stay idle. Verifies every value it gets. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static long value = 42; /* symmetric: what PE 0 gets */
static long release;    /* symmetric: PE 0 sets it when done */
static double bg_pct;   /* symmetric: PE 1's busy_bg_cpu, for PE 0 to report */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean get latency in us over iters gets; q[0..2]: the median, 99th percentile and
 * slowest get. */
static double get_latency(long iters, long warmup, double q[3])
{
    double *each = malloc((size_t)iters * sizeof *each);
    if (!each) {
        fprintf(stderr, "progress: out of memory\n");
        shmem_global_exit(1);
    }
    double t0 = 0, prev = 0;
    for (long i = -warmup; i < iters; i++) {
        if (i == 0)
            t0 = prev = bench_now();
        if (shmem_long_g(&value, 1) != 42) {
            fprintf(stderr, "progress: PE 0 got a wrong value from PE 1\n");
            shmem_global_exit(1);
        }
        if (i >= 0) {
            double now = bench_now();
            each[i] = now - prev;
            prev = now;
        }
    }
    double mean = (prev - t0) / (double)iters * 1e6;
    qsort(each, (size_t)iters, sizeof *each, by_value);
    q[0] = each[iters / 2] * 1e6;
    q[1] = each[iters - 1 - iters / 100] * 1e6;
    q[2] = each[iters - 1] * 1e6;
    free(each);
    return mean;
}

static double cpu_seconds_of(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
            (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static double cpu_seconds(void)
{
    return cpu_seconds_of(RUSAGE_SELF);
}

/* PE 1 computes (no SHMEM call) for half a second while PE 0 waits in a barrier;
 * returns PE 0's CPU use in percent of a core and leaves PE 1's other threads'
 * use in bg_pct on PE 1. */
static double compute_while_waiting(int me)
{
    shmem_barrier_all();
    double c0 = cpu_seconds(), t0 = cpu_seconds_of(RUSAGE_THREAD), w0 = bench_now();
    if (me == 1) {
        volatile double x = 1.0;
        while (bench_now() - w0 < 0.5)
            for (int k = 0; k < 1000; k++)
                x = x * 1.0000001 + 1e-9;
        double others = (cpu_seconds() - c0) - (cpu_seconds_of(RUSAGE_THREAD) - t0);
        bg_pct = (others < 0 ? 0 : others) / (bench_now() - w0) * 100.0;
    }
    shmem_barrier_all();
    return (cpu_seconds() - c0) / (bench_now() - w0) * 100.0;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 2000, 50 };
    int me = bench_init(argc, argv, &o, NULL, "progress", 2, 0);
    if (me == 0)
        bench_header("Waiting on a PE that does not call SHMEM", "Metric         Value");
    for (int busy = 1; busy >= 0; busy--) {
        release = 0;
        shmem_barrier_all();
        if (me == 0) {
            double q[3], us = get_latency(o.iters, o.warmup, q);
            shmem_long_p(&release, 1, 1);
            shmem_quiet();
            const char *name = busy ? "get_busy" : "get_wait";
            printf("%-14s %10.2f us\n", name, us);
            bench_result(name, 8, "lat_us", us);
            static const char *const suffix[3] = { "p50", "p99", "max" };
            for (int k = 0; k < 3; k++) {
                char row[32];
                snprintf(row, sizeof row, "%s_%s", name, suffix[k]);
                printf("%-14s %10.2f us\n", row, q[k]);
                bench_result(row, 8, "lat_us", q[k]);
            }
        } else if (me == 1) {
            if (busy)
                while (!__atomic_load_n(&release, __ATOMIC_ACQUIRE))
                    ; /* computing: no SHMEM call */
            else
                shmem_long_wait_until(&release, SHMEM_CMP_NE, 0);
        }
    }
    shmem_barrier_all();
    double c0 = cpu_seconds(), w0 = bench_now();
    struct timespec second = { 1, 0 };
    nanosleep(&second, NULL);
    double pct = (cpu_seconds() - c0) / (bench_now() - w0) * 100.0;
    shmem_barrier_all();
    if (me == 0) {
        printf("%-14s %10.2f %% of a core\n", "idle_cpu", pct);
        bench_result("idle_cpu", 0, "pct_core", pct);
    }
    double wait = compute_while_waiting(me);
    if (me == 0) {
        double bg = shmem_double_g(&bg_pct, 1);
        printf("%-14s %10.2f %% of a core\n", "busy_bg_cpu", bg);
        printf("%-14s %10.2f %% of a core\n", "wait_cpu", wait);
        bench_result("busy_bg_cpu", 0, "pct_core", bg);
        bench_result("wait_cpu", 0, "pct_core", wait);
    }
    shmem_finalize();
    return 0;
}
