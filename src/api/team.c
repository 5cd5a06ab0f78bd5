/* Teams. A team is a strided subset of the world (member i is world PE
 * start + i * stride) or, when its members are not evenly spaced in the world (a
 * colour/key split, a split of such a team), an explicit list of world PEs, made
 * once here so that every routine only looks members up. Each team owns one slot of
 * the symmetric team pool, the same slot number on all of its members; a slot is
 * chosen during the split, among the parent's members alone, as the lowest slot
 * free on every member of the new team (see split_round). Concurrent splits from
 * several threads of one PE are not supported: they could pick the same slot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <shmemx.h>

#include "api/api.h"
#include "coll/coll.h"
#include "env/log.h"
#include "mem/device_heap.h"

/* The team this PE holds in each slot; NULL where the slot is free here. */
static struct shoal_team *slot_team[SHOAL_TEAM_SLOTS];

/* A new team in its parent's numbering: member i is parent PE start + i * stride, or
 * ranks[i] where ranks is set (a colour/key split). */
struct shape {
    int start, stride, size;
    const int *ranks;
};

static int shape_rank(const struct shape *sh, int i)
{
    return sh->ranks ? sh->ranks[i] : sh->start + i * sh->stride;
}

/* Every team this library made has a serial of its own (WORLD and SHARED: 0). */
static uint64_t team_serial;

void shoal_teams_reset(void)
{
    memset(slot_team, 0, sizeof slot_team);
    slot_team[0] = &shoal_team_world;
    slot_team[1] = &shoal_team_shared;
}

/* Destroyed teams stay allocated, marked, for later splits to reuse: a program that
 * keeps using a destroyed handle gets a message instead of reading freed memory. */
static struct shoal_team *dead_teams;

static void team_release(struct shoal_team *t)
{
    shoal_ctx_release(t);
    slot_team[t->slot] = NULL;
    t->destroyed = 1;
    shoal_dev_heap_team(t);
    t->next_dead = dead_teams;
    dead_teams = t;
}

void shoal_teams_release(void)
{
    shoal_ctx_release(NULL);
    for (int s = 0; s < SHOAL_TEAM_SLOTS; s++) {
        struct shoal_team *t = slot_team[s];
        if (t && t != &shoal_team_world && t != &shoal_team_shared) {
            free((void *)t->pes);
            free(t);
        }
        slot_team[s] = NULL;
    }
}

static uint64_t slots_used(void)
{
    /* Slots beyond SHMEM_NUM_TEAM_PSYNC's teams (after WORLD's and SHARED's) count
     * as used. */
    long limit = shoal.cfg.num_team_psync + 2;
    uint64_t m = limit < SHOAL_TEAM_SLOTS ? ~0ull << limit : 0;
    for (int s = 0; s < SHOAL_TEAM_SLOTS; s++)
        if (slot_team[s])
            m |= 1ull << s;
    return m;
}

/* The list by_pe's qsort compares by (a split runs one at a time on a PE). */
static const int *sort_pes;

static int by_pe(const void *a, const void *b)
{
    int x = sort_pes[*(const int *)a], y = sort_pes[*(const int *)b];
    return (x > y) - (x < y);
}

/* The new team's members in the world: strided where they are evenly spaced (any
 * team of 1 or 2), else the list, with its index by world PE for translations. */
static void team_members(const char *fn, struct shoal_team *t,
                         const struct shoal_team *parent, const struct shape *sh)
{
    int n = sh->size;
    int *w = malloc(2 * (size_t)n * sizeof *w);
    if (!w)
        shoal_fatal(fn, "out of memory for the %d members of a team", n);
    for (int i = 0; i < n; i++)
        w[i] = shoal_team_pe(parent, shape_rank(sh, i));
    int stride = n > 1 ? w[1] - w[0] : 1, even = 1;
    for (int i = 2; i < n && even; i++)
        even = w[i] - w[i - 1] == stride;
    t->start = w[0];
    t->stride = even ? stride : 0;
    t->size = n;
    if (even) {
        free(w);
        return;
    }
    int *order = w + n;
    for (int i = 0; i < n; i++)
        order[i] = i;
    sort_pes = w;
    qsort(order, (size_t)n, sizeof *order, by_pe);
    t->pes = w;
    t->by_world = order;
}

