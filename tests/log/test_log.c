/* The program tests/log/log.sh runs under each SHOAL_LOG channel: a job that passes
 * through every logged decision (start-up, a context, a team, puts, a barrier) and
 * checks its own data, so that a log line is never the only sign the job ran. */
#include <shmem.h>
#include <stdio.h>

#include "check.h"

static long cell;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long src = 100 + me;
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    shmem_ctx_long_put(ctx, &cell, &src, 1, (me + 1) % n);
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_team_t evens;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens);
    if (evens != SHMEM_TEAM_INVALID)
        shmem_team_destroy(evens);
    shmem_barrier_all();
    CHECK_EQ(cell, 100 + (me + n - 1) % n);
    shmem_finalize();
    return 0;
}
