/* Team reductions, shmem_TYPENAME_OP_reduce for the types of each operator column.
 * Every member ends with the same bits: each pairwise combination is computed either
 * once, or by both partners with commutative operators.
 *
 * Small: recursive doubling. With p2 the largest power of two <= n, member me + p2
 * first folds its data into member me through the fold channel; the p2 members exchange partials with me ^ 2^k in round k over xor
 * channel k; the folded members get the result put into their dest (unfold signal).
 * log2(p2) + 2 steps; larger data goes in slot-sized chunks. Node-aware teams
 * (coll_shape) reduce within each node through shared memory first, and only the
 * node leaders run recursive doubling (reduce_node).
 * Large (more than SHOAL_COLL_REDUCE_RSAG_MIN bytes): reduce-scatter + allgather
 * through the scratch inbox, in rounds of n pieces
 * of COLL_INBOX_BYTES / n bytes: each member puts piece j of its source into member
 * j's inbox, a barrier, member j reduces its piece into its dest and puts it into
 * every dest. Rounds alternate inbox halves, so one barrier per round suffices. Each
 * member sends and receives about twice the data, whatever n. Used while pieces stay
 * at least RSAG_MIN_PIECE bytes (up to a few tens of members). Measured on longs,
 * it takes half the time of chunked recursive doubling from 8 KiB at 2 PEs and a
 * third at 4 PEs. */
#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

#define RSAG_MIN_PIECE 128

static void reduce_rd(const struct coll *c, char *dest, const char *source, size_t nelems,
                      size_t esize, coll_op_fn *op)
{
    int n = c->n, me = c->me, L = coll_log2_floor(n), p2 = 1 << L, extra = n - p2;
    struct coll_chan fold = coll_fold_chan(c), x[COLL_KMAX];
    for (int k = 0; k < L; k++)
        x[k] = coll_xor_chan(c, k);
    struct coll_sig unfold = coll_unfold_sig(c);
    size_t chunk = fold.slot_bytes / esize;
    for (size_t off = 0; off < nelems; off += chunk) {
        size_t m = nelems - off < chunk ? nelems - off : chunk, bytes = m * esize;
        char *d = dest + off * esize;
        const char *s = source + off * esize;
        if (me >= p2) {
            coll_chan_send(c, &fold, me - p2, s, bytes);
            continue;
        }
        if (d != s)
            memcpy(d, s, bytes);
        if (me < extra) {
            op(d, coll_chan_recv(&fold), m);
            coll_chan_release(c, &fold, me + p2);
        }
        for (int k = 0; k < L; k++) {
            int partner = me ^ (1 << k);
            coll_chan_send(c, &x[k], partner, d, bytes);
            op(d, coll_chan_recv(&x[k]), m);
            coll_chan_release(c, &x[k], partner);
        }
        if (me < extra)
            coll_sig_send(c, &unfold, me + p2, d, d, bytes);
    }
    if (me >= p2)
        for (size_t off = 0; off < nelems; off += chunk)
            coll_sig_wait(&unfold);
}

/* Node-aware: each member sends its chunk to its node's leader through shared
 * memory (its up slot there), the leader combines its node's chunks, the leaders
 * reduce among themselves by recursive doubling over the network, and each leader
 * puts the result into its members' dests (down signal). One PE per node then uses
 * the network, and each round carries one message per node. */
static void reduce_node(const struct coll *c, const struct coll_shape *s, char *dest,
                        const char *source, size_t nelems, size_t esize, coll_op_fn *op)
{
    struct coll_scratch *sc = coll_scratch(c);
    struct coll lead = coll_leaders(c, s);
    size_t up_bytes, fold_bytes = coll_fold_chan(&lead).slot_bytes;
    coll_up_slot(c, s, 0, &up_bytes);
    size_t chunk = (up_bytes < fold_bytes ? up_bytes : fold_bytes) / esize;
    for (size_t off = 0; off < nelems; off += chunk) {
        size_t m = nelems - off < chunk ? nelems - off : chunk, bytes = m * esize, b;
        char *d = dest + off * esize;
        const char *src = source + off * esize;
        if (s->lrank) {
            coll_signal(c, s->local[0], coll_up_slot(c, s, s->lrank, &b), src, bytes,
                        &sc->w.up[s->lrank], ++sc->cnt.up_out);
            coll_wait_ge(&sc->w.down, ++sc->cnt.down_in);
            continue;
        }
        if (d != src)
            memcpy(d, src, bytes);
        for (int i = 1; i < s->nlocal; i++) {
            coll_wait_ge(&sc->w.up[i], ++sc->cnt.up_in[i]);
            op(d, coll_up_slot(c, s, i, &b), m);
        }
        reduce_rd(&lead, d, d, m, esize, op);
        for (int i = 1; i < s->nlocal; i++)
            coll_signal(c, s->local[i], d, d, bytes, &sc->w.down, ++sc->cnt.down_out[i]);
    }
}

/* The small reductions: node-aware where the team's shape is, else flat. In a
 * node-aware team the xor and fold channels are the leaders' alone. */
