/* What the machine-limit programs (no SHMEM library) share: the clock, their RESULT
 * line (the SHMEM programs' format, impl "machine", 2 processes) and their one
 * argument, a repetition count. */
#ifndef SHOAL_BENCH_LIMITS_H
#define SHOAL_BENCH_LIMITS_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
