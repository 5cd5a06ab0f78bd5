/* What every collective test shares: this PE, the PE count, TCHECK, which on a
 * failed check prints the check and then what the test was doing, and ends the job,
 * and the test's start and end (coll_init, coll_malloc, coll_finish). Each test
 * defines coll_describe(), which prints its current case (routine, type, size, team,
 * ...) from its own state. */
#ifndef SHOAL_TEST_COLL_CHECK_H
#define SHOAL_TEST_COLL_CHECK_H

#include <shmem.h>
#include <stdarg.h>
#include <stdio.h>

#include "check.h"

static int me, npes;

/* The case under test, as one line without the newline (defined by each test). */
static void coll_describe(FILE *out);

#define TCHECK(c)                                                                            \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "FAIL PE %d %s:%d: %s\n", me, __FILE__, __LINE__, #c);           \
            fprintf(stderr, "PE %d: ", me);                                                  \
            coll_describe(stderr);                                                           \
            fprintf(stderr, "\n");                                                           \
            shmem_global_exit(1);                                                            \
        }                                                                                    \
    } while (0)

/* Starts the test: Shoal, me and npes. */
static inline void coll_init(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
}

/* The test's symmetric buffers, freed by coll_finish (last first). */
static void *coll_bufs[4];
static int coll_nbufs;

static inline void *coll_malloc(size_t bytes)
{
    CHECK(coll_nbufs < (int)(sizeof coll_bufs / sizeof coll_bufs[0]));
    void *p = shmem_malloc(bytes);
    CHECK(p != NULL);
    return coll_bufs[coll_nbufs++] = p;
}

/* Ends the test once every PE is done with it: PE 0 prints what ran (fmt and its
 * arguments, as printf) and ", N PEs: ok"; the buffers go back and Shoal ends. */
static inline void coll_finish(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void coll_finish(const char *fmt, ...)
{
    shmem_barrier_all();
    if (me == 0) {
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf(", %d PEs: ok\n", npes);
    }
    while (coll_nbufs > 0)
        shmem_free(coll_bufs[--coll_nbufs]);
    shmem_finalize();
}

#endif
