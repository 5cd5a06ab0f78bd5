/* Team barrier: a dissemination barrier over the team's symmetric sync words. In
 * round r each member adds 1 to word r of member (me + 2^r) mod n and waits for its
 * own word r to reach the barrier's epoch. Counts only grow, so no word is ever
 * reset and back-to-back barriers cannot confuse rounds; ceil(log2 n) rounds of one
 * AMO each. */
#include "core/state.h"
#include "transport/route.h"
#include "transport/shm/shm.h"

void shoal_team_barrier(struct shoal_team *team)
{
    int n = team->size, me = team->my_pe;
    uint64_t epoch = ++team->barrier_epoch;
    uint64_t *words = team->res->sync;
    /* The collectives' puts before it (default context) are complete when it ends. */
    shoal_shm_fence();
    shoal.net->quiet(SHMEM_CTX_DEFAULT);
    if (shoal.net->coll && shoal.net->coll->barrier(team->start, team->stride, n) == 0)
        return;
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
    shoal_quiet_all();
    shoal_barrier_world();
}
SHOAL_PROFILED(shmem_barrier_all)

void shmem_sync_all(void)
{
    shoal_require_init(__func__);
    shoal_barrier_world();
}
SHOAL_PROFILED(shmem_sync_all)
