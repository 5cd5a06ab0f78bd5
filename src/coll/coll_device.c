/* Collectives on device memory (coll_device.h): copies through the peers' device-heap
 * mappings where every member is on this node, one staging engine otherwise. */
#include "coll/coll_device.h"
#include "env/log.h"

#include "core/team.h"
#include "device/device.h"
#include "mem/device_heap.h"

_Static_assert((int)SHOAL_DEV_RED_PROD == (int)SHOAL_RED_PROD &&
                       (int)SHOAL_DEV_RED_AND == (int)SHOAL_RED_AND &&
                       (int)SHOAL_DEV_RED_COMPLEX == (int)SHOAL_RED_COMPLEX &&
                       (int)SHOAL_DEV_RED_SIGNED == (int)SHOAL_RED_SIGNED,
               "the device layer's reductions name transport.h's in its order");

static int is_dev(const void *p)
{
    return shoal_dev_sym(p) || (shoal.cfg.enable_device_awareness && shoal_dev_is_device(p));
}

int coll_dev_involved(const void *a, const void *b)
{
    return (a && is_dev(a)) || (b && is_dev(b));
}

static enum shoal_mem_kind kind(const void *p)
{
    return is_dev(p) ? SHOAL_MEM_DEVICE : SHOAL_MEM_HOST;
}

/* Started on the device's stream when the backend has one (side_copy completes them
 * all at once), else blocking. */
static void copy(void *dst, const void *src, size_t n)
{
    enum shoal_mem_kind dk = kind(dst), sk = kind(src);
    if (dk != sk)
        shoal_dev_bounce(n);
    if (shoal_mem_copy_start(dst, dk, src, sk, n) == 0)
        return;
    if (shoal_mem_copy(dst, dk, src, sk, n))
        shoal_fatal("shoal", "the %s device failed a %zu-byte copy of a collective",
                    shoal_dev->name, n);
}

struct coll_dev coll_dev_begin(const char *fn, const struct coll *c, size_t nelems,
                               size_t esize, struct coll_dev_side src,
                               struct coll_dev_side dst, int wrk)
{
    if (!shoal_dev_heap.stage)
        shoal_fatal(fn,
                    "collectives on device buffers stage through host memory reserved "
                    "with the device heap; set SHMEM_SYMMETRIC_SIZE_DEVICE");
    size_t parts = (size_t)src.blocks + (size_t)dst.blocks + (size_t)wrk;
    size_t per = SHOAL_DEV_STAGE_BYTES / parts / esize;
    if (!per)
        shoal_fatal(fn,
                    "%d members are too many for collectives on device buffers (the "
                    "staging holds %zu bytes); use host buffers",
                    c->n, SHOAL_DEV_STAGE_BYTES);
    int part = c->team ? c->team->slot : SHOAL_TEAM_SLOTS;
    char *in = shoal_dev_heap.stage + (size_t)part * SHOAL_DEV_STAGE_BYTES;
    char *out = in + (size_t)src.blocks * per * esize;
    src.elem_stride = src.elem_stride ? src.elem_stride : (ptrdiff_t)esize;
    dst.elem_stride = dst.elem_stride ? dst.elem_stride : (ptrdiff_t)esize;
    return (struct coll_dev){ .in = in,
                              .out = out,
                              .wrk = out + (size_t)dst.blocks * per * esize,
                              .c = c,
                              .src = src,
                              .dst = dst,
                              .nelems = nelems,
                              .esize = esize,
                              .per = per };
}

/* The current chunk of every block of side s, between the device and the staging. */
static void side_copy(const struct coll_dev *st, const struct coll_dev_side *s, int to_dev)
{
    size_t es = st->esize;
    char *stage = to_dev ? st->out : st->in;
    for (int b = 0; s->buf && b < s->blocks; b++) {
        size_t len = s->len ? s->len[b] : st->nelems;
        if (len <= st->at)
            continue;
        size_t k = len - st->at < st->m ? len - st->at : st->m;
        char *d = s->buf + (s->off ? (ptrdiff_t)s->off[b] : b * s->block_stride) +
                (ptrdiff_t)st->at * s->elem_stride;
        char *h = stage + (size_t)b * st->m * es;
        if (s->elem_stride == (ptrdiff_t)es)
            to_dev ? copy(d, h, k * es) : copy(h, d, k * es);
        else
            for (size_t t = 0; t < k; t++, d += s->elem_stride, h += es)
                to_dev ? copy(d, h, es) : copy(h, d, es);
    }
    shoal_dev_quiet();
}

int coll_dev_next(struct coll_dev *st)
{
    if (st->started) {
        side_copy(st, &st->dst, 1);
        coll_barrier(st->c);
        st->at += st->m;
    } else {
        st->started = 1;
        if (!st->c->team && st->nelems)
            coll_barrier(st->c);
    }
    if (st->at >= st->nelems)
        return 0;
    st->m = st->nelems - st->at < st->per ? st->nelems - st->at : st->per;
    side_copy(st, &st->src, 0);
    return 1;
}

/* ---- device to device: the peers' mappings, or the network ---------------------------- */

int coll_dev_direct(const void *dest, const void *source, int sym_src)
{
    return shoal_dev_sym(dest) && is_dev(source) && (!sym_src || shoal_dev_sym(source));
}

/* Member i's copy of the device-space object at sym through its heap's mapping, or NULL
 * when it is on another node. */
static char *mapped(const struct coll *c, int i, const void *sym)
{
    char *h = shoal_tp.dev_peer[coll_world_pe(c, i)];
    return h ? h + ((uintptr_t)sym - shoal.seg[SHOAL_SEG_DEVICE].base) : NULL;
}

