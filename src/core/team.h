/* Teams: a set of world PEs (strided, or an explicit list) with a slot of symmetric
 * memory for their synchronization and collectives. The data and the checks every routine owes its
 * caller live here (core/team.c); creating, splitting and destroying teams is api/team.c. */
#ifndef SHOAL_TEAM_H
#define SHOAL_TEAM_H

#include <stdint.h>
#include <shmem.h>

#include "env/compiler.h"
#include "transport/transport.h"

/* Each team owns one slot of the team pool: symmetric words for its
 * synchronization and symmetric scratch for its collectives. Slots sit at the
 * same heap offset on every PE, so a team's members address each other's slot
 * through the ordinary symmetric translation. */
#define SHOAL_TEAM_SLOTS 64
#define SHOAL_TEAM_SYNC_WORDS 64
#define SHOAL_TEAM_SCRATCH (64 * 1024)
/* sync words 40 and 41 of a parent team: slot agreement of its splits (api/team.c) */
#define SHOAL_TEAM_SPLIT_WORD 40
#define SHOAL_TEAM_SLEEP_WORD 44 /* the world team's: shoal_sleepers (base/backoff.h) */

struct shoal_team_slot {
    uint64_t sync[SHOAL_TEAM_SYNC_WORDS];
    unsigned char scratch[SHOAL_TEAM_SCRATCH];
};

struct shoal_team {
    /* World PE of member i: start + i * stride, or pes[i] for a team whose members
     * are not evenly spaced (stride 0 then; pes NULL otherwise). */
    int start, stride, size;
    const int *pes;
    const int *by_world; /* with pes: member indices in order of world PE */
    int my_pe;           /* -1 when this PE is not a member */
    int slot;            /* index into the team pool */
    struct shoal_team_slot *res;
    uint64_t barrier_epoch; /* barriers this PE has entered on this team */
    unsigned splits;        /* splits of this team as parent (api/team.c) */
    shmem_team_config_t config;
    uint64_t serial; /* unique to this team's life: what caches of its shape key on */
    int destroyed;   /* kept, never freed, once destroyed (api/team.c) */
    struct shoal_team *next_dead;
};

/* A destroyed context's team (api/ctx.c): no members (size 0, my_pe -1), so every
 * RMA or AMO through a destroyed context fails shoal_world_pe's range check and
 * shoal_bad_pe names the cause, with no check of its own on the hot path. */
extern struct shoal_team shoal_ctx_dead_team;
/* SHOAL_TEAM_SLOTS slots, symmetric: at the heap's start (api/init.c). */
extern struct shoal_team_slot *shoal_team_pool;

_Noreturn void shoal_team_gone(const char *routine);
_Noreturn void shoal_bad_pe(const char *routine, int pe, const struct shoal_team *team);

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

/* Member i -> world PE (transport/transport.h's shoal_member_pe). */
static inline int shoal_team_pe(const struct shoal_team *team, int i)
{
    return shoal_member_pe(team->start, team->stride, team->pes, i);
}

/* Member i of (start, stride, size) is start + i * stride: pe -> i, or -1. */
static inline int shoal_strided_index(int start, int stride, int size, int pe)
{
    int d = pe - start;
    if (d % stride)
        return -1;
    int i = d / stride;
    return i >= 0 && i < size ? i : -1;
}

/* World PE -> member index in team, or -1. */
int shoal_team_index(const struct shoal_team *team, int world_pe);

/* Team-relative PE -> world PE, with the range check every routine owes its caller. */
static inline int shoal_world_pe(const char *routine, const struct shoal_team *team, int pe)
{
    if (SHOAL_UNLIKELY((unsigned)pe >= (unsigned)team->size))
        shoal_bad_pe(routine, pe, team);
    return shoal_team_pe(team, pe);
}

#endif
