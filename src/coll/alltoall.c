/* alltoall / alltoalls: block j of member i's source lands in block i of member j's
 * dest. Pairwise order (member me + i at step i) spreads the writers over the
 * targets, and one barrier (team or pSync) completes every block.
 *
 * A block for a member on this node, or any contiguous block, is put once, straight
 * into its final place: a copy at memory speed, or one network message. A strided
 * block for a member over the network would be a message per element (a put per
 * element: about 5 us each on tcp;ofi_rxm), so it is packed instead
 * (alltoall_packed): through a box (struct a2a_box), in rounds of up to `piece`
 * elements of every block, one put per member and round. A team's box is its
 * scratch data; an active set's is this PE's set box (shoal_set_box, one for every
 * active set), with the user's pSync words 2 and 3 as its words.
 *   The sender packs its block for member j into its own outbox slot j (the upper
 *   half of the box) and puts it into member j's inbox slot me (the lower half), or
 *   straight into j's dest when dst is 1 (nothing to unpack there). For an inbox, it
 *   waits first for j's word that the inbox is free (the ready adds), and after the
 *   puts (one fence for all) adds 1 to j's data word; j unpacks once every network
 *   member's add came.
 *   Both words (team sync words COLL_A2A_READY_WORD, COLL_A2A_DATA_WORD, or pSync
 *   words COLL_PS_A2A_READY, COLL_PS_A2A_DATA) have a writer per network member:
 *   each round every such member adds 1 to each, so a PE with k network members
 *   waits for its words to reach k times its rounds so far (cnt.a2a_rounds for a
 *   team; for an active set, the rounds of this call: its words start at zero, and
 *   the PE sets them back to zero before the closing barrier, when every add of the
 *   call has come and none of the next can). Adds commute, the values only grow,
 *   and no member can add for round r + 1 before this PE has sent its round r
 *   (readiness for r + 1 follows receiving r from every member), so reaching the
 *   count means this round.
 *   While a PE is in the call nothing else writes its outbox: a team's, because it
 *   has received every message sent to its scratch in the collectives before and no
 *   member starts the next one before the closing barrier; the set box's, because
 *   others write only inboxes. A member's inbox, though, may still be read by that
 *   member: for a team, for the collective before (the inbox overlays the channel
 *   slots); for an active set, for a call on another active set that this PE is not
 *   in (all share the box). Hence the ready add, which a member sends only from
 *   inside this call. Two threads of one PE must therefore not run strided
 *   active-set alltoalls at the same time. */
#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

/* m elements of esize bytes from sstep bytes apart at s to dstep bytes apart at d;
 * the usual element sizes get a fixed-size copy, which compiles to moves. */
static void copy_elems(char *d, ptrdiff_t dstep, const char *s, ptrdiff_t sstep, size_t m,
                       size_t esize)
{
#define COPY_ELEMS(E)                                                                        \
    for (size_t t = 0; t < m; t++, d += dstep, s += sstep)                                   \
        memcpy(d, s, E);                                                                     \
    return;
    switch (esize) {
    case 1: COPY_ELEMS(1)
    case 2: COPY_ELEMS(2)
    case 4: COPY_ELEMS(4)
    case 8: COPY_ELEMS(8)
    case 16: COPY_ELEMS(16)
    default: COPY_ELEMS(esize)
    }
#undef COPY_ELEMS
}

/* Block of nelems elements from s (sst apart) into member i's dest at d (dst apart):
 * one copy into the mapping on this node, else a put per element. */
static void put_block(const struct coll *c, int i, char *d, const char *s, ptrdiff_t dst,
                      ptrdiff_t sst, size_t nelems, size_t esize)
{
    int pe = coll_world_pe(c, i);
    struct shoal_rref r;
    ptrdiff_t de = dst * (ptrdiff_t)esize, se = sst * (ptrdiff_t)esize;
    if (shoal_resolve(d, pe, &r) == 0 && r.ptr) {
        copy_elems(r.ptr, de, s, se, nelems, esize);
        return;
    }
    if (dst == 1 && sst == 1) {
        coll_put(c, i, d, s, nelems * esize);
        return;
    }
    for (size_t t = 0; t < nelems; t++)
        shoal_copy_to(pe, d + (ptrdiff_t)t * de, s + (ptrdiff_t)t * se, esize);
}