static void d2d(void *dst, const void *src, size_t n)
{
    if (shoal_dev_copy_async(dst, src, n) && shoal_dev_d2d(dst, src, n))
        shoal_fatal("shoal", "the %s device failed a %zu-byte copy of a collective",
                    shoal_dev->name, n);
}

/* len bytes of src (device memory of this PE) into member i's dst_sym: a device copy
 * through the mapping, started on the device's stream, or a put over the network (the
 * device path's: pipelined host bounce buffers where the NIC cannot read the source). */
static void to(const struct coll *c, int i, void *dst_sym, const void *src, size_t len)
{
    char *p = mapped(c, i, dst_sym);
    if (p)
        d2d(p, src, len);
    else
        coll_put(c, i, dst_sym, src, len);
}

/* len bytes of member i's src_sym into dst (device memory of this PE). */
static void from(const struct coll *c, int i, void *dst, const void *src_sym, size_t len)
{
    char *p = mapped(c, i, src_sym);
    if (p)
        d2d(dst, p, len);
    else
        coll_get(c, i, dst, src_sym, len);
}

/* The copies are started on the device's stream and completed once, then the closing
 * barrier tells every member its dest is whole; the opening one that every member has
 * entered (its source is ready, its dest free). */
static void open_(const struct coll *c)
{
    coll_barrier(c);
}
static void close_(const struct coll *c)
{
    shoal_dev_quiet();
    coll_barrier(c);
}

void coll_dev_broadcast(const struct coll *c, void *dest, const void *source, size_t len,
                        int root, int root_too)
{
    SHOAL_LOG(COLL, TRACE, "device broadcast of %zu bytes from member %d: device to device",
              len, root);
    open_(c);
    if (c->me != root)
        from(c, root, dest, source, len);
    else if (root_too && dest != source)
        d2d(dest, source, len);
    close_(c);
}

void coll_dev_allput(const struct coll *c, void *dest, const void *source, size_t at,
                     size_t len)
{
    SHOAL_LOG(COLL, TRACE, "device collect: %zu bytes to each of %d members at %zu", len,
              c->n, at);
    open_(c);
    for (int k = 0; k < c->n && len; k++) /* each member starts with a different target */
        to(c, (c->me + k) % c->n, (char *)dest + at, source, len);
    close_(c);
}

void coll_dev_alltoall(const struct coll *c, void *dest, const void *source, size_t len)
{
    SHOAL_LOG(COLL, TRACE, "device alltoall: %zu bytes a member over %d members", len, c->n);
    open_(c);
    for (int k = 0; k < c->n; k++) {
        int i = (c->me + k) % c->n;
        to(c, i, (char *)dest + (size_t)c->me * len, (const char *)source + i * len, len);
    }
    close_(c);
}

#define REDUCE_INBOX ((size_t)1 << 20) /* bytes of another node's slice fetched at once */

static void reduce_step(void *acc, const void *in, size_t m, size_t esize, int kind, int op)
{
    if (shoal_dev->reduce(acc, in, m, esize, kind, op))
        shoal_fatal("shoal", "the %s device refused a reduction of %zu elements of %zu bytes",
                    shoal_dev->name, m, esize);
}

int coll_dev_reduce(const struct coll *c, void *dest, const void *source, size_t nreduce,
                    size_t esize, int kind, int op)
{
    if (!shoal_dev->reduce || shoal_dev->reduce(NULL, NULL, 0, esize, kind, op)) {
        SHOAL_LOG(COLL, TRACE,
                  "device reduction: the %s device does not reduce %zu-byte elements of "
                  "kind %d under op %d itself; staged",
                  shoal_dev->name, esize, kind, op);
        return -1;
    }
    /* Member me reduces slice me of every member's source and writes it into every
     * member's dest: no one else reads or writes that slice, so dest may be source. A
     * member on another node sends its slice into a device inbox of this PE first. */
    size_t piece = (nreduce + (size_t)c->n - 1) / (size_t)c->n, lo = (size_t)c->me * piece;
    size_t m = lo >= nreduce ? 0 : nreduce - lo < piece ? nreduce - lo : piece;
    size_t off = lo * esize, len = m * esize;
    char *acc = (char *)dest + off, *inbox = NULL;
    size_t box = len < REDUCE_INBOX ? len : REDUCE_INBOX / esize * esize;
    for (int i = 0; i < c->n && m && !inbox; i++)
        if (!mapped(c, i, dest) && !(inbox = shoal_dev_alloc(box)))
            shoal_fatal("shoal",
                        "the %s device has no room for a %zu-byte inbox of a reduction; "
                        "lower SHMEM_SYMMETRIC_SIZE_DEVICE",
                        shoal_dev->name, box);
    SHOAL_LOG(COLL, TRACE, "device reduction: slice of %zu elements of %zu%s", m, nreduce,
              inbox ? ", members on other nodes through an inbox" : "");
    open_(c);
    if (m) {
        if (dest != source)
            d2d(acc, (const char *)source + off, len);
        for (int k = 1; k < c->n; k++) {
            int i = (c->me + k) % c->n;
            const char *p = mapped(c, i, source);
            if (p) {
                reduce_step(acc, p + off, m, esize, kind, op);
                continue;
            }
            for (size_t at = 0; at < len; at += box) {
                size_t b = len - at < box ? len - at : box;
                coll_get(c, i, inbox, (const char *)source + off + at, b);
                reduce_step(acc + at, inbox, b / esize, esize, kind, op);
            }
        }
        for (int k = 1; k < c->n; k++)
            to(c, (c->me + k) % c->n, acc, acc, len);
    }
    close_(c);
    if (inbox && shoal_dev_free(inbox))
        shoal_fatal("shoal", "the %s device could not free a reduction's inbox",
                    shoal_dev->name);
    return 0;
}