static void reduce_small(const struct coll *c, void *dest, const void *source, size_t nelems,
                         size_t esize, coll_op_fn *op)
{
    const struct coll_shape *s = coll_node_shape(c);
    if (s)
        reduce_node(c, s, dest, source, nelems, esize, op);
    else
        reduce_rd(c, dest, source, nelems, esize, op);
}

void coll_allreduce_small(const struct coll *c, void *dest, const void *source, size_t nelems,
                          size_t esize, coll_op_fn *op)
{
    reduce_small(c, dest, source, nelems, esize, op);
}

static void reduce_rsag(const struct coll *c, char *dest, const char *source, size_t nelems,
                        size_t esize, coll_op_fn *op, size_t piece)
{
    int n = c->n, me = c->me;
    size_t pbytes = piece * esize, round = piece * (size_t)n;
    unsigned char *data = coll_scratch(c)->data;
    /* The inbox overlays the channel slots: wait until no member can still be using
     * them for an earlier collective. */
    coll_barrier(c);
    for (size_t base = 0, r = 0; base < nelems; base += round, r++) {
        unsigned char *inbox = data + (r & 1) * COLL_INBOX_BYTES;
        for (int i = 1; i < n; i++) {
            int j = (me + i) % n;
            size_t lo = base + (size_t)j * piece;
            if (lo < nelems) {
                size_t m = nelems - lo < piece ? nelems - lo : piece;
                coll_put(c, j, inbox + (size_t)me * pbytes, source + lo * esize, m * esize);
            }
        }
        coll_barrier(c);
        size_t lo = base + (size_t)me * piece;
        if (lo >= nelems)
            continue;
        size_t m = nelems - lo < piece ? nelems - lo : piece;
        char *acc = dest + lo * esize;
        if (acc != source + lo * esize)
            memcpy(acc, source + lo * esize, m * esize);
        for (int i = 1; i < n; i++)
            op(acc, inbox + (size_t)((me + i) % n) * pbytes, m);
        for (int i = 1; i < n; i++)
            coll_put(c, (me + i) % n, acc, acc, m * esize);
    }
    coll_barrier(c);
}

int coll_team_reduce(const char *fn, shmem_team_t team, void *dest, const void *source,
                     size_t nreduce, size_t esize, coll_op_fn *op, enum shoal_red_kind kind,
                     enum shoal_red_op rop)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_SIZE("nreduce", nreduce));
    size_t bytes = nreduce * esize;
    if (!bytes)
        return 0;
    if (coll_dev_needed(dest, source)) {
        if (coll_dev_direct(dest, source, 1) &&
            !coll_dev_reduce(&c, dest, source, nreduce, esize, kind, rop))
            return 0;
        COLL_DEV_STAGED (st, fn, &c, nreduce, esize, coll_dev_one(source), coll_dev_one(dest),
                         0)
            coll_team_reduce(fn, team, st.out, st.in, st.m, esize, op, kind, rop);
        return 0;
    }
    if (c.n == 1) {
        if (dest != source)
            memcpy(dest, source, bytes);
        return 0;
    }
    coll_check_sym(fn, dest, bytes);
    if (COLL_NET(&c, reduce, dest, source, nreduce, esize, kind, rop)) {
        SHOAL_LOG(COLL, TRACE, "reduction over %d: the %s transport's", c.n, shoal_tp_name());
        return 0;
    }
    size_t piece = COLL_INBOX_BYTES / (size_t)c.n / esize;
    size_t rsag_min = shoal.cfg.coll_reduce_rsag_min ? shoal.cfg.coll_reduce_rsag_min
                                                     : 2 * coll_fold_chan(&c).slot_bytes;
    if (bytes > rsag_min && piece * esize >= RSAG_MIN_PIECE) {
        SHOAL_LOG(COLL, TRACE,
                  "reduction of %zu bytes over %d: reduce-scatter, allgather "
                  "(above %zu)",
                  bytes, c.n, rsag_min);
        reduce_rsag(&c, dest, source, nreduce, esize, op, piece);
    } else {
        SHOAL_LOG(COLL, TRACE, "reduction of %zu bytes over %d: small (up to %zu)", bytes,
                  c.n, rsag_min);
        reduce_small(&c, dest, source, nreduce, esize, op);
    }
    return 0;
}

#define COLL_REDUCE(T, N, OP)                                                                \
    COLL_DEFINE_OP(T, N, OP)                                                                 \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source,               \
                                  size_t nreduce)                                            \
    {                                                                                        \
        return coll_team_reduce(__func__, team, dest, source, nreduce, sizeof(T),            \
                                coll_##N##_##OP, COLL_RED_KIND(T), COLL_RED_##OP);           \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_##OP##_reduce)
#define COLL_REDUCE_BITWISE(T, N)                                                            \
    COLL_REDUCE(T, N, and) COLL_REDUCE(T, N, or) COLL_REDUCE(T, N, xor)
#define COLL_REDUCE_MINMAX(T, N) COLL_REDUCE(T, N, max) COLL_REDUCE(T, N, min)
#define COLL_REDUCE_ARITH(T, N) COLL_REDUCE(T, N, sum) COLL_REDUCE(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(COLL_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(COLL_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(COLL_REDUCE_ARITH)
