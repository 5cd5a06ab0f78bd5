/* The collectives' internal interface: who the members of one call are, how data
 * moves between them (blocking put/get to member i) and how they wait for each other.
 * Every algorithm in src/coll/ is written over these few primitives, so that only
 * this file changes when a member is reached over a network instead of shared memory.
 *
 * Team-based calls keep their state in the team's slot:
 *   sync word 32 (this PE's own copy, never written remotely): nonzero once this PE
 *     has set up the team's scratch (zeroed words and counts, then a team barrier, in
 *     its first collective on the team). It relies on a new team's sync words
 *     starting at zero, as the barrier's words 0..31 do.
 *   sync words 33..38: the result of SHMEM_DEBUG's argument agreement
 *     (coll_debug_agree); word 39 is reserved.
 *   sync word 44 of the world team: this PE's count of threads asleep on a library
 *     word (base/backoff.h: shoal_sleepers).
 *   sync words 42 and 43: strided alltoall's ready and data words, which every
 *     member over the network adds to (alltoall.c).
 *   scratch (SHOAL_TEAM_SCRATCH, 64 KiB), laid out as struct coll_scratch:
 *     words   flags written by peers; each word has exactly one writer (named below),
 *             which stores the count of messages it has sent through it, so the
 *             value only grows and a reader that is late, or a writer that is one
 *             collective ahead, can never be mistaken for another message;
 *     counts  this PE's own count of messages sent and received per word; every
 *             algorithm waits for exactly the messages sent to it, so the counts of
 *             the two ends always agree;
 *     data    [0, half)       slots of the dis channels (scans, collect's offsets),
 *             [half, 2 half)  slots of the xor and fold channels (small reductions),
 *             [2 half, end)   at a node leader, one slot per member of its node
 *                             (node-aware small reductions: coll_up_slot),
 *             [0, 2 inbox)    the inbox of large reductions (the whole region;
 *                             half: COLL_HALF_BYTES, inbox: COLL_INBOX_BYTES), used
 *                             only between two team barriers, when no channel
 *                             message is in flight.
 * A "signal" is a flag-only message (the data went straight into the user's dest); a
 * "channel" carries up to slot_bytes of data into one of COLL_SLOTS slots at the
 * receiver, and the receiver's acknowledgement frees the slot for the sender.
 *
 * Active-set calls keep theirs in the user's pSync (SHMEM_*_SYNC_SIZE = 4 longs):
 *   [0] children arrived at the pSync barrier, [1] release from the barrier parent,
 *   [2] broadcast data arrived from the tree parent, [3] collect: offset + 1 from
 *   the previous member; [2] and [3] in a packed strided alltoalls: the counts of
 *   its ready and data adds (alltoall.c). An active set of every PE is the world team
 *   (coll_set_is_world) and keeps nothing in pSync. Each word is reset by its owner before
 *   anyone can write it again, and every call ends with the pSync barrier: a
 *   member's pSync is zero when it returns and nothing of the call writes it
 *   afterwards, so the same pSync may be used again at once. Their data moves
 *   straight between the users' dest, source and pWrk, except that strided
 *   alltoalls over the network stage it in the set box (shoal_set_box), which a
 *   member lets others write only from inside the call; no team scratch is
 *   touched, so smaller active sets may overlap each other and the teams. */
#ifndef SHOAL_COLL_COMMON_H
#define SHOAL_COLL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "base/error.h"
#include "core/progress.h"
#include "base/state.h"
#include "core/team.h"
#include "env/log.h"
#include "transport/transport.h"

/* The members of one collective call: a team, or a legacy active set. */
struct coll {
    int n, me;               /* member count and this PE's index */
    int start, stride;       /* world PE of member i: start + i * stride, */
    const int *pes;          /* or pes[i] (an explicit team: shoal_member_pe) */
    struct shoal_team *team; /* team-based: channels and scratch live in its slot */
    long *psync;             /* active-set: the user's pSync */
    const int *idx;          /* the node leaders' sub-collective (coll_leaders): its
                              * member i is member idx[i] of the team; NULL otherwise */
};

/* ---- The transport's own collectives ------------------------------------------------ */