/* Where alltoall_packed stages blocks and counts rounds: a team's scratch data and
 * sync words, or for an active set this PE's set box and the user's pSync words,
 * which the call leaves zero again (coll_alltoall_direct). */
struct a2a_box {
    unsigned char *inbox;  /* symmetric: half bytes, member j's slot j */
    unsigned char *outbox; /* this PE's own: half bytes, member j's block in slot j */
    size_t half;
    uint64_t *ready, *data; /* symmetric: every network member adds to them */
    uint64_t *rounds;       /* this PE's rounds so far on those words */
};

static struct a2a_box box_of(const struct coll *c, uint64_t *set_rounds)
{
    if (c->team) {
        struct coll_scratch *sc = coll_scratch(c);
        return (struct a2a_box){ sc->data,
                                 sc->data + COLL_DATA_BYTES / 2,
                                 COLL_DATA_BYTES / 2,
                                 &c->team->res->sync[COLL_A2A_READY_WORD],
                                 &c->team->res->sync[COLL_A2A_DATA_WORD],
                                 &sc->cnt.a2a_rounds };
    }
    return (struct a2a_box){ shoal_set_box,
                             shoal_set_box + SHOAL_SET_BOX_BYTES / 2,
                             SHOAL_SET_BOX_BYTES / 2,
                             (uint64_t *)&c->psync[COLL_PS_A2A_READY],
                             (uint64_t *)&c->psync[COLL_PS_A2A_DATA],
                             set_rounds };
}

/* Member i's box is reached over the network (not mapped here). */
static int net_member(const struct coll *c, const struct a2a_box *b, int i)
{
    struct shoal_rref r;
    shoal_resolve(b->inbox, coll_world_pe(c, i), &r);
    return r.ptr == NULL;
}

/* Elements per block and round of alltoall_packed for this call, or 0 when it does
 * not apply: contiguous blocks, blocks too small to pay (SHOAL_COLL_ALLTOALLS_PACK_MIN:
 * below it a message per element costs less than the packed path's dependent trips,
 * ready, fence and data add, each of which waits for a peer to be scheduled;
 * docs/performance.md), or no member over the network. Every member decides alike:
 * it depends only on arguments they agree on. */
static size_t pack_piece(const struct coll *c, const struct a2a_box *b, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t esize)
{
    long min = shoal.cfg.coll_alltoalls_pack_min;
    if ((dst == 1 && sst == 1) || (min > 0 && nelems < (size_t)min) || !shoal.multi_node)
        return 0;
    size_t piece = b->half / (size_t)c->n / esize;
    if (!piece)
        return 0;
    for (int i = 0; i < c->n; i++)
        if (net_member(c, b, i))
            return piece;
    return 0;
}