static struct shoal_team *team_new(const char *fn, const struct shoal_team *parent,
                                   const struct shape *sh, int slot,
                                   const shmem_team_config_t *config, long mask)
{
    struct shoal_team *t = dead_teams;
    if (t) {
        dead_teams = t->next_dead;
        free((void *)t->pes);
    } else if (!(t = malloc(sizeof *t)))
        shoal_fatal(fn, "out of memory for a team");
    *t = (struct shoal_team){ .slot = slot, .res = &shoal_team_pool[slot] };
    team_members(fn, t, parent, sh);
    t->my_pe = shoal_team_index(t, shoal.my_pe);
    t->serial = ++team_serial;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    /* No other member touches this copy until the parent barrier that follows. */
    memset(t->res->sync, 0, sizeof t->res->sync);
    slot_team[slot] = t;
    shoal_dev_heap_team(t);
    SHOAL_LOG(TEAM, DEBUG, "%s: team of %d (%s %d, stride %d) in slot %d, this PE %d", fn,
              t->size, t->pes ? "a list of world PEs, first" : "start", t->start, t->stride,
              slot, t->my_pe);
    return t;
}

/* One split over parent, forming ngroups disjoint teams at once; group j's member 0
 * is parent PE leads[j] (leads NULL: lead0 + j * lstep), and mine is this PE's group
 * (NULL: none).
 *
 * Slot agreement: each member ORs the slots it uses into word W of its group's
 * member 0 (the leader); after a parent barrier W holds the slots used anywhere in
 * the group, and every parent PE reads every leader's W, so all of them see alike
 * whether some group found no free slot, and fail together. A second barrier ends
 * the reads (and the zeroing of the new slot), then each PE zeroes its own W.
 * W alternates between two words by the parent's split count: the next split
 * uses the other word, and this one's is used again only after that split's first
 * barrier, which no PE passes before every PE has zeroed its W here. */
static int split_round(const char *fn, struct shoal_team *parent, int ngroups,
                       const int *leads, int lead0, int lstep, const struct shape *mine,
                       const shmem_team_config_t *config, long mask, shmem_team_t *new_team)
{
    uint64_t *w = &parent->res->sync[SHOAL_TEAM_SPLIT_WORD + (parent->splits++ & 1)];
    int leader = mine ? shoal_team_pe(parent, shape_rank(mine, 0)) : -1;
    if (mine)
        shoal_word_fetch_op(SHOAL_AMO_OR, w, slots_used(), leader);
    shoal_team_barrier(parent);

    int full = 0;
    uint64_t group_used = 0;
    for (int j = 0; j < ngroups; j++) {
        int pe = shoal_team_pe(parent, leads ? leads[j] : lead0 + j * lstep);
        uint64_t used = shoal_word_read(w, pe);
        full |= used == ~0ull;
        if (pe == leader)
            group_used = used;
    }
    *new_team = SHMEM_TEAM_INVALID;
    if (full && leader == shoal.my_pe && group_used == ~0ull) {
        fflush(stdout);
        fprintf(shoal_error_stream(),
                "shoal: PE %d: %s: no free team slots (%ld teams alive besides "
                "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED: SHMEM_NUM_TEAM_PSYNC=%ld, at most "
                "%d); destroy unused teams\n",
                shoal.my_pe, fn,
                shoal.cfg.num_team_psync < SHOAL_TEAM_SLOTS - 2 ? shoal.cfg.num_team_psync
                                                                : SHOAL_TEAM_SLOTS - 2,
                shoal.cfg.num_team_psync, SHOAL_TEAM_SLOTS - 2);
    }
    if (!full && mine)
        *new_team = team_new(fn, parent, mine, __builtin_ctzll(~group_used), config, mask);
    shoal_team_barrier(parent);
    __atomic_store_n(w, 0, __ATOMIC_RELAXED);
    return full;
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    *new_team = SHMEM_TEAM_INVALID;
    SHOAL_LOG(TEAM, DEBUG, "%s: entry, start %d, stride %d, size %d", __func__, start, stride,
              size);
    if (!shoal_team_ok(__func__, parent) || size < 1 || (stride == 0 && size != 1))
        return -1;
    long long last = start + (long long)(size - 1) * stride;
    if (start < 0 || start >= parent->size || last < 0 || last >= parent->size) {
        SHOAL_LOG(TEAM, DEBUG, "%s: PEs %d to %lld are outside the parent's %d", __func__,
                  start, last, parent->size);
        return -1;
    }
    /* A one-member team's stride is irrelevant; 1 keeps index arithmetic defined. */
    struct shape sh = { start, size == 1 ? 1 : stride, size, NULL };
    int mine = shoal_strided_index(start, sh.stride, size, parent->my_pe) >= 0;
    return split_round(__func__, parent, 1, NULL, start, 0, mine ? &sh : NULL, config,
                       config_mask, new_team)
            ? -1
            : 0;
}
SHOAL_PROFILED(shmem_team_split_strided)