/* The transport's collectives (shoal_transport_coll in transport/transport.h), or NULL: the mpi
 * transport runs whole calls as MPI collectives. COLL_NET(c, op, args...) is true
 * when it did. */
static inline const struct shoal_transport_coll *coll_net(void)
{
    return shoal_tp_coll();
}
#define COLL_NET(c, op, ...)                                                                 \
    (coll_net() &&                                                                           \
     coll_net()->op(&(struct shoal_members){ (c)->start, (c)->stride, (c)->n, (c)->pes },    \
                    __VA_ARGS__) == 0)

/* The reduction kind of a C type, for COLL_NET's reduce. */
#define COLL_RED_KIND(T)                                                                     \
    _Generic((T)0, float                                                                     \
             : SHOAL_RED_REAL, double                                                        \
             : SHOAL_RED_REAL, long double                                                   \
             : SHOAL_RED_REAL, float _Complex                                                \
             : SHOAL_RED_COMPLEX, double _Complex                                            \
             : SHOAL_RED_COMPLEX, char                                                       \
             : ((char)-1 < 0 ? SHOAL_RED_SIGNED : SHOAL_RED_UNSIGNED), signed char           \
             : SHOAL_RED_SIGNED, short                                                       \
             : SHOAL_RED_SIGNED, int                                                         \
             : SHOAL_RED_SIGNED, long                                                        \
             : SHOAL_RED_SIGNED, long long                                                   \
             : SHOAL_RED_SIGNED, default                                                     \
             : SHOAL_RED_UNSIGNED)
#define COLL_RED_and SHOAL_RED_AND
#define COLL_RED_or SHOAL_RED_OR
#define COLL_RED_xor SHOAL_RED_XOR
#define COLL_RED_max SHOAL_RED_MAX
#define COLL_RED_min SHOAL_RED_MIN
#define COLL_RED_sum SHOAL_RED_SUM
#define COLL_RED_prod SHOAL_RED_PROD

/* ---- Moving data ---------------------------------------------------------------- */

static inline int coll_world_pe(const struct coll *c, int i)
{
    return shoal_member_pe(c->start, c->stride, c->pes, c->idx ? c->idx[i] : i);
}

/* Blocking put of len bytes into member i's copy of dst_sym. */
static inline void coll_put(const struct coll *c, int i, void *dst_sym, const void *src,
                            size_t len)
{
    if (len)
        shoal_copy_to(coll_world_pe(c, i), dst_sym, src, len);
}

/* Blocking get of len bytes from member i's copy of src_sym. */
static inline void coll_get(const struct coll *c, int i, void *dst, const void *src_sym,
                            size_t len)
{
    if (len)
        shoal_copy_from(coll_world_pe(c, i), dst, src_sym, len);
}

/* Bumps member i's copy of the counter word_sym, whose only writer is this PE, after
 * putting len bytes of src to dst_sym there: one put-with-signal (transport.h). */
static inline void coll_signal(const struct coll *c, int i, void *dst_sym, const void *src,
                               size_t len, uint64_t *word_sym, uint64_t count)
{
    shoal_word_signal(coll_world_pe(c, i), dst_sym, src, len, word_sym, count);
}

/* The slow polls of the collectives' waits (coll/stall.c): backs off, and now and
 * then checks that no PE has left the job's collectives (finalized) before the call
 * waited for. word and v: what the wait waits for (v = 0 for pSync words). */
void coll_wait_slow(struct shoal_backoff *b, const void *word, uint64_t v);
/* The network transport's barrier of the members m (coll_net() set), its wait
 * watched as coll_wait_slow watches (coll/stall.c).
 * epoch: the world team's barrier number when it is the world team's (epochs start
 * at 1), else 0. Returns 0, or -1 where the transport declined. */
int coll_net_barrier(const struct shoal_members *m, uint64_t epoch);

/* One poll of a collective's wait: spin, or the slow path above. */
static inline void coll_backoff(struct shoal_backoff *b, const void *word, uint64_t v)
{
    shoal_progress();
    if (SHOAL_LIKELY(b->polls < shoal_wait.spin_polls))
        shoal_backoff_spin(b, shoal_wait.spin_polls, shoal_net_nap());
    else
        coll_wait_slow(b, word, v);
}

