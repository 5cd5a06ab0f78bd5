/* Variable-size all-to-all (HPE Cray OpenSHMEMX's shmemx_alltoallv and _packed).
 *
 * Entry i of a member's offset and size arrays is about member i of the team or
 * active set. Every array is symmetric, so a call needs no buffer of its own, only
 * two words that every member adds 1 to at every member: "ready" (my arrays, target
 * and source are set) and "done" (what I did to yours is complete). One all-to-all
 * round of adds each, where a barrier would take log2(n) rounds:
 *
 *   alltoallv (push): once every member is ready, member me reads entry me of each
 *   member j's t_offsets (and, when SHMEM_ALLTOALLV_TSIZE_CHK checks, of its
 *   t_sizes: the most j takes from me), puts its block straight to j's target there
 *   and the length it sent into j's t_sizes[me], then, after a fence, tells j done.
 *   Entry me of every member's arrays has me as its only reader and writer.
 *
 *   alltoallv_packed (pull): a receiver's blocks lie one after another in member
 *   order, so where a block lands depends on the lengths of every block before it,
 *   which only the receiver learns cheaply. Member me reads entry me of each
 *   member's s_offsets and s_sizes, lays the blocks out and gets them into its
 *   target, then tells each member done: its source is free once all have.
 *
 * The reads and transfers are non-blocking, in pairwise order (member me + i first)
 * so that no member is everyone's first target, and one quiet waits for them all:
 * over the network each step costs one round trip, not one per member.
 *   The words: a team's sync words COLL_A2AV_READY_WORD and COLL_A2AV_DONE_WORD,
 * which only grow (each call adds n to each: a call waits for n times the calls so
 * far, cnt.a2av_calls); an active set's pSync words COLL_PS_A2A_READY and
 * COLL_PS_A2A_DATA, which count to n and are reset by their owner as soon as they
 * reach it. No add of the next call can come before: a member is ready again only
 * after it returned, which needs this PE's done, sent after its ready wait; and its
 * done needs this PE's next ready. So pSync is SHMEM_SYNC_VALUE again on return. */
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

/* Returns 1 when the get went to the network (a quiet completes it), else 0: it was
 * a copy, complete on return. */
static int get_from(const char *fn, const struct coll *c, int i, void *dst, const void *sym,
                    size_t len)
{
    if (!len)
        return 0;
    struct shoal_rref r = member_ref(fn, c, i, sym, len);
    shoal_tp_get(SHMEM_CTX_DEFAULT, dst, &r, len, 1);
    return r.ptr == NULL || SHOAL_UNLIKELY(shoal.wrapped);
}

/* Returns as get_from does: 1 when the put went to the network. */
static int put_to(const char *fn, const struct coll *c, int i, void *sym, const void *src,
                  size_t len)
{
    if (!len)
        return 0;
    struct shoal_rref r = member_ref(fn, c, i, sym, len);
    shoal_tp_put(SHMEM_CTX_DEFAULT, &r, src, len, 1);
    return r.ptr == NULL || SHOAL_UNLIKELY(shoal.wrapped);
}

static void check_arrays(const char *fn, const struct coll *c, const void *a, const void *b)
{
    if (coll_dev_needed(a, b))
        shoal_fatal(fn, "the offset and size arrays must be host memory");
    coll_check_sym(fn, a, (size_t)c->n * sizeof(size_t));
    coll_check_sym(fn, b, (size_t)c->n * sizeof(size_t));
}

/* The call's words and the value each must reach. */
struct a2av_sync {
    uint64_t *ready, *done;
    uint64_t goal;
};

static struct a2av_sync sync_begin(const struct coll *c)
{
    if (c->team) {
        uint64_t calls = ++coll_scratch(c)->cnt.a2av_calls;
        return (struct a2av_sync){ &c->team->res->sync[COLL_A2AV_READY_WORD],
                                   &c->team->res->sync[COLL_A2AV_DONE_WORD],
                                   calls * (uint64_t)c->n };
    }
    return (struct a2av_sync){ (uint64_t *)&c->psync[COLL_PS_A2A_READY],
                               (uint64_t *)&c->psync[COLL_PS_A2A_DATA], (uint64_t)c->n };
}