int shmem_team_split_2d(shmem_team_t parent, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!shoal_team_ok(__func__, parent) || xrange < 1)
        return -1;
    int n = parent->size;
    SHOAL_LOG(TEAM, DEBUG, "%s: entry, xrange %d over %d PEs", __func__, xrange, n);
    if (xrange > n)
        xrange = n;
    int yrange = (n + xrange - 1) / xrange;
    int x = parent->my_pe % xrange, y = parent->my_pe / xrange;
    /* The row (same y) is the x-axis team, the column (same x) the y-axis team. */
    int row_size = n - y * xrange < xrange ? n - y * xrange : xrange;
    int col_size = (n - x + xrange - 1) / xrange;
    struct shape row = { y * xrange, 1, row_size, NULL };
    struct shape col = { x, col_size == 1 ? 1 : xrange, col_size, NULL };
    if (split_round(__func__, parent, yrange, NULL, 0, xrange, &row, xaxis_config, xaxis_mask,
                    xaxis_team))
        return -1;
    /* The column's slot is chosen with the row's already taken on every member. */
    if (split_round(__func__, parent, xrange, NULL, 0, 1, &col, yaxis_config, yaxis_mask,
                    yaxis_team)) {
        team_release(*xaxis_team);
        *xaxis_team = SHMEM_TEAM_INVALID;
        return -1;
    }
    return 0;
}
SHOAL_PROFILED(shmem_team_split_2d)

/* A 1-member team's stride is irrelevant; 1 keeps index arithmetic defined. */
static struct shape line(int start, int stride, int size)
{
    return (struct shape){ start, size == 1 ? 1 : stride, size, NULL };
}

/* Cray OpenSHMEMX's grid splits: the first X*Y*Z parent PEs form a grid, x fastest;
 * each joins the team of its line along each axis (zt NULL: a 2-D grid), ranked by
 * its position on that axis, and the other parent PEs get SHMEM_TEAM_INVALID. The
 * lines of one axis are split at once where their first members are evenly spaced
 * (x lines: every X; z lines: 0 to X*Y-1), the y lines one z plane at a time. */
