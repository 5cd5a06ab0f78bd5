/* Entering a collective (team or active set), the channels of coll_common.h, and the
 * barrier over a user's pSync. */
#include <stdio.h>
#include <stdlib.h>

#include "coll/coll_common.h"
#include "env/log.h"

unsigned char *shoal_set_box;
struct shoal_a2av_box *shoal_a2av_box;

int coll_team_begin(const char *fn, shmem_team_t team, struct coll *c)
{
    shoal_require_init(fn);
    if (!shoal_team_ok(fn, team) || team->my_pe < 0)
        return -1;
    if (SHOAL_UNLIKELY(team->size > (1 << COLL_KMAX)))
        shoal_fatal(fn, "teams of more than %d PEs are not supported by the collectives",
                    1 << COLL_KMAX);
    *c = (struct coll){ .n = team->size,
                        .me = team->my_pe,
                        .start = team->start,
                        .stride = team->stride,
                        .pes = team->pes,
                        .team = team };
    uint64_t *ready = &team->res->sync[COLL_READY_WORD];
    if (SHOAL_UNLIKELY(!*ready)) {
        memset(team->res->scratch, 0, offsetof(struct coll_scratch, data));
        *ready = 1;
        /* Peers write our flags only after this barrier, so the reset loses nothing. */
        shoal_team_barrier(team);
    }
    return 0;
}

void coll_set_begin(const char *fn, int PE_start, int logPE_stride, int PE_size, long *pSync,
                    struct coll *c)
{
    shoal_require_init(fn);
    if (PE_start < 0 || logPE_stride < 0 || logPE_stride > 30 || PE_size < 1 ||
        PE_start + (long long)(PE_size - 1) * (1LL << logPE_stride) >= shoal.n_pes)
        shoal_fatal(fn,
                    "the active set (PE_start %d, logPE_stride %d, PE_size %d) is not a "
                    "set of PEs within 0..%d",
                    PE_start, logPE_stride, PE_size, shoal.n_pes - 1);
    int stride = 1 << logPE_stride, off = shoal.my_pe - PE_start;
    if (off < 0 || off % stride || off / stride >= PE_size)
        shoal_fatal(fn,
                    "PE %d is not in the active set (PE_start %d, logPE_stride %d, PE_size "
                    "%d); only its members may call",
                    shoal.my_pe, PE_start, logPE_stride, PE_size);
    uint64_t seg_off;
    if (!pSync || shoal_seg_of(pSync, &seg_off) < 0)
        shoal_fatal(fn,
                    "pSync %p is not symmetric; it must be a global or shmem_malloc'd array "
                    "of SHMEM_*_SYNC_SIZE longs",
                    (void *)pSync);
    *c = (struct coll){
        .n = PE_size, .me = off / stride, .start = PE_start, .stride = stride, .psync = pSync
    };
}

int coll_set_is_world(const struct coll *c)
{
    return c->start == 0 && c->n == shoal.n_pes;
}

void coll_check_sym(const char *fn, const void *addr, size_t len)
{
    uint64_t off;
    if (SHOAL_UNLIKELY(shoal_seg_of(addr, &off) < 0))
        shoal_bad_addr(fn, addr, shoal.my_pe);
    /* Always: a collective's extent past the segment would reach the next mapping. */
    shoal_check_range(fn, addr, len);
}

/* ---- Team shapes (node-aware collectives) ---------------------------------------- */

static struct coll_shape shapes[SHOAL_TEAM_SLOTS];

static int member_node(const struct shoal_team *t, int i)
{
    return shoal.node[shoal_team_pe(t, i)];
}

