/* Deterministic offset allocator for the symmetric heap (see alloc.h).
 *
 * The heap [0, heap_size) is tiled by segments, each a live block or a maximal
 * free range (adjacent free ranges are always merged). All segments sit in one
 * AVL tree ordered by offset, and every node also holds the longest free range
 * in its subtree. So:
 *   - get is address-ordered first fit: one descent that skips subtrees with
 *     no range long enough, then a split into [pad][block][tail], where pad and
 *     tail stay free ranges (alignment padding is not lost);
 *   - put, resize and find need the neighbours or the segment at or below an
 *     offset, which the same tree gives in O(log n).
 *
 * Why address-ordered first fit rather than best fit: the two fragment about
 * equally little on real workloads (Johnstone & Wilson, ISMM '98), but first
 * fit packs a SHMEM program's long-lived arrays at the bottom of the heap and
 * keeps the top as one large range, and it needs no second, size-ordered tree.
 * A large alignment can make the descent look at ranges that are long enough
 * but badly placed; that costs time, never correctness or determinism. */
#include "alloc.h"

#include <stdlib.h>

#define GRAN ((size_t)16)

struct seg {
    size_t off;
    size_t len;      /* multiple of GRAN */
    size_t req;      /* size the caller asked for; 0 marks a free range */
    size_t max_free; /* longest free range in this subtree, 0 if none */
    struct seg *left, *right;
    int height;
};

struct shoal_alloc {
    struct seg *root;
    /* Recycled nodes, linked through right, so that an operation can obtain
     * every node it needs before it changes anything: OOM leaves state intact. */
    struct seg *spare;
    size_t nspare;
    size_t heap_size, bytes_used, live_blocks, free_ranges;
};

/* ---- AVL tree keyed by off, augmented with max_free ---- */

static int height(const struct seg *n)
{
    return n ? n->height : 0;
}
static size_t max_free(const struct seg *n)
{
    return n ? n->max_free : 0;
}

static void fix(struct seg *n)
{
    int hl = height(n->left), hr = height(n->right);
    n->height = 1 + (hl > hr ? hl : hr);
    size_t m = n->req ? 0 : n->len;
    if (max_free(n->left) > m)
        m = max_free(n->left);
    if (max_free(n->right) > m)
        m = max_free(n->right);
    n->max_free = m;
}

static struct seg *rot_right(struct seg *n)
{
    struct seg *l = n->left;
    n->left = l->right;
    l->right = n;
    fix(n);
    fix(l);
    return l;
}

static struct seg *rot_left(struct seg *n)
{
    struct seg *r = n->right;
    n->right = r->left;
    r->left = n;
    fix(n);
    fix(r);
    return r;
}

static struct seg *balance(struct seg *n)
{
    fix(n);
    int bf = height(n->left) - height(n->right);
    if (bf > 1) {
        if (height(n->left->left) < height(n->left->right))
            n->left = rot_left(n->left);
        return rot_right(n);
    }
    if (bf < -1) {
        if (height(n->right->right) < height(n->right->left))
            n->right = rot_right(n->right);
        return rot_left(n);
    }
    return n;
}

static struct seg *insert(struct seg *n, struct seg *x)
{
    if (!n) {
        x->left = x->right = NULL;
        fix(x);
        return x;
    }
    if (x->off < n->off)
        n->left = insert(n->left, x);
    else
        n->right = insert(n->right, x);
    return balance(n);
}

static struct seg *unlink_min(struct seg *n, struct seg **min)
{
    if (!n->left) {
        *min = n;
        return n->right;
    }
    n->left = unlink_min(n->left, min);
    return balance(n);
}

/* Removes the node keyed off (which must be present) by relinking, not by
 * copying payloads, so pointers to other nodes stay valid. */