/* Waits until this PE's own word reaches v; local: only members on this node
 * write it (struct shoal_backoff). */
static inline void coll_wait_ge_from(const uint64_t *word, uint64_t v, int local)
{
    struct shoal_backoff b = { .word = word, .until = v, .local = local };
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) < v)
        coll_backoff(&b, word, v);
}

static inline void coll_wait_ge(const uint64_t *word, uint64_t v)
{
    coll_wait_ge_from(word, v, 0);
}

/* ---- Team state: signals and channels ------------------------------------------- */

#define COLL_KMAX 20       /* rounds of log2 algorithms: teams of up to 2^20 members */
#define COLL_LOCAL_MAX 64  /* node-aware algorithms: members per node at most */
#define COLL_SLOTS 2       /* slots per channel: a sender may run one message ahead */
#define COLL_FLAT_MAX 8    /* members of a flat broadcast at most (broadcast.c) */
#define COLL_READY_WORD 32 /* see above */
#define COLL_A2A_READY_WORD 42
#define COLL_A2A_DATA_WORD 43
_Static_assert(COLL_A2A_READY_WORD > SHOAL_TEAM_SPLIT_WORD + 1 &&
                       COLL_A2A_DATA_WORD < SHOAL_TEAM_SYNC_WORDS,
               "alltoall's words overlap others");

struct coll_words {
    uint64_t tree[COLL_KMAX];    /* signal from member me - 2^k (mod n) */
    uint64_t dis[COLL_KMAX];     /* channel data from member me - 2^k */
    uint64_t dis_ack[COLL_KMAX]; /* acknowledgement from member me + 2^k */
    uint64_t xor [COLL_KMAX];    /* channel data from member me ^ 2^k (no acks: coll.c) */
    uint64_t fold;               /* channel data from member me + p2 (p2: see reduce.c) */
    uint64_t fold_ack;           /* acknowledgement from member me - p2 */
    uint64_t unfold;             /* signal from member me - p2 */
    /* Node-aware collectives (coll_shape), between the members of one node: */
    uint64_t up[COLL_LOCAL_MAX];   /* at the node leader: channel data from local member i */
    uint64_t down;                 /* at a member: signal from its node leader */
    uint64_t lead_tree[COLL_KMAX]; /* at a leader: signal from leader rank me - 2^k */
    uint64_t flat[COLL_FLAT_MAX];  /* signal from member i as a flat broadcast's root */
};

struct coll_counts {
    uint64_t tree_out[COLL_KMAX], tree_in[COLL_KMAX];
    uint64_t dis_out[COLL_KMAX], dis_in[COLL_KMAX];
    uint64_t xor_out[COLL_KMAX], xor_in[COLL_KMAX];
    uint64_t fold_out, fold_in, unfold_out, unfold_in;
    uint64_t up_out, up_in[COLL_LOCAL_MAX], down_out[COLL_LOCAL_MAX], down_in;
    uint64_t lead_tree_out[COLL_KMAX], lead_tree_in[COLL_KMAX];
    uint64_t flat_out, flat_in[COLL_FLAT_MAX];
    uint64_t a2a_rounds; /* strided alltoall's rounds through the inbox (alltoall.c) */
};

struct coll_scratch {
    struct coll_words w;
    struct coll_counts cnt;
    _Alignas(64) unsigned char data[];
};

#define COLL_DATA_BYTES (SHOAL_TEAM_SCRATCH - offsetof(struct coll_scratch, data))
/* Halves of the data region for the large reductions' inbox (reduce.c): the bigger,
 * the fewer rounds, each of which costs a barrier. */
#define COLL_INBOX_BYTES ((COLL_DATA_BYTES / 2) & ~(size_t)63)
/* Halves of the channels' slot region: a fixed size, as the channels' slot size sets
 * the chunk of recursive doubling and scans, measured at this size (7360 bytes: 18 KiB
 * less the words and counts, which the node-aware ones grew by 2 KiB). */