static void shape_compute(const struct shoal_team *t, struct coll_shape *s)
{
    int n = t->size, me = t->my_pe, mine = member_node(t, me), maxnode = 0;
    for (int i = 0; i < n; i++)
        if (member_node(t, i) > maxnode)
            maxnode = member_node(t, i);
    int *count = calloc((size_t)maxnode + 1, sizeof *count);
    int *lead_at = malloc(((size_t)maxnode + 1) * sizeof *lead_at);
    free(s->local);
    s->local = malloc(sizeof(int) * (size_t)n * 3);
    if (!count || !lead_at || !s->local)
        shoal_fatal("shmem_team", "out of memory for a team's node layout");
    *s = (struct coll_shape){ .serial = t->serial,
                              .start = t->start,
                              .stride = t->stride,
                              .size = n,
                              .lead_rank = -1,
                              .local = s->local,
                              .lead = s->local + n,
                              .lead_of = s->local + 2 * n };
    int biggest = 0;
    for (int i = 0; i < n; i++) {
        int nd = member_node(t, i);
        if (!count[nd]++) {
            if (i == me)
                s->lead_rank = s->nlead;
            lead_at[nd] = s->nlead;
            s->lead[s->nlead++] = i;
        }
        s->lead_of[i] = lead_at[nd];
        if (count[nd] > biggest)
            biggest = count[nd];
        if (nd == mine) {
            if (i == me)
                s->lrank = s->nlocal;
            s->local[s->nlocal++] = i;
        }
    }
    free(count);
    free(lead_at);
    s->node_aware = shoal.cfg.coll_node_aware && s->nlead > 1 && biggest > 1 &&
            biggest <= COLL_LOCAL_MAX;
    SHOAL_LOG(COLL, DEBUG, "team of %d in slot %d: %d node(s), up to %d PEs on one; %s",
              t->size, t->slot, s->nlead, biggest,
              s->node_aware ? "node-aware collectives" : "flat collectives");
}

const struct coll_shape *coll_shape(const struct shoal_team *t)
{
    struct coll_shape *s = &shapes[t->slot];
    if (SHOAL_UNLIKELY(s->serial != t->serial || s->start != t->start ||
                       s->stride != t->stride || s->size != t->size || !s->local))
        shape_compute(t, s);
    return s;
}

/* ---- Channels -------------------------------------------------------------------- */

/* Channel index of nchan sharing the half of the data region at base. */
static struct coll_chan chan(const struct coll *c, uint64_t *flag, uint64_t *ack,
                             uint64_t *out, uint64_t *in, size_t base, int index, int nchan)
{
    size_t slot = (COLL_HALF_BYTES / ((size_t)nchan * COLL_SLOTS)) & ~(size_t)63;
    return (struct coll_chan){
        flag, ack, out, in, coll_scratch(c)->data + base + (size_t)index * COLL_SLOTS * slot,
        slot
    };
}

struct coll_chan coll_dis_chan(const struct coll *c, int k)
{
    struct coll_scratch *s = coll_scratch(c);
    return chan(c, &s->w.dis[k], &s->w.dis_ack[k], &s->cnt.dis_out[k], &s->cnt.dis_in[k], 0,
                k, coll_log2_ceil(c->n));
}

/* No acknowledgements: the partners alternate, each sending its message q and then
 * waiting for the other's. A partner that sent message q - 1 had consumed our q - 2
 * before, so once ours q - 1 is received, slot q % COLL_SLOTS is free again. */
struct coll_chan coll_xor_chan(const struct coll *c, int k)
{
    struct coll_scratch *s = coll_scratch(c);
    return chan(c, &s->w.xor [k], NULL, &s -> cnt.xor_out[k], &s->cnt.xor_in[k],
                COLL_HALF_BYTES, k, coll_log2_floor(c->n) + 1);
}

struct coll_chan coll_fold_chan(const struct coll *c)
{
    struct coll_scratch *s = coll_scratch(c);
    int l = coll_log2_floor(c->n);
    return chan(c, &s->w.fold, &s->w.fold_ack, &s->cnt.fold_out, &s->cnt.fold_in,
                COLL_HALF_BYTES, l, l + 1);
}

/* The up slots share what lies beyond the two halves of channel slots. */
_Static_assert((COLL_DATA_BYTES - 2 * COLL_HALF_BYTES) / COLL_LOCAL_MAX >= 128,
               "team scratch too small for a node's up slots");