static void split_grid(const char *fn, struct shoal_team *parent, int xr, int yr, int zr,
                       shmem_team_t *xt, shmem_team_t *yt, shmem_team_t *zt)
{
    *xt = *yt = SHMEM_TEAM_INVALID;
    if (zt)
        *zt = SHMEM_TEAM_INVALID;
    long long cells = (long long)xr * yr * zr;
    if (xr < 1 || yr < 1 || zr < 1 || cells > parent->size) {
        if (parent->my_pe == 0)
            shoal_warn(fn,
                       "a %d x %d x %d grid does not fit a parent team of %d PEs; no teams "
                       "made (every range must be at least 1, their product at most the "
                       "parent's size)",
                       xr, yr, zr, parent->size);
        return;
    }
    SHOAL_LOG(TEAM, DEBUG, "%s: a %d x %d x %d grid over %d PEs", fn, xr, yr, zr,
              parent->size);
    int me = parent->my_pe, in = me < cells;
    int x = me % xr, y = me / xr % yr, z = me / xr / yr;
    struct shape row = line(xr * (y + yr * z), 1, xr);
    struct shape col = line(x + xr * yr * z, xr, yr);
    struct shape pillar = line(x + xr * y, xr * yr, zr);
    int failed = split_round(fn, parent, yr * zr, NULL, 0, xr, in ? &row : NULL, NULL, 0, xt);
    for (int plane = 0; plane < zr && !failed; plane++) {
        /* Each round leaves SHMEM_TEAM_INVALID to the PEs outside its plane. */
        shmem_team_t t;
        failed = split_round(fn, parent, xr, NULL, xr * yr * plane, 1,
                             in && z == plane ? &col : NULL, NULL, 0, &t);
        if (in && z == plane)
            *yt = t;
    }
    if (zt && !failed)
        failed = split_round(fn, parent, xr * yr, NULL, 0, 1, in ? &pillar : NULL, NULL, 0,
                             zt);
    if (!failed)
        return;
    SHOAL_LOG(TEAM, DEBUG, "%s: no free slot for every line; teams released", fn);
    shmem_team_t *made[] = { xt, yt, zt };
    for (int i = 0; i < 3; i++)
        if (made[i] && *made[i] != SHMEM_TEAM_INVALID) {
            team_release(*made[i]);
            *made[i] = SHMEM_TEAM_INVALID;
        }
}

void shmemx_team_split_3d(shmem_team_t parent, int xrange, int yrange, int zrange,
                          shmem_team_t *xteam, shmem_team_t *yteam, shmem_team_t *zteam)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    *xteam = *yteam = *zteam = SHMEM_TEAM_INVALID;
    if (shoal_team_ok(__func__, parent))
        split_grid(__func__, parent, xrange, yrange, zrange, xteam, yteam, zteam);
}
SHOAL_PROFILED(shmemx_team_split_3d)

/* CX's 2-D split names both ranges: a grid that covers the parent is 1.5's split
 * (a short last row included); a smaller one leaves the PEs past it out. */
void shmemx_team_split_2d(shmem_team_t parent, int xrange, int yrange, shmem_team_t *xteam,
                          shmem_team_t *yteam)
{
    shoal_require_init(__func__);
    *xteam = *yteam = SHMEM_TEAM_INVALID;
    if (!shoal_team_ok(__func__, parent))
        return;
    if (xrange >= 1 && yrange >= 1 && (long long)xrange * yrange >= parent->size)
        shmem_team_split_2d(parent, xrange, NULL, 0, xteam, NULL, 0, yteam);
    else
        split_grid(__func__, parent, xrange, yrange, 1, xteam, yteam, NULL);
}
SHOAL_PROFILED(shmemx_team_split_2d)

/* Cray OpenSHMEMX's colour/key split, as MPI_Comm_split: the parent PEs of one
 * colour form a team, ranked by key (ties by parent rank); a negative colour joins
 * none. A colour whose members are not evenly spaced world PEs becomes an explicit
 * team (team_members).
 *
 * Each PE learns every (colour, key): it stores its own pair in the first 8 bytes of
 * its slot's scratch, which no collective of the parent uses while every member is
 * inside this split (the barriers around), and reads the others'; then it restores
 * those bytes. Every PE sorts alike, so all agree on the teams, which one split round
 * makes at once, each led by its rank-0 member. */
struct cx_member {
    int color, key, rank;
};

