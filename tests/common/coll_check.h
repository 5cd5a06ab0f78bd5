/* What every collective test shares: this PE, the PE count, and TCHECK, which on a
 * failed check prints the check and then what the test was doing, and ends the job.
 * Each test defines coll_describe(), which prints its current case (routine, type,
 * size, team, ...) from its own state. */
#ifndef SHOAL_TEST_COLL_CHECK_H
#define SHOAL_TEST_COLL_CHECK_H

#include <shmem.h>
#include <stdio.h>

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

#endif
