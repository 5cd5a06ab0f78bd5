/* Ordering and completion. Same-node RMA completes inside each call, so for it fence
 * and quiet only order this thread's stores, plain or non-temporal; the network
 * transport then orders or completes the context's own operations. */
#include "api/api.h"

/* On SHMEM_CTX_INVALID, fence and quiet perform no operation (1.5 section 9.11). */
static void ctx_fence(const char *fn, shmem_ctx_t ctx)
{
    SHOAL_LOG_SCOPE(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_require_init(fn);
    shoal_check_ctx(fn, ctx);
    shoal_tp_fence(ctx);
}

static void ctx_quiet(const char *fn, shmem_ctx_t ctx)
{
    SHOAL_LOG_SCOPE(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_require_init(fn);
    shoal_check_ctx(fn, ctx);
    shoal_trigger_quiet_check(fn, ctx);
    shoal_tp_quiet(ctx);
}

/* A registered thread's operations are on its own context: the fence orders those. */
void shmem_fence(void)
{
    ctx_fence(__func__, shoal_default_ctx());
}
SHOAL_PROFILED(shmem_fence)

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    ctx_fence(__func__, ctx);
}
SHOAL_PROFILED(shmem_ctx_fence)

void shmem_quiet(void)
{
    ctx_quiet(__func__, SHMEM_CTX_DEFAULT);
}
SHOAL_PROFILED(shmem_quiet)

void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    ctx_quiet(__func__, ctx);
}
SHOAL_PROFILED(shmem_ctx_quiet)

/* 1.6: quiet toward some PEs: what the context issued to each of them completes,
 * its operations to other PEs may stay in flight (shoal_tp_pe_quiet). */
static void pe_quiet(const char *fn, shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    SHOAL_LOG_SCOPE(fn);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shoal_require_init(fn);
    shoal_check_ctx(fn, ctx);
    if (npes == 0)
        return;
    for (size_t i = 0; i < npes; i++)
        shoal_world_pe(fn, ctx->team, target_pes[i]);
    shoal_trigger_quiet_check(fn, ctx);
    for (size_t i = 0; i < npes; i++)
        shoal_tp_pe_quiet(ctx, shoal_world_pe(fn, ctx->team, target_pes[i]));
}

void shmem_pe_quiet(const int *target_pes, size_t npes)
{
    pe_quiet(__func__, SHMEM_CTX_DEFAULT, target_pes, npes);
}
SHOAL_PROFILED(shmem_pe_quiet)

void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    pe_quiet(__func__, ctx, target_pes, npes);
}
SHOAL_PROFILED(shmem_ctx_pe_quiet)