static void alltoall_packed(const struct coll *c, const struct a2a_box *b, char *dest,
                            const char *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                            size_t esize, size_t piece)
{
    int n = c->n, me = c->me, k = 0;
    size_t pbytes = piece * esize;
    ptrdiff_t de = dst * (ptrdiff_t)esize, se = sst * (ptrdiff_t)esize;
    ptrdiff_t dblock = (ptrdiff_t)nelems * de, sblock = (ptrdiff_t)nelems * se;
    for (int i = 0; i < n; i++)
        k += net_member(c, b, i);
    for (size_t base = 0; base < nelems; base += piece) {
        size_t m = nelems - base < piece ? nelems - base : piece;
        uint64_t rounds = dst != 1 ? ++*b->rounds : 0;
        if (dst != 1)
            for (int i = 1; i < n; i++)
                if (net_member(c, b, (me + i) % n))
                    shoal_word_add(b->ready, 1, coll_world_pe(c, (me + i) % n));
        /* The outbox of the round before is free once its puts completed locally. */
        if (base)
            shoal_tp_local_complete(SHMEM_CTX_DEFAULT);
        if (dst != 1)
            coll_wait_ge(b->ready, rounds * (uint64_t)k);
        for (int i = 1; i < n; i++) {
            int j = (me + i) % n;
            if (!net_member(c, b, j))
                continue;
            unsigned char *out = b->outbox + (size_t)j * pbytes;
            copy_elems((char *)out, (ptrdiff_t)esize,
                       source + j * sblock + (ptrdiff_t)base * se, se, m, esize);
            void *to = dst == 1 ? (void *)(dest + me * dblock + (ptrdiff_t)base * de)
                                : (void *)(b->inbox + (size_t)me * pbytes);
            struct shoal_rref r;
            shoal_resolve(to, coll_world_pe(c, j), &r);
            shoal_tp_put(SHMEM_CTX_DEFAULT, &r, out, m * esize, 1);
        }
        if (dst != 1) {
            /* Every payload lands before any data add. */
            shoal_tp_fence(SHMEM_CTX_DEFAULT);
            for (int i = 1; i < n; i++)
                if (net_member(c, b, (me + i) % n))
                    shoal_word_add(b->data, 1, coll_world_pe(c, (me + i) % n));
        }
        /* Members on this node meanwhile: straight into their dests. */
        if (!base)
            for (int i = 0; i < n; i++) {
                int j = (me + i) % n;
                if (!net_member(c, b, j))
                    put_block(c, j, dest + me * dblock, source + j * sblock, dst, sst, nelems,
                              esize);
            }
        if (dst == 1)
            continue;
        coll_wait_ge(b->data, rounds * (uint64_t)k);
        for (int i = 1; i < n; i++) {
            int j = (me + i) % n;
            if (net_member(c, b, j))
                copy_elems(dest + j * dblock + (ptrdiff_t)base * de, de,
                           (const char *)b->inbox + (size_t)j * pbytes, (ptrdiff_t)esize, m,
                           esize);
        }
    }
}

void coll_alltoall_direct(const struct coll *c, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esize)
{
    int n = c->n, me = c->me;
    uint64_t set_rounds = 0;
    struct a2a_box box = box_of(c, &set_rounds);
    size_t piece = pack_piece(c, &box, dst, sst, nelems, esize);
    SHOAL_LOG(COLL, TRACE, "alltoall of %zu elements over %d: %s", nelems, n,
              piece ? "packed through the box" : "a message per block");
    if (piece) {
        alltoall_packed(c, &box, dest, source, dst, sst, nelems, esize, piece);
        /* Every member's adds for this call have come (the waits reached them all),
         * and none adds for the next before this PE joins the barrier: the pSync is
         * SHMEM_SYNC_VALUE again when the call returns. */
        if (!c->team) {
            __atomic_store_n(box.ready, 0, __ATOMIC_RELAXED);
            __atomic_store_n(box.data, 0, __ATOMIC_RELAXED);
        }
    } else {
        char *d = (char *)dest + (ptrdiff_t)me * (ptrdiff_t)nelems * dst * (ptrdiff_t)esize;
        for (int i = 0; i < n; i++) {
            int j = (me + i) % n;
            const char *s = (const char *)source +
                    (ptrdiff_t)j * (ptrdiff_t)nelems * sst * (ptrdiff_t)esize;
            put_block(c, j, d, s, dst, sst, nelems, esize);
        }
    }
    coll_barrier(c);
}

/* Where the blocks of an alltoall's buffer lie: n blocks of nelems elements, stride
 * elements apart, block j at j * nelems * stride elements. */
static struct coll_dev_side dev_side(const void *buf, int n, size_t nelems, ptrdiff_t stride,
                                     size_t esize)
{
    ptrdiff_t e = stride * (ptrdiff_t)esize;
    return (struct coll_dev_side){ (char *)buf, n, (ptrdiff_t)nelems * e, e, NULL, NULL };
}

