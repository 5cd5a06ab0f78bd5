/* Communication contexts: a team (its PE numbering), options, and the network
 * transport's own resources (so that quiet on one context waits only for its
 * operations; on one node every RMA completes inside its call). Live contexts are kept
 * on a list because destroying a team destroys the contexts still attached to it,
 * and the last finalize frees whatever is left. Creation is not collective and may
 * come from several threads at once, hence the mutex.
 *
 * A destroyed context's node is never returned to malloc: it is marked destroyed,
 * its team becomes shoal_ctx_dead_team, and it waits on a free list that later creates
 * reuse (also after a re-init). So a handle the program still holds after
 * shmem_ctx_destroy, shmem_team_destroy of its team or the last shmem_finalize points
 * at valid memory: an RMA or AMO through it ends in shoal_bad_pe with a clear message
 * at no cost to the hot path, and SHMEM_DEBUG checks every use. A handle to a node that
 * a later create reused is indistinguishable from the new context; that goes unnoticed. */
#include <pthread.h>
#include <stdlib.h>

#include "api/api.h"
#include "env/log.h"

struct ctx_node {
    struct shoal_ctx ctx; /* first, so a handle converts back to its node */
    struct ctx_node *prev, *next;
};

static struct ctx_node *live;
static struct ctx_node *dead; /* destroyed nodes, linked through next */

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void unlink_node(struct ctx_node *n)
{
    if (n->prev)
        n->prev->next = n->next;
    else
        live = n->next;
    if (n->next)
        n->next->prev = n->prev;
}

/* Called with live_lock held: a node no longer live goes to the free list. */
static void push_dead(struct ctx_node *n)
{
    n->ctx.destroyed = SHOAL_CTX_DESTROYED;
    n->ctx.team = &shoal_ctx_dead_team;
    n->prev = NULL;
    n->next = dead;
    dead = n;
}

void shoal_ctx_release(const struct shoal_team *team)
{
    pthread_mutex_lock(&live_lock);
    for (struct ctx_node *n = live, *next; n; n = next) {
        next = n->next;
        if (!team || n->ctx.team == team) {
            unlink_node(n);
            shoal_tp_ctx_destroy(&n->ctx);
            push_dead(n);
        }
    }
    pthread_mutex_unlock(&live_lock);
}

void shoal_ctx_debug_check(const char *routine, shmem_ctx_t ctx)
{
    shoal_require_init(routine);
    if (ctx->destroyed == SHOAL_CTX_DESTROYED)
        shoal_fatal(routine,
                    "the context was destroyed (shmem_ctx_destroy, or "
                    "shmem_team_destroy of its team); create a new one");
}

static int create(const char *fn, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    SHOAL_LOG_SCOPE(fn);
    shoal_require_init(fn);
    *ctx = SHMEM_CTX_INVALID;
    if (!shoal_team_ok(fn, team))
        return -1;
    pthread_mutex_lock(&live_lock);
    struct ctx_node *n = dead;
    if (n)
        dead = n->next;
    pthread_mutex_unlock(&live_lock);
    if (!n && !(n = malloc(sizeof *n)))
        return -1;
    /* A team's num_contexts is what the program expects to create, not a cap. */
    n->ctx = (struct shoal_ctx){ .team = team, .options = options };
    if (shoal_tp_ctx_create(&n->ctx)) {
        SHOAL_LOG(TEAM, DEBUG, "%s: the %s transport has no resources for a context", fn,
                  shoal_tp_name());
        pthread_mutex_lock(&live_lock);
        push_dead(n);
        pthread_mutex_unlock(&live_lock);
        return -1;
    }
    pthread_mutex_lock(&live_lock);
    n->prev = NULL;
    n->next = live;
    if (live)
        live->prev = n;
    live = n;
    pthread_mutex_unlock(&live_lock);
    *ctx = &n->ctx;
    SHOAL_LOG(TEAM, DEBUG, "%s: context %p, options 0x%lx", fn, (void *)*ctx, options);
    return 0;
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return create(__func__, team, options, ctx);
}
SHOAL_PROFILED(shmem_team_create_ctx)

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return create(__func__, SHMEM_TEAM_WORLD, options, ctx);
}
SHOAL_PROFILED(shmem_ctx_create)

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    if (ctx == SHMEM_CTX_INVALID)
        return;
    if (ctx == SHMEM_CTX_DEFAULT) {
        shoal_warn(__func__, "SHMEM_CTX_DEFAULT cannot be destroyed; ignored");
        return;
    }
    /* The node stays valid memory (see above), so this check is safe and cheap. */
    if (ctx->destroyed == SHOAL_CTX_DESTROYED)
        shoal_fatal(__func__, "the context was already destroyed");
    struct ctx_node *n = (struct ctx_node *)ctx;
    SHOAL_LOG(TEAM, DEBUG, "shmem_ctx_destroy: context %p", (void *)ctx);
    shoal_tp_quiet(ctx);
    pthread_mutex_lock(&live_lock);
    unlink_node(n);
    pthread_mutex_unlock(&live_lock);
    shoal_tp_ctx_destroy(ctx);
    pthread_mutex_lock(&live_lock);
    push_dead(n);
    pthread_mutex_unlock(&live_lock);
}
SHOAL_PROFILED(shmem_ctx_destroy)

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (ctx == SHMEM_CTX_INVALID) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_ctx_debug_check(__func__, ctx);
    if (ctx->destroyed == SHOAL_CTX_DESTROYED) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}
SHOAL_PROFILED(shmem_ctx_get_team)

/* 1.6 sessions: a hint that the context's next operations may be batched. Starting
 * again ORs the options in; the configuration is advisory (total_ops) and only
 * checked. The transport may coalesce until the session stops. */
void shmem_ctx_session_start(shmem_ctx_t ctx, long options,
                             const shmem_ctx_session_config_t *config, long config_mask)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    shoal_check_ctx(__func__, ctx);
    ctx = shoal_thread_ctx_for(ctx);
    if ((config_mask & SHMEM_CTX_SESSION_TOTAL_OPS) && !config)
        shoal_fatal(__func__,
                    "config_mask names SHMEM_CTX_SESSION_TOTAL_OPS but config is NULL");
    if (options & ~SHMEM_CTX_SESSION_BATCH)
        shoal_warn(__func__, "unknown session options 0x%lx ignored",
                   options & ~SHMEM_CTX_SESSION_BATCH);
    ctx->session |= options & SHMEM_CTX_SESSION_BATCH;
    if (ctx->session)
        shoal_tp_session_start(ctx, ctx->session);
}
SHOAL_PROFILED(shmem_ctx_session_start)

void shmem_ctx_session_stop(shmem_ctx_t ctx)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    shoal_check_ctx(__func__, ctx);
    ctx = shoal_thread_ctx_for(ctx);
    if (!ctx->session)
        return;
    ctx->session = 0;
    shoal_tp_session_stop(ctx);
}
SHOAL_PROFILED(shmem_ctx_session_stop)
