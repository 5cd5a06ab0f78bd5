/* Ordering and completion. Same-node RMA completes inside each call, so fence and
 * quiet only have to order this thread's stores, plain or non-temporal. */
#include "core/state.h"
#include "transport/shm/shm.h"

void shoal_quiet_all(void)
{
    shoal_shm_fence();
}

void shmem_fence(void) { shoal_shm_fence(); }
SHOAL_PROFILED(shmem_fence)

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    shoal_check_ctx(__func__, ctx);
    shoal_shm_fence();
}
SHOAL_PROFILED(shmem_ctx_fence)

void shmem_quiet(void) { shoal_quiet_all(); }
SHOAL_PROFILED(shmem_quiet)

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    shoal_check_ctx(__func__, ctx);
    shoal_quiet_all();
}
SHOAL_PROFILED(shmem_ctx_quiet)