/* Adds 1 to every member's word, then waits for this PE's to reach the goal. */
static void sync_round(const struct coll *c, const struct a2av_sync *s, uint64_t *word)
{
    for (int i = 0; i < c->n; i++)
        shoal_word_add(word, 1, coll_world_pe(c, (c->me + i) % c->n));
    coll_wait_ge(word, s->goal);
    if (!c->team)
        __atomic_store_n(word, 0, __ATOMIC_RELAXED);
}

void coll_alltoallv(const char *fn, const struct coll *c, void *target, size_t *t_offsets,
                    size_t *t_sizes, const void *source, const size_t *s_offsets,
                    const size_t *s_sizes)
{
    SHOAL_LOG_SCOPE(fn);
    int n = c->n, me = c->me;
    enum tsize_chk chk = tsize_chk();
    SHOAL_LOG(COLL, TRACE, "%s over %d: offsets read from each target, size check %s", fn, n,
              chk == CHK_ABORT           ? "abort"
                      : chk == CHK_TRUNC ? "trunc"
                                         : "none");
    check_arrays(fn, c, t_offsets, t_sizes);
    if (coll_dev_needed(target, source))
        shoal_fatal(fn, "target and source must be host memory");
    struct a2av_words ws;
    size_t *off = words_get(fn, &ws, n), *lim = off + n, *len = lim + n;
    struct a2av_sync sy = sync_begin(c);
    sync_round(c, &sy, sy.ready);
    int net = 0;
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        net |= get_from(fn, c, j, &off[j], &t_offsets[me], sizeof *off);
        if (chk != CHK_NONE)
            net |= get_from(fn, c, j, &lim[j], &t_sizes[me], sizeof *lim);
    }
    if (net)
        shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    net = 0;
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        len[j] = s_sizes[j];
        if (chk != CHK_NONE && len[j] > lim[j]) {
            if (chk == CHK_ABORT)
                shoal_fatal(fn,
                            "PE %d sends %zu bytes to PE %d, which takes at most %zu from it "
                            "(its t_sizes[%d]; SHMEM_ALLTOALLV_TSIZE_CHK=abort); send less "
                            "or raise that limit",
                            coll_world_pe(c, me), len[j], coll_world_pe(c, j), lim[j], me);
            len[j] = lim[j];
        }
        net |= put_to(fn, c, j, (char *)target + off[j], (const char *)source + s_offsets[j],
                      len[j]);
        net |= put_to(fn, c, j, &t_sizes[me], &len[j], sizeof *len);
    }
    /* Every block and length lands before the done add that announces it: on this
     * node the add's release order sees to it, over the network a fence. */
    if (net)
        shoal_tp_fence(SHMEM_CTX_DEFAULT);
    sync_round(c, &sy, sy.done);
    /* The user's source and len[] were the sources of non-blocking puts. */
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
    struct a2av_words ws;
    size_t *so = words_get(fn, &ws, n), *sz = so + n, *at = sz + n;
    struct a2av_sync sy = sync_begin(c);
    sync_round(c, &sy, sy.ready);
    int net = 0;
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        net |= get_from(fn, c, j, &so[j], &s_offsets[me], sizeof *so);
        net |= get_from(fn, c, j, &sz[j], &s_sizes[me], sizeof *sz);
    }
    if (net)
        shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    /* Blocks in member order; target_len always bounds them, as a longer one would
     * be written past the caller's buffer. */
    size_t pos = 0;
    for (int j = 0; j < n; j++) {
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
    net = 0;
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        net |= get_from(fn, c, j, (char *)target + at[j], (const char *)source + so[j],
                        sz[j]);
    }
    if (net)
        shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    *t_size = pos;
    sync_round(c, &sy, sy.done);
    words_put(&ws);
}