unsigned char *coll_up_slot(const struct coll *c, const struct coll_shape *s, int lrank,
                            size_t *bytes)
{
    size_t region = COLL_DATA_BYTES - 2 * COLL_HALF_BYTES;
    *bytes = (region / (size_t)s->nlocal) & ~(size_t)63;
    return coll_scratch(c)->data + 2 * COLL_HALF_BYTES + (size_t)lrank * *bytes;
}

void coll_chan_send(const struct coll *c, const struct coll_chan *ch, int to, const void *src,
                    size_t len)
{
    uint64_t q = ++*ch->out;
    if (ch->ack && q > COLL_SLOTS)
        coll_wait_ge(ch->ack, q - COLL_SLOTS);
    coll_signal(c, to, ch->slots + (q % COLL_SLOTS) * ch->slot_bytes, src, len, ch->flag, q);
}

const void *coll_chan_recv(const struct coll_chan *ch)
{
    uint64_t q = ++*ch->in;
    coll_wait_ge(ch->flag, q);
    return ch->slots + (q % COLL_SLOTS) * ch->slot_bytes;
}

void coll_chan_release(const struct coll *c, const struct coll_chan *ch, int from)
{
    if (ch->ack)
        coll_signal(c, from, NULL, NULL, 0, ch->ack, *ch->in);
}

/* ---- Barriers -------------------------------------------------------------------- */

static void psync_wait(const long *word, long v)
{
    struct shoal_backoff b = { .word = (const uint64_t *)word, .until = (uint64_t)v };
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < v)
        coll_backoff(&b, word, 0);
}

/* Binomial tree rooted at member 0: children add 1 to their parent's pSync[0] on
 * arrival, and the parent releases each child through the child's pSync[1]. A parent
 * clears its [0] before releasing anyone and a child clears its [1] before arriving
 * again, so every word is zero whenever its next writer may write it: a back-to-back
 * call on the same pSync cannot be confused with this one. */
static void psync_barrier(const struct coll *c)
{
    long *ps = c->psync;
    int me = c->me, n = c->n;
    long span = me ? (me & -me) : (1L << 31);
    int nchild = 0;
    for (long b = 1; b < span && me + b < n; b <<= 1)
        nchild++;
    /* The collectives' puts before it (default context) are complete when it ends. */
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    if (coll_net() &&
        coll_net_barrier(&(struct shoal_members){ c->start, c->stride, c->n, NULL }, 0) == 0)
        return;
    psync_wait(&ps[COLL_PS_ARRIVED], nchild);
    __atomic_store_n(&ps[COLL_PS_ARRIVED], 0, __ATOMIC_RELAXED);
    if (me) {
        shoal_word_add((uint64_t *)&ps[COLL_PS_ARRIVED], 1, coll_world_pe(c, me - (int)span));
        coll_psync_take(&ps[COLL_PS_RELEASE]);
    }
    for (long b = 1; b < span && me + b < n; b <<= 1)
        coll_psync_give(c, me + (int)b, &ps[COLL_PS_RELEASE], 1, 0);
}

void coll_barrier(const struct coll *c)
{
    if (c->team)
        shoal_team_barrier(c->team);
    else
        psync_barrier(c);
}

/* ---- SHMEM_DEBUG: arguments every member passes alike ------------------------------ */

/* One argument's range over the team, with the lowest world PE holding each end.
 * Combining is commutative and associative, so every member gets the same bits. */
struct agree {
    uint64_t min, max; /* keys: the value, sign bit flipped for signed arguments */
    uint32_t min_pe, max_pe;
};

#define AGREE_WORD 33
#define AGREE_PER_ROUND 2 /* sync words 33..38 */
_Static_assert(AGREE_WORD + AGREE_PER_ROUND * sizeof(struct agree) / 8 <=
                       SHOAL_TEAM_SPLIT_WORD,
               "the agreement's words overlap the split words");

