/* A context just created has counted nothing (shmemx_pcntr_*), whether its endpoint
 * is new, parked by an earlier context, connected at creation or not yet: every
 * per-context counter reads 0, through its own getter and through get_all. The
 * target counter is the PE's, which other PEs' operations move, so not checked. */
#ifndef SHOAL_TEST_PCNTR_FRESH_H
#define SHOAL_TEST_PCNTR_FRESH_H

#include <shmemx.h>
#include <stdint.h>

#include "check.h"

static inline void check_pcntr_fresh(shmem_ctx_t ctx)
{
    uint64_t v;
    shmemx_pcntr_get_issued_write(ctx, &v);
    CHECK_EQ(v, 0);
    shmemx_pcntr_get_issued_read(ctx, &v);
    CHECK_EQ(v, 0);
    shmemx_pcntr_get_completed_write(ctx, &v);
    CHECK_EQ(v, 0);
    shmemx_pcntr_get_completed_read(ctx, &v);
    CHECK_EQ(v, 0);
    shmemx_pcntr_t all;
    shmemx_pcntr_get_all(ctx, &all);
    CHECK_EQ(all.pending_put, 0);
    CHECK_EQ(all.pending_get, 0);
    CHECK_EQ(all.completed_put, 0);
    CHECK_EQ(all.completed_get, 0);
}

#endif
