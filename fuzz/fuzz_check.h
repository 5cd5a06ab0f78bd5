/* A failed property in a fuzz target: print it and abort, which libFuzzer
 * reports as a crash with the input that caused it. */
#ifndef SHOAL_FUZZ_CHECK_H
#define SHOAL_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: property violated: %s\n", __FILE__, __LINE__, #cond);    \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#endif
