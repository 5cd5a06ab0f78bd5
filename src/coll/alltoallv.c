/* Variable-size all-to-all (HPE Cray OpenSHMEMX's shmemx_alltoallv and _packed).
 *
 * Entry i of a member's offset and size arrays is about member i of the team or
 * active set. Every array is symmetric, so each call needs no scratch of its own:
 *
 *   alltoallv (push): after a barrier (every member's t_offsets, t_sizes and target
 *   are set), member me reads entry me of each member j's t_offsets (and, when
 *   SHMEM_ALLTOALLV_TSIZE_CHK checks, of its t_sizes: the most j takes from me), puts
 *   its block straight to j's target there and the length it sent into j's
 *   t_sizes[me]. Entry me of every member's arrays has me as its only reader and
 *   writer after the barrier, and the closing barrier completes every put.
 *
 *   alltoallv_packed (pull): a receiver's blocks lie one after another in PE order,
 *   so where a block lands depends on the lengths of every block before it, which
 *   only the receiver learns cheaply. After a barrier (every source and its arrays
 *   are set), member me reads entry me of each member's s_offsets and s_sizes, lays
 *   the blocks out, and gets them into its target; the closing barrier keeps every
 *   source unchanged until all members have read theirs.
 *
 * The reads and transfers are non-blocking, in pairwise order (member me + i first)
 * so that no member is everyone's first target, and one quiet waits for them all:
 * over the network each step costs one round trip, not one per member. */
#include <stdlib.h>

#include "coll/coll_common.h"
#include "coll/coll_device.h"

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

static void get_from(const char *fn, const struct coll *c, int i, void *dst, const void *sym,
                     size_t len)
{
    if (!len)
        return;
    struct shoal_rref r = member_ref(fn, c, i, sym, len);
    shoal_tp_get(SHMEM_CTX_DEFAULT, dst, &r, len, 1);
}

static void put_to(const char *fn, const struct coll *c, int i, void *sym, const void *src,
                   size_t len)
{
    if (!len)
        return;
    struct shoal_rref r = member_ref(fn, c, i, sym, len);
    shoal_tp_put(SHMEM_CTX_DEFAULT, &r, src, len, 1);
}

static void check_arrays(const char *fn, const struct coll *c, const void *a, const void *b)
{
    if (coll_dev_needed(a, b))
        shoal_fatal(fn, "the offset and size arrays must be host memory");
    coll_check_sym(fn, a, (size_t)c->n * sizeof(size_t));
    coll_check_sym(fn, b, (size_t)c->n * sizeof(size_t));
}

void coll_alltoallv(const char *fn, const struct coll *c, void *target, size_t *t_offsets,
                    size_t *t_sizes, const void *source, const size_t *s_offsets,
                    const size_t *s_sizes)
{
    int n = c->n, me = c->me;
    enum tsize_chk chk = tsize_chk();
    check_arrays(fn, c, t_offsets, t_sizes);
    if (coll_dev_needed(target, source))
        shoal_fatal(fn, "target and source must be host memory");
    struct a2av_words ws;
    size_t *off = words_get(fn, &ws, n), *lim = off + n, *len = lim + n;
    coll_barrier(c);
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        get_from(fn, c, j, &off[j], &t_offsets[me], sizeof *off);
        if (chk != CHK_NONE)
            get_from(fn, c, j, &lim[j], &t_sizes[me], sizeof *lim);
    }
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
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
        put_to(fn, c, j, (char *)target + off[j], (const char *)source + s_offsets[j],
               len[j]);
        put_to(fn, c, j, &t_sizes[me], &len[j], sizeof *len);
    }
    coll_barrier(c);
    words_put(&ws);
}

void coll_alltoallv_packed(const char *fn, const struct coll *c, void *target,
                           size_t target_len, size_t *t_size, const void *source,
                           const size_t *s_offsets, const size_t *s_sizes)
{
    int n = c->n, me = c->me;
    enum tsize_chk chk = tsize_chk();
    check_arrays(fn, c, s_offsets, s_sizes);
    if (coll_dev_needed(target, source))
        shoal_fatal(fn, "target and source must be host memory");
    struct a2av_words ws;
    size_t *so = words_get(fn, &ws, n), *sz = so + n, *at = sz + n;
    coll_barrier(c);
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        get_from(fn, c, j, &so[j], &s_offsets[me], sizeof *so);
        get_from(fn, c, j, &sz[j], &s_sizes[me], sizeof *sz);
    }
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
    for (int i = 0; i < n; i++) {
        int j = (me + i) % n;
        get_from(fn, c, j, (char *)target + at[j], (const char *)source + so[j], sz[j]);
    }
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    *t_size = pos;
    coll_barrier(c);
    words_put(&ws);
}