static int by_color_key(const void *a, const void *b)
{
    const struct cx_member *x = a, *y = b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

void shmemx_team_split(shmem_team_t parent, int color, int key, shmem_team_t *newteam)
{
    const char *fn = __func__;
    shoal_require_init(fn);
    if (!newteam)
        shoal_fatal(fn,
                    "newteam is NULL; pass the address of a shmem_team_t to receive the "
                    "new team");
    *newteam = SHMEM_TEAM_INVALID;
    if (!shoal_team_ok(fn, parent))
        return;
    int n = parent->size;
    struct cx_member *m = malloc((size_t)n * sizeof *m);
    int *ranks = malloc(2 * (size_t)n * sizeof *ranks);
    if (!m || !ranks)
        shoal_fatal(fn, "out of memory for the %d members of the parent team", n);
    int32_t mine[2] = { color < 0 ? -1 : color, key }, saved[2];
    unsigned char *box = parent->res->scratch;
    shoal_team_barrier(parent);
    memcpy(saved, box, sizeof saved);
    memcpy(box, mine, sizeof mine);
    shoal_team_barrier(parent);
    for (int i = 0; i < n; i++) {
        int32_t pair[2];
        shoal_copy_from(shoal_team_pe(parent, i), pair, box, sizeof pair);
        m[i] = (struct cx_member){ pair[0], pair[1], i };
    }
    shoal_team_barrier(parent);
    memcpy(box, saved, sizeof saved);
    qsort(m, (size_t)n, sizeof *m, by_color_key);
    /* leads: each colour's rank-0 member; members: this PE's colour in rank order. */
    int *leads = ranks, *members = ranks + n, ngroups = 0, size = 0;
    for (int i = 0; i < n; i++) {
        if (m[i].color < 0)
            continue;
        if (i == 0 || m[i].color != m[i - 1].color)
            leads[ngroups++] = m[i].rank;
        if (m[i].color == mine[0])
            members[size++] = m[i].rank;
    }
    free(m);
    struct shape sh = { 0, 1, size, members };
    int failed = ngroups &&
            split_round(fn, parent, ngroups, leads, 0, 0, mine[0] >= 0 ? &sh : NULL, NULL, 0,
                        newteam);
    SHOAL_LOG(TEAM, DEBUG, "%s: exit, %d colour(s), %s", fn, ngroups,
              failed ? "no free slot" : "teams made");
    free(ranks);
}
SHOAL_PROFILED(shmemx_team_split)

void shmem_team_destroy(shmem_team_t team)
{
    SHOAL_LOG_SCOPE(__func__);
    SHOAL_LOG(TEAM, DEBUG, "%s: team %p", __func__, (void *)team);
    shoal_require_init(__func__);
    if (!shoal_team_ok(__func__, team))
        return;
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED) {
        shoal_warn(__func__, "SHMEM_TEAM_%s is predefined and cannot be destroyed; ignored",
                   team == SHMEM_TEAM_WORLD ? "WORLD" : "SHARED");
        return;
    }
    /* No member may still be in a collective on the team when its slot is reused. */
    shoal_team_barrier(team);
    SHOAL_LOG(TEAM, DEBUG, "team in slot %d destroyed", team->slot);
    team_release(team);
}
SHOAL_PROFILED(shmem_team_destroy)

int shmem_team_sync(shmem_team_t team)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    if (!shoal_team_ok(__func__, team))
        return -1;
    shoal_team_barrier(team);
    return 0;
}
SHOAL_PROFILED(shmem_team_sync)

int shmem_team_my_pe(shmem_team_t team)
{
    return shoal_team_ok(__func__, team) ? team->my_pe : -1;
}
SHOAL_PROFILED(shmem_team_my_pe)

int shmem_team_n_pes(shmem_team_t team)
{
    return shoal_team_ok(__func__, team) ? team->size : -1;
}
SHOAL_PROFILED(shmem_team_n_pes)

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (!shoal_team_ok(__func__, team))
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}
SHOAL_PROFILED(shmem_team_get_config)

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!shoal_team_ok(__func__, src_team) || !shoal_team_ok(__func__, dest_team) ||
        src_pe < 0 || src_pe >= src_team->size)
        return -1;
    return shoal_team_index(dest_team, shoal_team_pe(src_team, src_pe));
}
SHOAL_PROFILED(shmem_team_translate_pe)

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    shoal_require_init(__func__);
    if (!shoal_team_ok(__func__, team) || pe < 0 || pe >= team->size)
        return NULL;
    struct shoal_rref r;
    return shoal_resolve(dest, shoal_team_pe(team, pe), &r) == 0 ? r.ptr : NULL;
}
SHOAL_PROFILED(shmem_team_ptr)
