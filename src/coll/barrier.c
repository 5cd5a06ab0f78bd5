/* Team barrier: a dissemination barrier over the team's symmetric sync words. In
 * round r each member adds 1 to word r of member (me + 2^r) mod n and waits for its
 * own word r to reach the barrier's epoch. Counts only grow, so no word is ever
 * reset and back-to-back barriers cannot confuse rounds; ceil(log2 n) rounds of one
 * AMO each. */
#include "coll/coll.h"
#include "core/error.h"
#include "core/log.h"
#include "core/progress.h"
#include "core/team.h"
#include "transport/transport.h"

void shoal_team_barrier(struct shoal_team *team)
{
    int n = team->size, me = team->my_pe;
    uint64_t epoch = ++team->barrier_epoch;
    SHOAL_LOG(COLL, TRACE, "barrier %llu on the team of %d in slot %d",
              (unsigned long long)epoch, n, team->slot);
    uint64_t *words = team->res->sync;
    /* The collectives' puts before it (default context) are complete when it ends. */
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int peer = team->start + ((me + dist) % n) * team->stride;
        shoal_word_add(&words[r], 1, peer);
        struct shoal_backoff b = { 0 };
        while (__atomic_load_n(&words[r], __ATOMIC_ACQUIRE) < epoch)
            shoal_backoff(&b);
    }
}

void shoal_barrier_world(void)
{
    shoal_team_barrier(&shoal_team_world);
}

void shmem_barrier_all(void)
{
    shoal_require_init(__func__);
    shoal_barrier_world(); /* completes the default context's operations */
}
SHOAL_PROFILED(shmem_barrier_all)

void shmem_sync_all(void)
{
    shoal_require_init(__func__);
    shoal_barrier_world();
}
SHOAL_PROFILED(shmem_sync_all)