#define COLL_HALF_BYTES                                                                      \
    (((18 * 1024 - offsetof(struct coll_scratch, data)) / 2) & ~(size_t)63)
_Static_assert(COLL_HALF_BYTES >= 4096 && COLL_INBOX_BYTES >= COLL_HALF_BYTES,
               "team scratch too small for the collectives");

static inline struct coll_scratch *coll_scratch(const struct coll *c)
{
    return (struct coll_scratch *)c->team->res->scratch;
}

/* A flag-only message stream from one fixed sender to one fixed receiver. */
struct coll_sig {
    uint64_t *flag;     /* symmetric: the receiver's flag word */
    uint64_t *out, *in; /* this PE's counts of signals sent and received */
};

/* A data stream from one fixed sender to one fixed receiver, through slots. */
struct coll_chan {
    uint64_t *flag;       /* symmetric: the receiver's flag word */
    uint64_t *ack;        /* symmetric: the sender's acknowledgement word; NULL for
                              * the xor channels, whose two ends alternate messages */
    uint64_t *out, *in;   /* this PE's counts of messages sent and received */
    unsigned char *slots; /* symmetric: the receiver's COLL_SLOTS slots */
    size_t slot_bytes;
};

/* Smallest k with 2^k >= n, and largest k with 2^k <= n. */
static inline int coll_log2_ceil(int n)
{
    int k = 0;
    while ((1L << k) < n)
        k++;
    return k;
}

static inline int coll_log2_floor(int n)
{
    int k = 0;
    while ((2L << k) <= n)
        k++;
    return k;
}

/* Signal to member (me + 2^k) mod n / from member (me - 2^k) mod n. The leaders'
 * sub-collective has words of its own: a leader's tree words have other writers. */
static inline struct coll_sig coll_tree_sig(const struct coll *c, int k)
{
    struct coll_scratch *s = coll_scratch(c);
    if (c->idx)
        return (struct coll_sig){ &s->w.lead_tree[k], &s->cnt.lead_tree_out[k],
                                  &s->cnt.lead_tree_in[k] };
    return (struct coll_sig){ &s->w.tree[k], &s->cnt.tree_out[k], &s->cnt.tree_in[k] };
}

/* Puts len bytes of src to dst_sym at member to, then signals it (len may be 0). */
static inline void coll_sig_send(const struct coll *c, const struct coll_sig *sg, int to,
                                 void *dst_sym, const void *src, size_t len)
{
    coll_signal(c, to, dst_sym, src, len, sg->flag, ++*sg->out);
}

static inline void coll_sig_wait(const struct coll_sig *sg)
{
    coll_wait_ge(sg->flag, ++*sg->in);
}

/* The dis channel k (to me + 2^k, from me - 2^k) and the xor channel k (both ways
 * with me ^ 2^k); the fold channel (from me + p2 to me - p2) is xor channel index
 * log2(p2) for slot placement. */
struct coll_chan coll_dis_chan(const struct coll *c, int k);
struct coll_chan coll_xor_chan(const struct coll *c, int k);
struct coll_chan coll_fold_chan(const struct coll *c);
static inline struct coll_sig coll_unfold_sig(const struct coll *c)
{
    struct coll_scratch *s = coll_scratch(c);
    return (struct coll_sig){ &s->w.unfold, &s->cnt.unfold_out, &s->cnt.unfold_in };
}

/* Sends len <= slot_bytes bytes to member to, once the slot is free. */
void coll_chan_send(const struct coll *c, const struct coll_chan *ch, int to, const void *src,
                    size_t len);
/* Waits for the next message; returns this PE's slot holding it. */
const void *coll_chan_recv(const struct coll_chan *ch);
/* Frees the slot of the message last received, for its sender from. */
void coll_chan_release(const struct coll *c, const struct coll_chan *ch, int from);

/* ---- Node-aware collectives -------------------------------------------------------- */

/* How a team's members sit on nodes, as this PE sees it; computed once per team (the
 * shape of a team never changes) and cached in its slot. Node-aware (the same on
 * every member) when SHOAL_COLL_NODE_AWARE is on, the team spans several nodes
 * and some node holds more than one of its members (at most COLL_LOCAL_MAX). */