static struct seg *unlink_key(struct seg *n, size_t off)
{
    if (off < n->off) {
        n->left = unlink_key(n->left, off);
    } else if (off > n->off) {
        n->right = unlink_key(n->right, off);
    } else {
        if (!n->left)
            return n->right;
        if (!n->right)
            return n->left;
        struct seg *m;
        struct seg *r = unlink_min(n->right, &m);
        m->left = n->left;
        m->right = r;
        n = m;
    }
    return balance(n);
}

/* Recomputes max_free on the path to the node keyed off, after its len, req
 * or (order-preserving) off changed in place. */
static void refresh(struct seg *n, size_t off)
{
    if (off < n->off)
        refresh(n->left, off);
    else if (off > n->off)
        refresh(n->right, off);
    fix(n);
}

static struct seg *lookup(struct seg *n, size_t off)
{
    while (n && n->off != off)
        n = off < n->off ? n->left : n->right;
    return n;
}

/* The segment with the largest offset <= off. */
static struct seg *floor_seg(struct seg *n, size_t off)
{
    struct seg *best = NULL;
    while (n) {
        if (n->off <= off) {
            best = n;
            n = n->right;
        } else {
            n = n->left;
        }
    }
    return best;
}

/* Bytes from off up to the next multiple of align; no overflow for any align. */
static size_t pad_for(size_t off, size_t align)
{
    return (align - (off & (align - 1))) & (align - 1);
}

static struct seg *first_fit(struct seg *n, size_t need, size_t align)
{
    if (!n || n->max_free < need)
        return NULL;
    struct seg *s = first_fit(n->left, need, align);
    if (s)
        return s;
    if (!n->req) {
        size_t pad = pad_for(n->off, align);
        if (pad <= n->len && need <= n->len - pad)
            return n;
    }
    return first_fit(n->right, need, align);
}

/* ---- node recycling ---- */

static int reserve(struct shoal_alloc *a, size_t n)
{
    while (a->nspare < n) {
        struct seg *s = malloc(sizeof *s);
        if (!s)
            return -1;
        s->right = a->spare;
        a->spare = s;
        a->nspare++;
    }
    return 0;
}

static struct seg *take(struct shoal_alloc *a, size_t off, size_t len, size_t req)
{
    struct seg *s = a->spare;
    a->spare = s->right;
    a->nspare--;
    s->off = off;
    s->len = len;
    s->req = req;
    return s;
}

static void recycle(struct shoal_alloc *a, struct seg *s)
{
    s->right = a->spare;
    a->spare = s;
    a->nspare++;
}

static void free_tree(struct seg *n)
{
    if (!n)
        return;
    free_tree(n->left);
    free_tree(n->right);
    free(n);
}

/* ---- API ---- */

struct shoal_alloc *shoal_alloc_create(size_t heap_size)
{
    struct shoal_alloc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->heap_size = heap_size & ~(GRAN - 1);
    if (a->heap_size) {
        if (reserve(a, 1)) {
            free(a);
            return NULL;
        }
        a->root = insert(NULL, take(a, 0, a->heap_size, 0));
        a->free_ranges = 1;
    }
    return a;
}

void shoal_alloc_destroy(struct shoal_alloc *a)
{
    if (!a)
        return;
    free_tree(a->root);
    while (a->spare) {
        struct seg *s = a->spare;
        a->spare = s->right;
        free(s);
    }
    free(a);
}

