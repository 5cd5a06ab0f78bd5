/* What the machine-limit programs (no SHMEM library) share: the clock, their RESULT
 * line (the SHMEM programs' format, impl "machine", 2 processes) and their one
 * argument, a repetition count. */
#ifndef SHOAL_BENCH_LIMITS_H
#define SHOAL_BENCH_LIMITS_H

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The n-th CPU this process may run on (the last one when there are fewer), or -1
 * when the mask cannot be read: where a program pins its two sides. */
static inline int limits_nth_cpu(int n)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set))
        return -1;
    int last = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set)) {
            last = cpu;
            if (n-- == 0)
                break;
        }
    return last;
}

static inline double limits_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

static inline void limits_result(const char *bench, size_t size, const char *metric,
                                 double value)
{
    printf("RESULT,%s,machine,2,%zu,%s,%.6g\n", bench, size, metric, value);
}

/* argv[1], or dflt; a usage message and exit status 2 unless it is positive. */
static inline long limits_iters(int argc, char **argv, long dflt, const char *what)
{
    long iters = argc > 1 ? atol(argv[1]) : dflt;
    if (iters < 1) {
        fprintf(stderr, "usage: %s [%s]\n", argv[0], what);
        exit(2);
    }
    return iters;
}

#endif
