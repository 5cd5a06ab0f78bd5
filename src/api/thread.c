/* Cray OpenSHMEMX's thread-hot routines. A registered thread gets a serialized
 * context of its own (over the network, an endpoint with its own queues and
 * counters), on which the default-context routines then issue its operations
 * (shoal_default_ctx): thread_quiet and thread_fence complete and order those alone,
 * while shmem_quiet and the barriers complete every thread's (transport/threads.c).
 * Unregistered threads use the default context as before. */
#include <shmemx.h>

#include "api/api.h"
#include "env/log.h"

static const char *level_name(int level)
{
    switch (level) {
    case SHMEM_THREAD_SINGLE: return "SHMEM_THREAD_SINGLE";
    case SHMEM_THREAD_FUNNELED: return "SHMEM_THREAD_FUNNELED";
    case SHMEM_THREAD_SERIALIZED: return "SHMEM_THREAD_SERIALIZED";
    default: return "SHMEM_THREAD_MULTIPLE";
    }
}

void shmemx_thread_register(void)
{
    SHOAL_LOG_SCOPE(__func__);
    const char *fn = __func__;
    shoal_require_init(fn);
    if (shoal.thread_level != SHMEM_THREAD_MULTIPLE)
        shoal_fatal(fn,
                    "needs SHMEM_THREAD_MULTIPLE, and this PE runs at %s; start it with "
                    "shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided)",
                    level_name(shoal.thread_level));
    if (shoal_thread_ctx)
        shoal_fatal(fn,
                    "this thread is registered already; call shmemx_thread_unregister "
                    "once for each shmemx_thread_register");
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_SERIALIZED, &ctx))
        shoal_fatal(fn,
                    "no context could be made for this thread (the network's resources "
                    "are exhausted); register fewer threads");
    if (shoal_threads_add(ctx, shoal.cfg.max_threads) < 0) {
        shmem_ctx_destroy(ctx);
        shoal_fatal(fn,
                    "%ld threads are registered already, the most SHOAL_MAX_THREADS "
                    "allows; raise SHOAL_MAX_THREADS, or unregister threads when done",
                    (long)shoal.cfg.max_threads);
    }
    shoal_thread_ctx = ctx;
    SHOAL_LOG(TEAM, DEBUG, "thread registered: %d now", shoal_threads_registered);
}
SHOAL_PROFILED(shmemx_thread_register)

void shmemx_thread_unregister(void)
{
    SHOAL_LOG_SCOPE(__func__);
    const char *fn = __func__;
    shoal_require_init(fn);
    struct shoal_ctx *ctx = shoal_thread_ctx;
    if (!ctx)
        shoal_fatal(fn,
                    "this thread is not registered; call shmemx_thread_unregister only "
                    "after shmemx_thread_register, once, in the same thread");
    shoal_thread_ctx = NULL;
    shoal_threads_remove(ctx);
    shmem_ctx_destroy(ctx); /* completes its operations first */
    SHOAL_LOG(TEAM, DEBUG, "thread unregistered: %d left", shoal_threads_registered);
}
SHOAL_PROFILED(shmemx_thread_unregister)

/* An unregistered thread's operations are the default context's: it quiets and
 * fences that, as shmem_quiet and shmem_fence do. */
void shmemx_thread_quiet(void)
{
    SHOAL_LOG_SCOPE(__func__);
    struct shoal_ctx *ctx = shoal_thread_ctx;
    SHOAL_LOG(TEAM, TRACE, "%s: %s", __func__,
              ctx ? "this thread's context" : "not registered: the default context");
    if (ctx) {
        shoal_trigger_quiet_check(__func__, ctx); /* names this routine if one is pending */
        shmem_ctx_quiet(ctx);
    } else
        shmem_quiet();
}
SHOAL_PROFILED(shmemx_thread_quiet)

void shmemx_thread_fence(void)
{
    SHOAL_LOG_SCOPE(__func__);
    shmem_ctx_fence(shoal_default_ctx());
}
SHOAL_PROFILED(shmemx_thread_fence)

/* At finalize: a thread that never unregistered leaves its context unaccounted for. */
void shoal_threads_check_finalize(void)
{
    int n = __atomic_load_n(&shoal_threads_registered, __ATOMIC_RELAXED);
    if (n)
        shoal_fatal("shmem_finalize",
                    "%d thread%s still registered; call shmemx_thread_unregister in each "
                    "registered thread before it ends, once per shmemx_thread_register",
                    n, n == 1 ? " is" : "s are");
}