size_t shoal_alloc_get(struct shoal_alloc *a, size_t size, size_t align)
{
    if (align < GRAN)
        align = GRAN;
    /* size 0 would be indistinguishable from a free range; the size bound also
     * keeps the rounding below from wrapping. */
    if ((align & (align - 1)) || size == 0 || size > a->heap_size)
        return SHOAL_ALLOC_FAIL;
    size_t need = (size + GRAN - 1) & ~(GRAN - 1);
    struct seg *f = first_fit(a->root, need, align);
    if (!f)
        return SHOAL_ALLOC_FAIL;
    size_t pad = pad_for(f->off, align);
    size_t tail = f->len - pad - need;
    if (reserve(a, (pad != 0) + (tail != 0)))
        return SHOAL_ALLOC_FAIL;

    size_t off = f->off + pad;
    if (pad) {
        /* f keeps the padding as a shorter free range; the block is a new node. */
        f->len = pad;
        refresh(a->root, f->off);
        a->root = insert(a->root, take(a, off, need, size));
    } else {
        f->len = need;
        f->req = size;
        refresh(a->root, f->off);
        a->free_ranges--;
    }
    if (tail) {
        a->root = insert(a->root, take(a, off + need, tail, 0));
        a->free_ranges++;
    }
    a->bytes_used += need;
    a->live_blocks++;
    return off;
}

int shoal_alloc_put(struct shoal_alloc *a, size_t off)
{
    struct seg *b = lookup(a->root, off);
    if (!b || !b->req)
        return -1;
    a->bytes_used -= b->len;
    a->live_blocks--;

    /* Each step leaves the tree consistent before the next restructures it. */
    size_t len = b->len;
    struct seg *next = lookup(a->root, off + len);
    if (next && !next->req) {
        len += next->len;
        a->root = unlink_key(a->root, next->off);
        recycle(a, next);
        a->free_ranges--;
    }
    struct seg *prev = off ? floor_seg(a->root, off - 1) : NULL;
    if (prev && !prev->req) {
        a->root = unlink_key(a->root, off);
        recycle(a, b);
        prev->len += len;
        refresh(a->root, prev->off);
    } else {
        b->len = len;
        b->req = 0;
        refresh(a->root, off);
        a->free_ranges++;
    }
    return 0;
}

size_t shoal_alloc_size(const struct shoal_alloc *a, size_t off)
{
    const struct seg *b = lookup(a->root, off);
    return b ? b->req : 0;
}

size_t shoal_alloc_find(const struct shoal_alloc *a, size_t off)
{
    const struct seg *b = floor_seg(a->root, off);
    if (b && b->req && off - b->off < b->req)
        return b->off;
    return SHOAL_ALLOC_FAIL;
}

int shoal_alloc_resize(struct shoal_alloc *a, size_t off, size_t new_size)
{
    struct seg *b = lookup(a->root, off);
    if (!b || !b->req || new_size == 0 || new_size > a->heap_size)
        return -1;
    size_t need = (new_size + GRAN - 1) & ~(GRAN - 1);
    struct seg *next = lookup(a->root, off + b->len);
    int next_free = next && !next->req;

    if (need < b->len) {
        size_t delta = b->len - need;
        if (next_free) {
            /* Moving next's start down keeps the key order: b covers the gap. */
            next->off -= delta;
            next->len += delta;
            refresh(a->root, next->off);
        } else {
            if (reserve(a, 1))
                return -1;
            a->root = insert(a->root, take(a, off + need, delta, 0));
            a->free_ranges++;
        }
        a->bytes_used -= delta;
    } else if (need > b->len) {
        size_t delta = need - b->len;
        if (!next_free || next->len < delta)
            return -1;
        if (next->len == delta) {
            a->root = unlink_key(a->root, next->off);
            recycle(a, next);
            a->free_ranges--;
        } else {
            next->off += delta;
            next->len -= delta;
            refresh(a->root, next->off);
        }
        a->bytes_used += delta;
    }
    /* A live block's len does not enter max_free, so b needs no refresh. */
    b->len = need;
    b->req = new_size;
    return 0;
}

void shoal_alloc_stats(const struct shoal_alloc *a, struct shoal_alloc_stats *st)
{
    st->heap_size = a->heap_size;
    st->bytes_used = a->bytes_used;
    st->bytes_free = a->heap_size - a->bytes_used;
    st->largest_free = max_free(a->root);
    st->live_blocks = a->live_blocks;
    st->free_ranges = a->free_ranges;
}
