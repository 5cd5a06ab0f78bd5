/* Process-wide library state and the few inline helpers every API file uses:
 * PE checks, symmetric address translation, fatal errors. */
#ifndef SHOAL_STATE_H
#define SHOAL_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <shmem.h>

#include "core/env.h"
#include "bootstrap/bootstrap.h"
#include "transport/net.h"

#define SHOAL_LIKELY(x)   __builtin_expect(!!(x), 1)
#define SHOAL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHOAL_EXPORT      __attribute__((visibility("default")))
#define SHOAL_STR_(x) #x
#define SHOAL_STR(x) SHOAL_STR_(x)

/* Every public routine is defined under its shmem_ name as a weak symbol, and gets a
 * strong pshmem_ twin, so a profiling tool can interpose shmem_X and call pshmem_X. */
#define SHOAL_PROFILED(name)                                                      \
    _Pragma(SHOAL_STR(weak name))                                                 \
    extern __typeof__(name) p##name SHOAL_EXPORT __attribute__((alias(#name), copy(name)));

/* The segments a symmetric address can live in. */
enum shoal_seg_id { SHOAL_SEG_HEAP, SHOAL_SEG_DATA, SHOAL_NSEGS };

struct shoal_seg {
    uintptr_t base;   /* this PE's own copy */
    size_t size;
    char **peer;      /* peer[pe]: where PE pe's copy is mapped in this process */
};

/* Each team owns one slot of the team pool: symmetric words for its
 * synchronization and symmetric scratch for its collectives. Slots sit at the
 * same heap offset on every PE, so a team's members address each other's slot
 * through the ordinary symmetric translation. */
#define SHOAL_TEAM_SLOTS 64
#define SHOAL_TEAM_SYNC_WORDS 64
#define SHOAL_TEAM_SCRATCH (16 * 1024)
/* sync words 40 and 41 of a parent team: slot agreement of its splits (api/team.c) */
#define SHOAL_TEAM_SPLIT_WORD 40

struct shoal_team_slot {
    uint64_t sync[SHOAL_TEAM_SYNC_WORDS];
    unsigned char scratch[SHOAL_TEAM_SCRATCH];
};

struct shoal_team {
    int start, stride, size;   /* world PE of member i is start + i * stride */
    int my_pe;                 /* -1 when this PE is not a member */
    int slot;                  /* index into the team pool */
    struct shoal_team_slot *res;
    uint64_t barrier_epoch;    /* barriers this PE has entered on this team */
    unsigned splits;           /* splits of this team as parent (api/team.c) */
    shmem_team_config_t config;
    int destroyed;             /* kept, never freed, once destroyed (api/team.c) */
    struct shoal_team *next_dead;
};

_Noreturn void shoal_team_gone(const char *routine);
/* A team handle a routine may use: 0 for SHMEM_TEAM_INVALID, 1 for a live team; a
 * destroyed team ends the job (its memory is kept, so looking is safe). */
static inline int shoal_team_ok(const char *routine, const struct shoal_team *team)
{
    if (!team)
        return 0;
    if (SHOAL_UNLIKELY(team->destroyed))
        shoal_team_gone(routine);
    return 1;
}

struct shoal_ctx {
    struct shoal_team *team;
    long options;
    long session;              /* options of the open session; 0 when none */
    void *net;                 /* the network transport's resources for this context */
    unsigned destroyed;        /* SHOAL_CTX_DESTROYED once shmem_ctx_destroy'd (api/ctx.c) */
};
#define SHOAL_CTX_DESTROYED 0xdeadc7c7u

struct shoal_state {
    int my_pe;
    int n_pes;
    int init_count;            /* shmem_init calls not yet matched by shmem_finalize */
    int ever_initialized;
    int thread_level;
    struct shoal_seg seg[SHOAL_NSEGS];
    struct shoal_config cfg;
    const struct shoal_boot_ops *boot;
    struct shoal_alloc *heap_alloc;
    struct shoal_team_slot *team_pool;   /* SHOAL_TEAM_SLOTS slots, symmetric */
    /* Node layout (core/topology.c): node[pe] numbers PE pe's node. A job on more
     * than one node reaches the other nodes, and routes every AMO, through net. */
    int *node;
    int n_nodes;
    int multi_node;
    const struct shoal_net_ops *net;
};

extern struct shoal_state shoal;

