/* Assertions for multi-PE tests: a failed check names the PE, file, line and the
 * values involved, then ends the whole job with a nonzero status. */
#ifndef SHOAL_TEST_CHECK_H
#define SHOAL_TEST_CHECK_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "FAIL PE %d %s:%d: %s\n", shmem_my_pe(), __FILE__, __LINE__,     \
                    #cond);                                                                  \
            shmem_global_exit(1);                                                            \
        }                                                                                    \
    } while (0)

#define CHECK_EQ(a, b)                                                                       \
    do {                                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                                  \
        if (a_ != b_) {                                                                      \
            fprintf(stderr, "FAIL PE %d %s:%d: %s == %s (%lld != %lld)\n", shmem_my_pe(),    \
                    __FILE__, __LINE__, #a, #b, a_, b_);                                     \
            shmem_global_exit(1);                                                            \
        }                                                                                    \
    } while (0)

#endif
