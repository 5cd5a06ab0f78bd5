/* The collective that ends each phase of the randomized stress test: picked,
 * sized and rooted by the seed, with contributions every PE can recompute, so
 * each PE checks its own result without trusting any other. */
#ifndef SHOAL_STRESS_RANDOM_COLL_H
#define SHOAL_STRESS_RANDOM_COLL_H

#include <stdint.h>

struct run;

/* Reports a mismatch with the seed that replays it, and ends the job. */
void stress_fail(const struct run *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

/* Allocates (collectively) the symmetric buffers for up to npes PEs. */
void coll_setup(int npes);
void coll_teardown(void);

/* Runs and checks one collective on the world team. */
void run_collective(const struct run *r, uint64_t seed, unsigned phase, int me, int npes);

#endif
