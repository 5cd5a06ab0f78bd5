/* Broadcast, team-based (the root writes its dest too) and active-set (it does not).
 *
 * Small team messages in a job on one node with at most COLL_FLAT_MAX members: the
 * root puts the message into every member's dest and signals each (word flat[root]
 * there): one step for everyone, where the tree's log2 n steps are each a hand-over
 * between PEs that may share a core (8 bytes on 2 cores: 4 PEs 8.82 -> 5.84 us, 8 PEs
 * 19.4 -> 10.4).
 * Other small messages, and every active-set call: a binomial tree rooted at the root,
 * farthest subtree first, data put straight into each child's dest: ceil(log2 n)
 * steps, but the root copies the whole message log2 n times. In a node-aware team
 * (coll_shape) the tree spans only the node leaders, and each leader copies the
 * message to its node's members through shared memory (bcast_node).
 * Large team messages (at least SHOAL_COLL_BCAST_RING_MIN bytes, more than two members): the
 * same tree scatters piece p of n to member root + p, then a ring passes the pieces
 * around, so every member copies about the message once (van de Geijn). Measured at
 * 4 PEs, the two cross between 64 and 128 KiB; at 2 MiB the ring takes 40% less. */
#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

/* The tree's signal from the parent at distance 2^k: a team signal word, or pSync. */
static void tree_wait(const struct coll *c, int k)
{
    if (c->team) {
        struct coll_sig sg = coll_tree_sig(c, k);
        coll_sig_wait(&sg);
    } else {
        coll_psync_take(&c->psync[COLL_PS_BCAST]);
    }
}

/* Puts len bytes of src to dst at member to and signals it. */
static void tree_send(const struct coll *c, int k, int to, char *dst, const char *src,
                      size_t len)
{
    if (c->team) {
        struct coll_sig sg = coll_tree_sig(c, k);
        coll_sig_send(c, &sg, to, dst, src, len);
    } else {
        coll_put(c, to, dst, src, len);
        coll_psync_give(c, to, &c->psync[COLL_PS_BCAST], 1, len);
    }
}

/* Member rel (counted from the root) receives from rel - 2^k, k = its lowest set bit,
 * and then sends to rel + 2^j for j = k-1 down to 0; the root sends for every j. */
static void bcast_tree(const struct coll *c, char *dest, const char *source, size_t len,
                       int root, int root_writes_dest)
{
    int n = c->n, rel = (c->me - root + n) % n;
    int k = rel ? __builtin_ctz((unsigned)rel) : coll_log2_ceil(n);
    const char *from = rel ? dest : source;
    if (rel)
        tree_wait(c, k);
    for (int j = k - 1; j >= 0; j--) {
        if (rel + (1 << j) >= n)
            continue;
        tree_send(c, j, (c->me + (1 << j)) % n, dest, from, len);
    }
    if (!rel && root_writes_dest && dest != source)
        memcpy(dest, source, len);
}

#define FLAT_MAX_BYTES 4096

static void bcast_flat(const struct coll *c, char *dest, const char *source, size_t len,
                       int root)
{
    struct coll_scratch *sc = coll_scratch(c);
    if (c->me != root) {
        coll_wait_ge(&sc->w.flat[root], ++sc->cnt.flat_in[root]);
        return;
    }
    uint64_t q = ++sc->cnt.flat_out;
    for (int i = 1; i < c->n; i++)
        coll_signal(c, (root + i) % c->n, dest, source, len, &sc->w.flat[root], q);
    if (dest != source)
        memcpy(dest, source, len);
}

/* Node-aware: the root hands the message to its node's leader through shared
 * memory (straight into its dest, up signal), the leaders pass it down the tree over
 * the network, and each leader puts it into its other members' dests. */
