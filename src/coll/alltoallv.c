/* Variable-size all-to-all (HPE Cray OpenSHMEMX's shmemx_alltoallv and _packed).
 *
 * Entry i of a member's offset and size arrays is about member i of the team or
 * active set. The members talk through the alltoallv boxes (shoal_a2av_box, coll.h):
 * one entry per world PE at every PE, entry p written only by p, each word reset by
 * its owner once read. Every message of a call is a put-with-signal straight to
 * the PE that waits for it, so no member waits for all, as at a barrier:
 *
 *   alltoallv (push): each receiver tells each sender where its block goes (its
 *   target's place plus its t_offsets entry: place_base below; when SHMEM_ALLTOALLV_TSIZE_CHK checks,
 *   with its t_sizes entry, the most it takes), which also says its target is free. A sender puts each
 *   block as soon as its receiver has told, with a signal that carries the length,
 *   which the receiver stores in its t_sizes. Two one-way messages per pair.
 *
 *   alltoallv_packed: a receiver's blocks lie one after another in member order, so
 *   where a block lands depends on the lengths of every block before it. Each
 *   sender tells each receiver its size; once a receiver has every size it lays the
 *   blocks out and tells each sender where its block goes (a place in its target,
 *   as above) and how long it may be;
 *   the sender then puts it with a signal. Three one-way messages per pair.
 *
 * Messages go in pairwise order (member me + i first) so that no member is
 * everyone's first target. Why a word is never written twice before its owner has
 * read it: between two PEs every message of a call answers one the other sent
 * before in that call, or ends the call at its receiver, and each end reads its
 * words before it answers or returns; a PE's next call's first message to another
 * thus comes after that one has read everything of the last. Calls on any team or
 * active set share the boxes, which OpenSHMEM's rule that collectives that share
 * PEs come in the same order at each makes safe; no pSync word is used, so pSync
 * stays SHMEM_SYNC_VALUE. */
#include <stdlib.h>

#include "coll/coll_common.h"
#include "coll/coll_device.h"
#include "env/log.h"

enum tsize_chk { CHK_NONE, CHK_ABORT, CHK_TRUNC };

static enum tsize_chk tsize_chk(void)
{
    const char *v = shoal.cfg.alltoallv_tsize_chk;
    if (v && !strcmp(v, "abort"))
        return CHK_ABORT;
    return v && !strcmp(v, "trunc") ? CHK_TRUNC : CHK_NONE;
}

/* The call's per-member words: a few members on the stack, more on the heap. */
#define A2AV_STACK_MEMBERS 64
struct a2av_words {
    size_t *w;
    size_t stack[3 * A2AV_STACK_MEMBERS];
};

static size_t *words_get(const char *fn, struct a2av_words *s, int n)
{
    s->w = s->stack;
    if (n > A2AV_STACK_MEMBERS && !(s->w = malloc(3 * (size_t)n * sizeof(size_t))))
        shoal_fatal(fn, "out of memory for %d members' sizes; use a smaller team", n);
    return s->w;
}

static void words_put(struct a2av_words *s)
{
    if (s->w != s->stack)
        free(s->w);
}

/* Resolves member i's copy of sym (len bytes from it), or ends the job. */
static struct shoal_rref member_ref(const char *fn, const struct coll *c, int i,
                                    const void *sym, size_t len)
{
    struct shoal_rref r;
    int pe = coll_world_pe(c, i);
    if (shoal_resolve(sym, pe, &r) < 0)
        shoal_bad_addr(fn, sym, pe);
    if (!shoal_rref_fits(&r, len))
        shoal_fatal(fn,
                    "%zu bytes at %p on PE %d run past the end of its symmetric heap; check "
                    "the offsets and sizes",
                    len, sym, pe);
    return r;
}

static void check_arrays(const char *fn, const struct coll *c, const void *a, const void *b)
{
    if (coll_dev_needed(a, b))
        shoal_fatal(fn, "the offset and size arrays must be host memory");
    coll_check_sym(fn, a, (size_t)c->n * sizeof(size_t));
    coll_check_sym(fn, b, (size_t)c->n * sizeof(size_t));
}

/* A place in this PE's target as the others can use it: (segment, offset), which mean
 * the same on every PE, packed in one word (heaps are far below 2^56 bytes); a
 * member's target is thus its own, and may lie elsewhere than another's. */
#define PLACE_SEG_SHIFT 56