/* Fatal errors: print "shoal: PE n: routine: message" and end the whole job. */
_Noreturn void shoal_fatal(const char *routine, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void shoal_warn(const char *routine, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void shoal_bad_pe(const char *routine, int pe, const struct shoal_team *team);
_Noreturn void shoal_bad_addr(const char *routine, const void *addr, int pe);
void shoal_check_range(const char *routine, const void *addr, size_t len);

/* Symmetric address -> its segment and offset, the same on every PE; -1 if not symmetric. */
static inline int shoal_seg_of(const void *addr, uint64_t *off)
{
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        uintptr_t o = (uintptr_t)addr - shoal.seg[s].base;
        if (o < shoal.seg[s].size) {
            *off = o;
            return s;
        }
    }
    return -1;
}

/* Symmetric address -> where PE pe's copy of it is mapped here; NULL if it is not
 * symmetric or PE pe is on another node. */
static inline char *shoal_xlate(const void *addr, int pe)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t off = a - shoal.seg[SHOAL_SEG_HEAP].base;
    char *base;
    if (SHOAL_LIKELY(off < shoal.seg[SHOAL_SEG_HEAP].size))
        base = shoal.seg[SHOAL_SEG_HEAP].peer[pe];
    else if ((off = a - shoal.seg[SHOAL_SEG_DATA].base) < shoal.seg[SHOAL_SEG_DATA].size)
        base = shoal.seg[SHOAL_SEG_DATA].peer[pe];
    else
        return NULL;
    return SHOAL_LIKELY(base != NULL) ? base + off : NULL;
}

/* Same node as this PE: reached by load/store. */
static inline int shoal_pe_local(int pe)
{
    return shoal.node[pe] == shoal.node[shoal.my_pe];
}

/* Team-relative PE -> world PE, with the range check every routine owes its caller. */
static inline int shoal_world_pe(const char *routine, const struct shoal_team *team, int pe)
{
    if (SHOAL_UNLIKELY((unsigned)pe >= (unsigned)team->size))
        shoal_bad_pe(routine, pe, team);
    return team->start + pe * team->stride;
}

/* A destroyed context's team (api/ctx.c): no members (size 0, my_pe -1), so every
 * RMA or AMO through a destroyed context fails shoal_world_pe's range check and
 * shoal_bad_pe names the cause, with no check of its own on the hot path. */
extern struct shoal_team shoal_ctx_dead_team;
/* SHMEM_DEBUG's checks of a context (api/ctx.c): called before shmem_init or after
 * shmem_finalize, or the context was destroyed. */
void shoal_ctx_debug_check(const char *routine, shmem_ctx_t ctx);

/* Without SHMEM_DEBUG: one compare and one predictable branch on a global. */
static inline void shoal_check_ctx(const char *routine, shmem_ctx_t ctx)
{
    if (SHOAL_UNLIKELY(ctx == SHMEM_CTX_INVALID))
        shoal_fatal(routine, "the context is SHMEM_CTX_INVALID");
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_ctx_debug_check(routine, ctx);
}

/* Checks a symmetric object of len bytes on team-relative PE pe that is not mapped
 * here: returns when the network reaches it, ends the job when it is not symmetric. */
void shoal_remote_miss(const char *routine, const void *addr, size_t len, int pe);

/* The remote copy of a symmetric object of len bytes on a team-relative PE; NULL
 * when that PE is on another node. *wpe receives its world PE number. */
static inline char *shoal_remote(const char *routine, shmem_ctx_t ctx, const void *addr,
                                 size_t len, int pe, int *wpe)
{
    shoal_check_ctx(routine, ctx);
    *wpe = shoal_world_pe(routine, ctx->team, pe);
    char *p = shoal_xlate(addr, *wpe);
    if (SHOAL_UNLIKELY(!p)) {
        shoal_remote_miss(routine, addr, len, pe);
        return NULL;
    }
    if (SHOAL_UNLIKELY(shoal.cfg.debug))
        shoal_check_range(routine, addr, len);
    return p;
}

/* Polls with growing politeness: spin, then yield the core, then sleep briefly,
 * so that more PEs than cores still make progress. */
struct shoal_backoff { unsigned polls; };
void shoal_backoff_slow(struct shoal_backoff *b, unsigned spins);

/* Drives the network, whose peers' operations on this PE may need this PE's help to
 * land (providers with manual progress); nothing to do on one node. */
static inline void shoal_progress(void)
{
    if (SHOAL_UNLIKELY(shoal.multi_node))
        shoal.net->progress();
}

static inline void shoal_backoff(struct shoal_backoff *b)
{
    unsigned spins = (unsigned)shoal.cfg.spin_count;
    if (SHOAL_UNLIKELY(shoal.multi_node)) {
        shoal.net->progress();
        /* A poll that drives the network costs system calls, and the peers it waits
         * for need this core to progress too: give it up far sooner. */
        spins >>= 6;
    }
    if (SHOAL_LIKELY(b->polls++ < spins)) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
        return;
    }
    shoal_backoff_slow(b, spins);
}

/* Library-internal pieces the API files share. */
void shoal_barrier_world(void);
/* Synchronizes the members of team (no completion of RMA); the caller is a member. */
void shoal_team_barrier(struct shoal_team *team);
void shoal_quiet_all(void);
/* Ends the job when a triggered operation on ctx still waits for
 * its trigger, which quiet could never complete (api/trigger.c). */
void shoal_trigger_quiet_check(const char *routine, shmem_ctx_t ctx);
void shoal_require_init(const char *routine);
/* Team slot bookkeeping: reset at init; at the last finalize free every team and context. */
void shoal_teams_reset(void);
void shoal_teams_release(void);
/* Destroys the contexts of team, or every context when team is NULL. */
void shoal_ctx_release(const struct shoal_team *team);

#endif