static void bcast_node(const struct coll *c, const struct coll_shape *s, char *dest,
                       const char *source, size_t len, int root)
{
    struct coll_scratch *sc = coll_scratch(c);
    if (c->me == root) {
        if (dest != source)
            memcpy(dest, source, len);
        if (s->lrank) {
            coll_signal(c, s->local[0], dest, source, len, &sc->w.up[s->lrank],
                        ++sc->cnt.up_out);
            return;
        }
    } else if (s->lrank) {
        coll_wait_ge(&sc->w.down, ++sc->cnt.down_in);
        return;
    }
    int root_lrank = 0;
    if (c->me != root && s->lead_of[root] == s->lead_rank) {
        while (s->local[root_lrank] != root)
            root_lrank++;
        coll_wait_ge(&sc->w.up[root_lrank], ++sc->cnt.up_in[root_lrank]);
    }
    struct coll lead = coll_leaders(c, s);
    bcast_tree(&lead, dest, dest, len, s->lead_of[root], 0);
    for (int i = 1; i < s->nlocal; i++)
        if (s->local[i] != root)
            coll_signal(c, s->local[i], dest, dest, len, &sc->w.down, ++sc->cnt.down_out[i]);
}

/* Scatter along the tree, then allgather around the ring. Piece p (bytes
 * [p*piece, (p+1)*piece) of the message, clipped) belongs to member root + p. */
static void bcast_scatter_ring(const struct coll *c, char *dest, const char *source,
                               size_t len, int root)
{
    int n = c->n, me = c->me, rel = (me - root + n) % n;
    size_t piece = ((len + (size_t)n - 1) / (size_t)n + 63) & ~(size_t)63;
#define AT(p) ((size_t)(p)*piece < len ? (size_t)(p)*piece : len)
    int k = rel ? __builtin_ctz((unsigned)rel) : coll_log2_ceil(n);
    const char *from = rel ? dest : source;
    struct coll_sig sg;
    if (rel) {
        sg = coll_tree_sig(c, k);
        coll_sig_wait(&sg);
    }
    for (int j = k - 1; j >= 0; j--) {
        int child = rel + (1 << j);
        if (child >= n)
            continue;
        int end = child + (1 << j) < n ? child + (1 << j) : n;
        int to = (me + (1 << j)) % n;
        sg = coll_tree_sig(c, j);
        coll_sig_send(c, &sg, to, dest + AT(child), from + AT(child), AT(end) - AT(child));
    }
    if (!rel && dest != source)
        memcpy(dest, source, AT(1));

    /* Step s passes piece rel - s + 1 on; the next member already holds its own
     * subtree's pieces from the scatter (the root holds none in dest), so those are
     * only signalled, and every byte of every dest is written exactly once. */
    int nrel = rel + 1, held_end = nrel < n ? nrel + (nrel & -nrel) : nrel;
    sg = coll_tree_sig(c, 0);
    for (int s = 1; s < n; s++) {
        int p = (rel - s + 1 + n) % n;
        size_t bytes = p < nrel || p >= held_end ? AT(p + 1) - AT(p) : 0;
        coll_sig_send(c, &sg, (me + 1) % n, dest + AT(p), dest + AT(p), bytes);
        coll_sig_wait(&sg);
    }
#undef AT
}

static void check_root(const char *fn, int root, const struct coll *c)
{
    if (SHOAL_UNLIKELY(root < 0 || root >= c->n))
        shoal_fatal(fn, "PE_root %d is out of range: the %s has PEs 0..%d", root,
                    c->team ? "team" : "active set", c->n - 1);
}