static uint64_t place_base(const char *fn, const void *target)
{
    struct shoal_rref r;
    if (shoal_resolve(target, shoal.my_pe, &r) < 0)
        shoal_bad_addr(fn, target, shoal.my_pe);
    return (uint64_t)r.seg << PLACE_SEG_SHIFT | r.off;
}

/* This PE's address of the place that member i's word p names; an offset so large
 * that it ran into the segment bits ends the job. */
static void *place_addr(const char *fn, const struct coll *c, int i, uint64_t p)
{
    if (SHOAL_UNLIKELY((p >> PLACE_SEG_SHIFT) >= SHOAL_NHOST_SEGS))
        shoal_fatal(fn,
                    "PE %d names a place for PE %d's block far past its symmetric memory; "
                    "check its offsets",
                    coll_world_pe(c, i), shoal.my_pe);
    return (void *)(shoal.seg[p >> PLACE_SEG_SHIFT].base +
                    (uintptr_t)(p & (((uint64_t)1 << PLACE_SEG_SHIFT) - 1)));
}

/* Tells member i v through word (of this PE's box entry there), after len bytes of
 * payload from src to its copy of dst_sym (checked against its heap). nbi: src is
 * the transport's until the call's local completion. Returns 1 when it went to the
 * network. */
static int tell(const char *fn, const struct coll *c, int i, void *dst_sym, const void *src,
                size_t len, uint64_t *word, uint64_t v, int nbi)
{
    struct shoal_rref d = { 0 };
    if (len)
        d = member_ref(fn, c, i, dst_sym, len);
    return shoal_word_put_set(coll_world_pe(c, i), &d, src, len, word, v, nbi);
}

/* What member i last told this PE. */
static struct shoal_a2av_box *box_of(const struct coll *c, int i)
{
    return &shoal_a2av_box[coll_world_pe(c, i)];
}

/* Member i's word here, once set, reset; its value less the 1 that marks it set. */
static uint64_t take(uint64_t *word)
{
    coll_wait_ge(word, 1);
    uint64_t v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    __atomic_store_n(word, 0, __ATOMIC_RELAXED);
    return v - 1;
}

/* The members in pairwise order, served each once its word here is set: a member
 * that is late holds up none behind it. */
struct scan {
    size_t *todo; /* members not served yet: [rd, left) unread this pass, [0, wr) kept */
    int left, rd, wr, found;
    size_t field; /* offset of the word in a box entry */
    struct shoal_backoff b;
};

static void scan_begin(const struct coll *c, struct scan *s, size_t *todo, size_t field)
{
    for (int i = 0; i < c->n; i++)
        todo[i] = (size_t)((c->me + i) % c->n);
    *s = (struct scan){ .todo = todo, .left = c->n, .found = 1, .field = field, .b = { 0 } };
}

static uint64_t *scan_word(const struct coll *c, const struct scan *s, int j)
{
    return (uint64_t *)((char *)box_of(c, j) + s->field);
}

/* The next member whose word is set, its value (taken) in *v; -1 once all are served. */
static int scan_next(const struct coll *c, struct scan *s, uint64_t *v)
{
    for (;;) {
        if (s->rd == s->left) {
            if (!s->wr)
                return -1;
            s->left = s->wr;
            s->rd = s->wr = 0;
            if (!s->found)
                coll_backoff(&s->b, scan_word(c, s, (int)s->todo[0]), 1);
            s->found = 0;
        }
        int j = (int)s->todo[s->rd++];
        uint64_t *w = scan_word(c, s, j);
        if (!__atomic_load_n(w, __ATOMIC_ACQUIRE)) {
            s->todo[s->wr++] = (size_t)j;
            continue;
        }
        s->found = 1;
        *v = take(w);
        return j;
    }
}