struct coll_shape {
    uint64_t serial; /* the team it describes (shoal_team.serial) */
    int start, stride, size;
    int node_aware;
    int nlocal, lrank;    /* members on this node, and this PE's rank among them */
    int nlead, lead_rank; /* node leaders (each node's lowest member), this PE's rank
                           * among them or -1 */
    int *local;           /* local[i]: member index of the i-th member here */
    int *lead;            /* lead[j]: member index of the j-th leader */
    int *lead_of;         /* lead_of[i]: leader rank of member i's node */
};
const struct coll_shape *coll_shape(const struct shoal_team *t);

/* For a node-aware team-based call: the shape, else NULL. */
static inline const struct coll_shape *coll_node_shape(const struct coll *c)
{
    if (SHOAL_LIKELY(!shoal.multi_node) || !c->team || c->idx || c->n < 3)
        return NULL;
    const struct coll_shape *s = coll_shape(c->team);
    return s->node_aware ? s : NULL;
}

/* The leaders' sub-collective of c (a leader's call): member j is leader j. */
static inline struct coll coll_leaders(const struct coll *c, const struct coll_shape *s)
{
    struct coll l = *c;
    l.n = s->nlead;
    l.me = s->lead_rank;
    l.idx = s->lead;
    return l;
}

/* A node leader's slot for its local member lrank (coll_shape), of *bytes bytes;
 * single: a member sends again only after its leader's answer to the last. */
unsigned char *coll_up_slot(const struct coll *c, const struct coll_shape *s, int lrank,
                            size_t *bytes);

/* ---- Active-set state in pSync --------------------------------------------------- */

enum { COLL_PS_ARRIVED, COLL_PS_RELEASE, COLL_PS_BCAST, COLL_PS_OFFSET };
/* Strided alltoalls over the network (alltoall.c): the ready and data counts. */
enum { COLL_PS_A2A_READY = COLL_PS_BCAST, COLL_PS_A2A_DATA = COLL_PS_OFFSET };

/* Waits for this PE's pSync word to become nonzero, resets it and returns the value. */
static inline long coll_psync_take(long *word)
{
    struct shoal_backoff b = { .word = (const uint64_t *)word };
    long v;
    while (!(v = __atomic_load_n(word, __ATOMIC_ACQUIRE)))
        coll_backoff(&b, word, 0);
    __atomic_store_n(word, 0, __ATOMIC_RELAXED);
    return v;
}

/* Sets member i's copy of a pSync word to v (nonzero) after the payload put before it. */
static inline void coll_psync_give(const struct coll *c, int i, long *word_sym, long v,
                                   size_t payload)
{
    shoal_word_store((uint64_t *)word_sym, (uint64_t)v, coll_world_pe(c, i), payload);
}

/* ---- Entering a collective ----------------------------------------------------- */

/* Team-based call: nonzero for SHMEM_TEAM_INVALID or when this PE is not a member;
 * otherwise fills c (setting up the team's scratch on the first call). */
int coll_team_begin(const char *fn, shmem_team_t team, struct coll *c);
/* Active-set call: ends the job with a clear message for a malformed set, a PE that
 * is not a member or a pSync that is not symmetric. */
void coll_set_begin(const char *fn, int PE_start, int logPE_stride, int PE_size, long *pSync,
                    struct coll *c);
/* Whether an active set holds every PE. Such a set has the world team's members, so
 * its collectives run as the world team's (faster algorithms, no pSync or pWrk use),
 * and the rule for one team applies: no two of them at once from different threads. */
int coll_set_is_world(const struct coll *c);
/* Ends the job unless addr (len bytes, len > 0) is symmetric. */
void coll_check_sym(const char *fn, const void *addr, size_t len);

/* SHMEM_DEBUG: arguments of a team-based collective that every member must pass
 * alike. coll_debug_agree computes each one's minimum and maximum over the team (with
 * a PE holding each) by a small reduction, and ends the job naming both values and
 * PEs where they differ. COLL_AGREE costs one predictable branch without SHMEM_DEBUG. */