static int team_broadcast(const char *fn, shmem_team_t team, void *dest, const void *source,
                          size_t nelems, size_t esize, int root)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_INT("PE_root", root), COLL_ARG_SIZE("nelems", nelems));
    check_root(fn, root, &c);
    size_t len = nelems * esize;
    if (!len)
        return 0;
    if (coll_dev_needed(dest, source)) {
        if (coll_dev_direct(dest, source, 1)) {
            coll_dev_broadcast(&c, dest, source, len, root, 1);
            return 0;
        }
        COLL_DEV_STAGED (st, fn, &c, nelems, esize,
                         coll_dev_one(c.me == root ? source : NULL), coll_dev_one(dest), 0)
            team_broadcast(fn, team, st.out, st.in, st.m, esize, root);
        return 0;
    }
    coll_check_sym(fn, dest, len);
    if (coll_net()) {
        /* The team form writes the root's dest too. */
        if (c.me == root && dest != source)
            memcpy(dest, source, len);
        if (COLL_NET(&c, broadcast, dest, len, root)) {
            SHOAL_LOG(COLL, TRACE, "broadcast to %d: the %s transport's", c.n,
                      shoal_tp_name());
            return 0;
        }
    }
    const struct coll_shape *s;
    if (c.n > 2 && len >= shoal.cfg.coll_bcast_ring_min) {
        SHOAL_LOG(COLL, TRACE,
                  "broadcast of %zu bytes to %d: scatter and ring (at least "
                  "SHOAL_COLL_BCAST_RING_MIN)",
                  len, c.n);
        bcast_scatter_ring(&c, dest, source, len, root);
    } else if (!shoal.multi_node && c.n <= COLL_FLAT_MAX && len <= FLAT_MAX_BYTES) {
        SHOAL_LOG(COLL, TRACE, "broadcast of %zu bytes to %d: flat, one node", len, c.n);
        bcast_flat(&c, dest, source, len, root);
    } else if ((s = coll_node_shape(&c))) {
        SHOAL_LOG(COLL, TRACE, "broadcast of %zu bytes to %d: node-aware", len, c.n);
        bcast_node(&c, s, dest, source, len, root);
    } else {
        SHOAL_LOG(COLL, TRACE, "broadcast of %zu bytes to %d: binomial tree", len, c.n);
        bcast_tree(&c, dest, source, len, root, 1);
    }
    return 0;
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    return team_broadcast(__func__, team, dest, source, nelems, 1, PE_root);
}
SHOAL_PROFILED(shmem_broadcastmem)

#define COLL_BROADCAST(T, N)                                                                 \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,    \
                              int PE_root)                                                   \
    {                                                                                        \
        return team_broadcast(__func__, team, dest, source, nelems, sizeof(T), PE_root);     \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_broadcast)
SHMEM_RMA_TYPES(COLL_BROADCAST)

/* Active set: the tree, then the pSync barrier so that pSync is reusable at once. */
static void set_broadcast(const char *fn, void *dest, const void *source, size_t len,
                          int root, int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    check_root(fn, root, &c);
    if (!len)
        return;
    if (coll_dev_needed(dest, source)) {
        /* The root's dest is left alone, as in the host form. */
        if (coll_dev_direct(dest, source, 1)) {
            coll_dev_broadcast(&c, dest, source, len, root, 0);
            return;
        }
        COLL_DEV_STAGED (st, fn, &c, len, 1, coll_dev_one(c.me == root ? source : NULL),
                         coll_dev_one(c.me == root ? NULL : dest), 0)
            set_broadcast(fn, st.out, st.in, st.m, root, PE_start, logPE_stride, PE_size,
                          pSync);
        return;
    }
    coll_check_sym(fn, dest, len);
    if (COLL_NET(&c, broadcast, c.me == root ? (void *)source : dest, len, root))
        return;
    bcast_tree(&c, dest, source, len, root, 0);
    coll_barrier(&c);
}

#define COLL_SET_BROADCAST(BITS, BYTES)                                                      \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,   \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)     \
    {                                                                                        \
        set_broadcast(__func__, dest, source, nelems *BYTES, PE_root, PE_start,              \
                      logPE_stride, PE_size, pSync);                                         \
    }                                                                                        \
    SHOAL_PROFILED(shmem_broadcast##BITS)
COLL_SET_SIZES(COLL_SET_BROADCAST)
