/* What the API files share: the checks of a context argument, the one resolution of
 * a remote symmetric object (shoal_remote), and the bookkeeping of teams and
 * contexts across init and finalize. */
#ifndef SHOAL_API_H
#define SHOAL_API_H

#include <stddef.h>
#include <shmem.h>

#include "base/error.h"
#include "core/progress.h"
#include "base/state.h"
#include "core/team.h"
#include "env/log.h"
#include "transport/transport.h"

/* Start-up messages: unknown variables, SHMEM_VERSION and SHMEM_INFO (api/banner.c). */
void shoal_banner(void);

/* SHMEM_DEBUG's checks of a context (api/ctx.c): called before shmem_init or after
 * shmem_finalize, or the context was destroyed. */
void shoal_ctx_debug_check(const char *routine, shmem_ctx_t ctx);

/* Without SHMEM_DEBUG: one compare and one predictable branch on a global. */
/* Ends the job when a thread is still registered (api/thread.c). */
void shoal_threads_check_finalize(void);

/* The context of a default-context routine: a registered thread's own
 * (shmemx_thread_register), else the default one. */
static inline shmem_ctx_t shoal_default_ctx(void)
{
    struct shoal_ctx *t = shoal_thread_ctx;
    return SHOAL_UNLIKELY(t != NULL) ? t : SHMEM_CTX_DEFAULT;
}

/* A context argument of the routines that have no default-context form (sessions):
 * SHMEM_CTX_DEFAULT there is a registered thread's own context as well. */
static inline shmem_ctx_t shoal_thread_ctx_for(shmem_ctx_t ctx)
{
    return ctx == SHMEM_CTX_DEFAULT ? shoal_default_ctx() : ctx;
}

static inline void shoal_check_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (SHOAL_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shoal_fatal(routine, "the context is SHMEM_CTX_INVALID");
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_ctx_debug_check(routine, ctx);
}

/* The one resolution of a symmetric object of len bytes at addr on team-relative PE
 * pe of ctx's team: checks the context and the PE, finds the segment, the offset, the
 * same-node mapping (or none) and the transport, and checks that the whole extent
 * [addr, addr + len) lies inside the segment. Every layer below uses *r as given.
 * Ends the job, naming the routine, for anything not reachable. */
static SHOAL_INLINE void shoal_remote(const char *routine, shmem_ctx_t ctx, const void *addr,
                                      size_t len, int pe, struct shoal_rref *r)
{
    shoal_check_ctx(routine, ctx);
    int wpe = shoal_world_pe(routine, ctx->team, pe);
    if (SHOAL_UNLIKELY(shoal_resolve(addr, wpe, r) < 0))
        shoal_bad_addr(routine, addr, pe);
    if (SHOAL_UNLIKELY(!shoal_rref_fits(r, len)))
        shoal_check_range(routine, addr, len);
}

/* Ends the job when a triggered operation on ctx still waits for its trigger, which
 * quiet could never complete (api/trigger.c). */
void shoal_trigger_quiet_check(const char *routine, shmem_ctx_t ctx);

/* SHMEM_DEBUG's check of a local buffer (api/malloc.c): device memory while device
 * awareness is off ends the job, naming the routine and SHMEM_ENABLE_DEVICE_AWARENESS. */
void shoal_debug_local(const char *routine, const void *buf);
static inline void shoal_check_local(const char *routine, const void *buf)
{
    /* wrapped first: the dispatcher tests it next, so the two share one load (device
     * memory in play always wraps). */
    if (SHOAL_UNLIKELY(shoal.wrapped) && SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_debug_local(routine, buf);
}

/* Stream-ordered operations (api/stream.c): drain waits until every one queued has
 * run (ending the job, naming routine, when streams never reach them); fini also
 * stops the proxy thread. */
void shoal_stream_drain(const char *routine);
void shoal_stream_fini(void);

/* Team slot bookkeeping (api/team.c): reset at init; at the last finalize free every
 * team and context. */
void shoal_teams_reset(void);
void shoal_teams_release(void);
/* Destroys the contexts of team, or every context when team is NULL (api/ctx.c). */
void shoal_ctx_release(const struct shoal_team *team);

#endif