static int team_alltoall(const char *fn, shmem_team_t team, void *dest, const void *source,
                         ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esize)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    if (coll_team_begin(fn, team, &c))
        return -1;
    COLL_AGREE(fn, &c, COLL_ARG_SIZE("nelems", nelems), COLL_ARG_INT("dst", dst),
               COLL_ARG_INT("sst", sst));
    if (!nelems)
        return 0;
    if (coll_dev_needed(dest, source)) {
        if (dst == 1 && sst == 1 && coll_dev_direct(dest, source, 0)) {
            coll_dev_alltoall(&c, dest, source, nelems * esize);
            return 0;
        }
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, dev_side(source, c.n, nelems, sst, esize),
                         dev_side(dest, c.n, nelems, dst, esize), 0)
            team_alltoall(fn, team, st.out, st.in, 1, 1, st.m, esize);
        return 0;
    }
    coll_check_sym(fn, dest, esize);
    /* PE j's block of nelems elements lands j * nelems elements in, dst apart. */
    shoal_check_strided(fn, dest, dst, nelems * (size_t)c.n, esize, esize);
    if (COLL_NET(&c, alltoall, dest, source, dst, sst, nelems, esize))
        return 0;
    coll_alltoall_direct(&c, dest, source, dst, sst, nelems, esize);
    return 0;
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return team_alltoall(__func__, team, dest, source, 1, 1, nelems, 1);
}
SHOAL_PROFILED(shmem_alltoallmem)

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    return team_alltoall(__func__, team, dest, source, dst, sst, nelems, 1);
}
SHOAL_PROFILED(shmem_alltoallsmem)

#define COLL_ALLTOALL(T, N)                                                                  \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)     \
    {                                                                                        \
        return team_alltoall(__func__, team, dest, source, 1, 1, nelems, sizeof(T));         \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_alltoall)                                                     \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,    \
                              ptrdiff_t sst, size_t nelems)                                  \
    {                                                                                        \
        return team_alltoall(__func__, team, dest, source, dst, sst, nelems, sizeof(T));     \
    }                                                                                        \
    SHOAL_PROFILED(shmem_##N##_alltoalls)
SHMEM_RMA_TYPES(COLL_ALLTOALL)

static void set_alltoall(const char *fn, void *dest, const void *source, ptrdiff_t dst,
                         ptrdiff_t sst, size_t nelems, size_t esize, int PE_start,
                         int logPE_stride, int PE_size, long *pSync)
{
    SHOAL_LOG_SCOPE(fn);
    struct coll c;
    coll_set_begin(fn, PE_start, logPE_stride, PE_size, pSync, &c);
    if (!nelems)
        return;
    if (coll_dev_needed(dest, source)) {
        if (dst == 1 && sst == 1 && coll_dev_direct(dest, source, 0)) {
            coll_dev_alltoall(&c, dest, source, nelems * esize);
            return;
        }
        COLL_DEV_STAGED (st, fn, &c, nelems, esize, dev_side(source, c.n, nelems, sst, esize),
                         dev_side(dest, c.n, nelems, dst, esize), 0)
            set_alltoall(fn, st.out, st.in, 1, 1, st.m, esize, PE_start, logPE_stride,
                         PE_size, pSync);
        return;
    }
    coll_check_sym(fn, dest, esize);
    shoal_check_strided(fn, dest, dst, nelems * (size_t)c.n, esize, esize);
    if (COLL_NET(&c, alltoall, dest, source, dst, sst, nelems, esize))
        return;
    coll_alltoall_direct(&c, dest, source, dst, sst, nelems, esize);
}

#define COLL_SET_ALLTOALL(BITS, BYTES)                                                       \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,   \
                              int logPE_stride, int PE_size, long *pSync)                    \
    {                                                                                        \
        set_alltoall(__func__, dest, source, 1, 1, nelems, BYTES, PE_start, logPE_stride,    \
                     PE_size, pSync);                                                        \
    }                                                                                        \
    SHOAL_PROFILED(shmem_alltoall##BITS)                                                     \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,   \
                               long *pSync)                                                  \
    {                                                                                        \
        set_alltoall(__func__, dest, source, dst, sst, nelems, BYTES, PE_start,              \
                     logPE_stride, PE_size, pSync);                                          \
    }                                                                                        \
    SHOAL_PROFILED(shmem_alltoalls##BITS)
COLL_SET_SIZES(COLL_SET_ALLTOALL)