void coll_alltoallv(const char *fn, const struct coll *c, void *target, size_t *t_offsets,
                    size_t *t_sizes, const void *source, const size_t *s_offsets,
                    const size_t *s_sizes)
{
    SHOAL_LOG_SCOPE(fn);
    int n = c->n, me = c->me;
    enum tsize_chk chk = tsize_chk();
    SHOAL_LOG(COLL, TRACE, "%s over %d: offsets pushed to each sender, size check %s", fn, n,
              chk == CHK_ABORT           ? "abort"
                      : chk == CHK_TRUNC ? "trunc"
                                         : "none");
    check_arrays(fn, c, t_offsets, t_sizes);
    if (coll_dev_needed(target, source))
        shoal_fatal(fn, "target and source must be host memory");
    struct shoal_a2av_box *mine = &shoal_a2av_box[shoal.my_pe];
    uint64_t base = place_base(fn, target);
    struct a2av_words ws;
    struct scan sc;
    scan_begin(c, &sc, words_get(fn, &ws, n), offsetof(struct shoal_a2av_box, req));
    int net = 0;
    for (int i = 0; i < n; i++) {
        int j = (int)sc.todo[i];
        uint64_t lim = t_sizes[j];
        net |= tell(fn, c, j, &mine->lim, &lim, chk != CHK_NONE ? sizeof lim : 0, &mine->req,
                    base + t_offsets[j] + 1, 0);
    }
    uint64_t v;
    for (int j; (j = scan_next(c, &sc, &v)) >= 0;) {
        size_t len = s_sizes[j], most = box_of(c, j)->lim;
        if (chk != CHK_NONE && len > most) {
            if (chk == CHK_ABORT)
                shoal_fatal(fn,
                            "PE %d sends %zu bytes to PE %d, which takes at most %zu from it "
                            "(its t_sizes[%d]; SHMEM_ALLTOALLV_TSIZE_CHK=abort); send less "
                            "or raise that limit",
                            coll_world_pe(c, me), len, coll_world_pe(c, j), most, me);
            len = most;
        }
        net |= tell(fn, c, j, place_addr(fn, c, j, v), (const char *)source + s_offsets[j],
                    len, &mine->done, (uint64_t)len + 1, 1);
    }
    for (int j = 0; j < n; j++)
        t_sizes[j] = take(&box_of(c, j)->done);
    /* The user's source was the source of non-blocking puts. */
    if (net)
        shoal_tp_local_complete(SHMEM_CTX_DEFAULT);
    words_put(&ws);
}

void coll_alltoallv_packed(const char *fn, const struct coll *c, void *target,
                           size_t target_len, size_t *t_size, const void *source,
                           const size_t *s_offsets, const size_t *s_sizes)
{
    SHOAL_LOG_SCOPE(fn);
    int n = c->n, me = c->me;
    enum tsize_chk chk = tsize_chk();
    check_arrays(fn, c, s_offsets, s_sizes);
    if (coll_dev_needed(target, source))
        shoal_fatal(fn, "target and source must be host memory");
    struct shoal_a2av_box *mine = &shoal_a2av_box[shoal.my_pe];
    uint64_t base = place_base(fn, target);
    struct a2av_words ws;
    struct scan sc;
    size_t *todo = words_get(fn, &ws, n), *sz = todo + n, *at = sz + n;
    scan_begin(c, &sc, todo, offsetof(struct shoal_a2av_box, grant));
    int net = 0;
    for (int i = 0; i < n; i++) {
        int j = (int)todo[i];
        net |= tell(fn, c, j, NULL, NULL, 0, &mine->req, (uint64_t)s_sizes[j] + 1, 0);
    }
    /* Blocks in member order; target_len always bounds them, as a longer one would
     * be written past the caller's buffer. */
    size_t pos = 0;
    for (int j = 0; j < n; j++) {
        sz[j] = take(&box_of(c, j)->req);
        if (sz[j] > target_len - pos) {
            if (chk != CHK_TRUNC)
                shoal_fatal(fn,
                            "PE %d receives %zu bytes from PE %d after %zu from lower PEs, "
                            "more than target_len %zu; enlarge target, send less or set "
                            "SHMEM_ALLTOALLV_TSIZE_CHK=trunc to cut",
                            coll_world_pe(c, me), sz[j], coll_world_pe(c, j), pos,
                            target_len);
            sz[j] = target_len - pos;
        }
        at[j] = pos;
        pos += sz[j];
    }
    for (int i = 0; i < n; i++) {
        int j = (int)todo[i];
        net |= tell(fn, c, j, &mine->lim, &sz[j], sizeof *sz, &mine->grant, base + at[j] + 1,
                    0);
    }
    uint64_t v;
    for (int j; (j = scan_next(c, &sc, &v)) >= 0;)
        net |= tell(fn, c, j, place_addr(fn, c, j, v), (const char *)source + s_offsets[j],
                    box_of(c, j)->lim, &mine->done, 1, 1);
    for (int j = 0; j < n; j++)
        take(&box_of(c, j)->done);
    *t_size = pos;
    if (net)
        shoal_tp_local_complete(SHMEM_CTX_DEFAULT);
    words_put(&ws);
}