struct coll_arg {
    const char *name;
    uint64_t v;
    int is_signed;
};
void coll_debug_agree(const char *fn, const struct coll *c, const struct coll_arg *args,
                      int nargs);
#define COLL_AGREE(fn, c, ...)                                                               \
    do {                                                                                     \
        if (SHOAL_UNLIKELY(shoal.cfg.debug) && (c)->team && (c)->n > 1) {                    \
            const struct coll_arg agree_[] = { __VA_ARGS__ };                                \
            coll_debug_agree(fn, c, agree_, (int)(sizeof agree_ / sizeof *agree_));          \
        }                                                                                    \
    } while (0)
#define COLL_ARG_SIZE(name, v)                                                               \
    {                                                                                        \
        name, (uint64_t)(v), 0                                                               \
    }
#define COLL_ARG_INT(name, v)                                                                \
    {                                                                                        \
        name, (uint64_t)(int64_t)(v), 1                                                      \
    }

/* Synchronizes the members (team barrier, or the pSync barrier); every put issued
 * before it is visible everywhere after it. */
void coll_barrier(const struct coll *c);

/* The active-set families' element sizes: X(bits, bytes). */
#define COLL_SET_SIZES(X) X(32, 4) X(64, 8)

/* ---- Shared algorithms ---------------------------------------------------------- */

/* acc[i] = acc[i] OP in[i] for i < n; every OP here is commutative. */
typedef void coll_op_fn(void *acc, const void *in, size_t n);
/* The team reduction, for active sets of every PE (reduce.c). */
int coll_team_reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nreduce, size_t esize, coll_op_fn *op, enum shoal_red_kind kind,
                     enum shoal_red_op rop);

/* Recursive-doubling allreduce of a few elements (team-based); dest is symmetric. */
void coll_allreduce_small(const struct coll *c, void *dest, const void *source, size_t nelems,
                          size_t esize, coll_op_fn *op);
/* Direct puts of each member's block to every member, then a barrier. */
void coll_alltoall_direct(const struct coll *c, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esize);
/* Variable-size alltoall: block j of source (s_sizes[j] bytes at s_offsets[j]) to
 * member j's target at its t_offsets[me], its length to j's t_sizes[me]; and the
 * packed form, every member's block to this PE's target one after another in member
 * order, their total to *t_size (alltoallv.c). Each synchronizes the members as a
 * barrier would, without completing other operations. */
void coll_alltoallv(const char *fn, const struct coll *c, void *target, size_t *t_offsets,
                    size_t *t_sizes, const void *source, const size_t *s_offsets,
                    const size_t *s_sizes);
void coll_alltoallv_packed(const char *fn, const struct coll *c, void *target,
                           size_t target_len, size_t *t_size, const void *source,
                           const size_t *s_offsets, const size_t *s_sizes);
/* My block (len bytes) to byte offset off of every member's dest, then a barrier. */
void coll_allput(const struct coll *c, void *dest, const void *src, size_t off, size_t len);
/* Inclusive or exclusive prefix over the members (team-based, Hillis-Steele). */
void coll_scan(const struct coll *c, void *dest, const void *source, size_t nelems,
               size_t esize, coll_op_fn *op, int exclusive);

/* Element-wise operators, instantiated per type by the files that need them. */
#define COLL_EXPR_and(a, b) ((a) & (b))
#define COLL_EXPR_or(a, b) ((a) | (b))
#define COLL_EXPR_xor(a, b) ((a) ^ (b))
#define COLL_EXPR_max(a, b) ((a) > (b) ? (a) : (b))
#define COLL_EXPR_min(a, b) ((a) < (b) ? (a) : (b))
#define COLL_EXPR_sum(a, b) ((a) + (b))
#define COLL_EXPR_prod(a, b) ((a) * (b))

#define COLL_DEFINE_OP(T, N, OP)                                                             \
    static void coll_##N##_##OP(void *acc_, const void *in_, size_t n)                       \
    {                                                                                        \
        T *acc = acc_;                                                                       \
        const T *in = in_;                                                                   \
        for (size_t i = 0; i < n; i++)                                                       \
            acc[i] = COLL_EXPR_##OP(acc[i], in[i]);                                          \
    }

#endif
