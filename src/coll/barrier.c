/* World barrier: a dissemination barrier over symmetric flag words. In round r each
 * PE adds 1 to flag r of PE (me + 2^r) mod n and waits for its own flag r to reach
 * the barrier's epoch. Counts only grow, so no flag is ever reset and back-to-back
 * barriers cannot confuse rounds; ceil(log2 n) rounds of one AMO each. */
#include "core/state.h"
#include "transport/shm/shm.h"

void shoal_barrier_world(void)
{
    int n = shoal.n_pes, me = shoal.my_pe;
    uint64_t epoch = ++shoal.barrier_epoch;
    shoal_shm_fence();
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int peer = (me + dist) % n;
        uint64_t *flag = (uint64_t *)shoal_xlate(&shoal.sync_flags[r], peer);
        __atomic_fetch_add(flag, 1, __ATOMIC_RELEASE);
        struct shoal_backoff b = { 0 };
        while (__atomic_load_n(&shoal.sync_flags[r], __ATOMIC_ACQUIRE) < epoch)
            shoal_backoff(&b);
    }
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
