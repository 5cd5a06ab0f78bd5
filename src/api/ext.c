/* The shmemx_ extensions of shmemx.h: local completion, sessions in the Cray
 * OpenSHMEMX form, and signal_set/signal_add under their extension names. */
#include <shmemx.h>

#include "api/api.h"

static void local_complete(const char *fn, shmem_ctx_t ctx)
{
    SHOAL_LOG_SCOPE(fn);
    shoal_require_init(fn);
    shoal_check_ctx(fn, ctx);
    shoal_tp_local_complete(ctx);
}

void shmemx_local_complete(void)
{
    local_complete(__func__, shoal_default_ctx());
}
SHOAL_PROFILED(shmemx_local_complete)

void shmemx_ctx_local_complete(shmem_ctx_t ctx)
{
    local_complete(__func__, ctx);
}
SHOAL_PROFILED(shmemx_ctx_local_complete)

#define SESSION_KNOWN                                                                        \
    (SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT | SHMEM_SESSION_OP_PWS |                    \
     SHMEM_SESSION_OP_AMO | SHMEM_SESSION_UNRELIABLE)

/* The Cray options are a superset of the standard session's: SHMEM_SESSION_BUNDLE
 * is SHMEM_CTX_SESSION_BATCH. Starting again ORs options in, as the standard one
 * does; the transport reads them all (docs/extensions.md says what each does). */
void shmemx_ctx_session_start(shmem_ctx_t ctx, long options)
{
    shoal_require_init(__func__);
    shoal_check_ctx(__func__, ctx);
    ctx = shoal_thread_ctx_for(ctx);
    if (options & ~SESSION_KNOWN)
        shoal_warn(__func__, "unknown session options 0x%lx ignored",
                   options & ~SESSION_KNOWN);
    ctx->session |= options & SESSION_KNOWN;
    if (ctx->session)
        shoal_tp_session_start(ctx, ctx->session);
}
SHOAL_PROFILED(shmemx_ctx_session_start)

void shmemx_ctx_session_stop(shmem_ctx_t ctx)
{
    shmem_ctx_session_stop(ctx);
}
SHOAL_PROFILED(shmemx_ctx_session_stop)

void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_signal_set(sig_addr, signal, pe);
}
SHOAL_PROFILED(shmemx_signal_set)

void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}
SHOAL_PROFILED(shmemx_ctx_signal_set)

void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_signal_add(sig_addr, signal, pe);
}
SHOAL_PROFILED(shmemx_signal_add)

void shmemx_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}
SHOAL_PROFILED(shmemx_ctx_signal_add)