static void agree_op(void *acc_, const void *in_, size_t n)
{
    struct agree *acc = acc_;
    const struct agree *in = in_;
    for (size_t i = 0; i < n; i++) {
        if (in[i].min < acc[i].min ||
            (in[i].min == acc[i].min && in[i].min_pe < acc[i].min_pe)) {
            acc[i].min = in[i].min;
            acc[i].min_pe = in[i].min_pe;
        }
        if (in[i].max > acc[i].max ||
            (in[i].max == acc[i].max && in[i].max_pe < acc[i].max_pe)) {
            acc[i].max = in[i].max;
            acc[i].max_pe = in[i].max_pe;
        }
    }
}

static void agree_value(char *buf, size_t len, const struct coll_arg *a, uint64_t key)
{
    if (a->is_signed)
        snprintf(buf, len, "%lld", (long long)(int64_t)(key ^ (1ull << 63)));
    else
        snprintf(buf, len, "%llu", (unsigned long long)key);
}

/* The routine's name as a number (FNV-1a), so that members can compare calls. */
static uint64_t routine_key(const char *fn)
{
    uint64_t h = 14695981039346656037ull;
    for (; *fn; fn++)
        h = (h ^ (unsigned char)*fn) * 1099511628211ull;
    return h;
}

/* The members' calls, compared first: members in different collective routines
 * (one in shmem_malloc, another in shmem_barrier_all) would otherwise each wait in
 * its own for ever. */
static void agree_routine(const char *fn, const struct coll *c, const struct agree *res)
{
    uint64_t me = routine_key(fn);
    if (res->min == res->max)
        return;
    int other = (int)(res->min == me ? res->max_pe : res->min_pe);
    int world = c->team == SHMEM_TEAM_WORLD;
    shoal_fatal(fn,
                "PE %d made another collective call than this one at this point, over the "
                "%s; every %s must make the same collective calls (barriers, shmem_malloc/"
                "shmem_free, collectives; a shmem_malloc of 0 bytes or shmem_free(NULL) "
                "too) in the same order",
                other, world ? "world team" : "team", world ? "PE" : "member");
}

void coll_debug_agree(const char *fn, const struct coll *c, const struct coll_arg *args,
                      int nargs)
{
    struct agree *res = (struct agree *)&c->team->res->sync[AGREE_WORD];
    /* Entry 0 of the first round is the routine itself. */
    const struct coll_arg routine = { "the routine", routine_key(fn), 0 };
    for (int base = -1; base < nargs; base += AGREE_PER_ROUND) {
        int k = nargs - base < AGREE_PER_ROUND ? nargs - base : AGREE_PER_ROUND;
        struct agree mine[AGREE_PER_ROUND];
        for (int i = 0; i < k; i++) {
            const struct coll_arg *a = base + i < 0 ? &routine : &args[base + i];
            uint64_t key = a->is_signed ? a->v ^ (1ull << 63) : a->v;
            mine[i] =
                    (struct agree){ key, key, (uint32_t)shoal.my_pe, (uint32_t)shoal.my_pe };
        }
        coll_allreduce_small(c, res, mine, (size_t)k, sizeof *mine, agree_op);
        if (base < 0)
            agree_routine(fn, c, &res[0]);
        for (int i = base < 0; i < k; i++) {
            if (res[i].min == res[i].max)
                continue;
            const struct coll_arg *a = &args[base + i];
            char lo[32], hi[32];
            agree_value(lo, sizeof lo, a, res[i].min);
            agree_value(hi, sizeof hi, a, res[i].max);
            int plo = (int)res[i].min_pe, phi = (int)res[i].max_pe;
            int world = c->team == SHMEM_TEAM_WORLD;
            shoal_fatal(fn,
                        "%s differs across the %s (%s on PE %d, %s on PE %d); every %s "
                        "must pass the same value",
                        a->name, world ? "PEs" : "team", plo < phi ? lo : hi,
                        plo < phi ? plo : phi, plo < phi ? hi : lo, plo < phi ? phi : plo,
                        world ? "PE" : "member");
        }
    }
}
