/* Unit test of the symmetric-heap offset allocator (src/mem/alloc.c).
 * Usage: test_alloc [seed]  -- a seed reruns only the randomized tests with it. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "alloc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t cur_seed; /* printed on failure so a randomized run can be replayed */

#define CHECK(e)                                                                             \
    do {                                                                                     \
        if (!(e)) {                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s (seed %" PRIu64 ")\n", __FILE__,        \
                    __LINE__, #e, cur_seed);                                                 \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

#define FAIL SHOAL_ALLOC_FAIL
#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* splitmix64: the tests' own generator, so a seed means the same run everywhere. */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}
static size_t rnd_below(size_t n)
{
    return (size_t)(rnd() % n);
}
/* 1 B .. max, log-uniform so that small and large blocks both occur often. */
static size_t rnd_size(size_t max)
{
    size_t cap = (size_t)1 << rnd_below(21);
    if (cap > max)
        cap = max;
    return 1 + rnd_below(cap);
}

static struct shoal_alloc_stats stats_of(const struct shoal_alloc *a)
{
    struct shoal_alloc_stats st;
    shoal_alloc_stats(a, &st);
    CHECK(st.bytes_used + st.bytes_free == st.heap_size);
    CHECK(st.largest_free <= st.bytes_free);
    CHECK((st.free_ranges == 0) == (st.bytes_free == 0));
    return st;
}

static int stats_equal(const struct shoal_alloc_stats *x, const struct shoal_alloc_stats *y)
{
    return x->heap_size == y->heap_size && x->bytes_used == y->bytes_used &&
            x->bytes_free == y->bytes_free && x->largest_free == y->largest_free &&
            x->live_blocks == y->live_blocks && x->free_ranges == y->free_ranges;
}

static void check_empty(const struct shoal_alloc *a, size_t heap)
{
    struct shoal_alloc_stats st = stats_of(a);
    CHECK(st.heap_size == heap && st.bytes_used == 0 && st.live_blocks == 0);
    CHECK(st.free_ranges == (heap != 0) && st.largest_free == heap);
}

/* ---- deterministic scenarios ---- */

static void test_create(void)
{
    struct shoal_alloc *a = shoal_alloc_create(0);
    CHECK(a);
    check_empty(a, 0);
    CHECK(shoal_alloc_get(a, 1, 16) == FAIL);
    CHECK(shoal_alloc_put(a, 0) == -1);
    CHECK(shoal_alloc_find(a, 0) == FAIL);
    shoal_alloc_destroy(a);

    /* Sizes are rounded down to the 16-byte granularity. */
    a = shoal_alloc_create(15);
    check_empty(a, 0);
    shoal_alloc_destroy(a);
    a = shoal_alloc_create(1000);
    check_empty(a, 992);
    CHECK(shoal_alloc_get(a, 993, 16) == FAIL);
    CHECK(shoal_alloc_get(a, 992, 16) == 0);
    shoal_alloc_destroy(a);
    shoal_alloc_destroy(NULL);
}

static void test_alignment(void)
{
    const size_t heap = 64 * MiB;
    struct shoal_alloc *a = shoal_alloc_create(heap);
    size_t offs[1024];
    size_t n = 0;
    /* Small odd-sized blocks between the aligned ones keep the free space misaligned. */
    for (size_t align = 16; align <= MiB; align <<= 1) {
        for (size_t size = 1; size <= 3 * align; size = size * 3 + 5) {
            offs[n] = shoal_alloc_get(a, 24, 16);
            CHECK(offs[n] != FAIL && offs[n] % 16 == 0);
            n++;
            size_t off = shoal_alloc_get(a, size, align);
            CHECK(off != FAIL);
            CHECK(off % align == 0);
            CHECK(off + size <= heap);
            CHECK(shoal_alloc_size(a, off) == size);
            offs[n++] = off;
            CHECK(n < sizeof offs / sizeof offs[0]);
        }
    }
    /* Alignments below 16 (and 0) mean 16. */
    static const size_t small[] = { 0, 1, 2, 4, 8 };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        size_t off = shoal_alloc_get(a, 1, small[i]);
        CHECK(off != FAIL && off % 16 == 0);
        offs[n++] = off;
    }
    /* Not a power of two. */
    CHECK(shoal_alloc_get(a, 16, 24) == FAIL);
    CHECK(shoal_alloc_get(a, 16, 48) == FAIL);
    CHECK(shoal_alloc_get(a, 16, SIZE_MAX) == FAIL);
    /* Offset 0 is taken, and no other multiple of 2^(w-1) lies in the heap. */
    CHECK(shoal_alloc_get(a, 16, (SIZE_MAX >> 1) + 1) == FAIL);

    /* Padding went back to the free space: freeing everything restores one range. */
    for (size_t i = 0; i < n; i++)
        CHECK(shoal_alloc_put(a, offs[i]) == 0);
    check_empty(a, heap);
    /* On an empty heap offset 0 satisfies any alignment. */
    CHECK(shoal_alloc_get(a, 16, (SIZE_MAX >> 1) + 1) == 0);
    shoal_alloc_destroy(a);
}

static void test_overflow(void)
{
    struct shoal_alloc *a = shoal_alloc_create(MiB);
    CHECK(shoal_alloc_get(a, SIZE_MAX, 16) == FAIL);
    CHECK(shoal_alloc_get(a, SIZE_MAX - 15, 16) == FAIL);
    CHECK(shoal_alloc_get(a, MiB + 1, 16) == FAIL);
    CHECK(shoal_alloc_get(a, 1, (size_t)1 << 40) == 0);
    CHECK(shoal_alloc_get(a, 1, (size_t)1 << 40) == FAIL);
    CHECK(shoal_alloc_resize(a, 0, SIZE_MAX) == -1);
    CHECK(shoal_alloc_resize(a, 0, SIZE_MAX - 15) == -1);
    CHECK(shoal_alloc_resize(a, 0, MiB + 1) == -1);
    CHECK(shoal_alloc_size(a, 0) == 1);
    CHECK(shoal_alloc_find(a, SIZE_MAX) == FAIL);
    CHECK(shoal_alloc_put(a, SIZE_MAX) == -1);
    shoal_alloc_destroy(a);

    /* A heap spanning nearly the whole address range: offsets near SIZE_MAX must not wrap. */
    const size_t top = SIZE_MAX & ~(size_t)15;
    a = shoal_alloc_create(SIZE_MAX);
    check_empty(a, top);
    const size_t half = (SIZE_MAX >> 1) + 1, big = top - half - 112;
    CHECK(shoal_alloc_get(a, 100, half) == 0);
    CHECK(shoal_alloc_get(a, 100, half) == half);
    CHECK(shoal_alloc_get(a, 16, half) == FAIL);
    CHECK(shoal_alloc_get(a, big, 16) == 112);        /* leaves [half - 16, half) */
    CHECK(shoal_alloc_get(a, big, 16) == half + 112); /* ends exactly at top */
    CHECK(shoal_alloc_get(a, 16, 16) == half - 16);
    CHECK(shoal_alloc_get(a, 1, 16) == FAIL);
    CHECK(stats_of(a).bytes_free == 0);
    CHECK(shoal_alloc_find(a, top - 1) == half + 112);
    CHECK(shoal_alloc_find(a, SIZE_MAX) == FAIL);
    CHECK(shoal_alloc_resize(a, half + 112, big + 1) == -1);
    CHECK(shoal_alloc_resize(a, half + 112, big - 16) == 0);
    CHECK(shoal_alloc_resize(a, half + 112, big) == 0);
    const size_t all[] = { 0, half, 112, half + 112, half - 16 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        CHECK(shoal_alloc_put(a, all[i]) == 0);
    check_empty(a, top);
    CHECK(shoal_alloc_get(a, top, 16) == 0);
    CHECK(shoal_alloc_resize(a, 0, 16) == 0);
    CHECK(shoal_alloc_resize(a, 0, top) == 0);
    shoal_alloc_destroy(a);
}

static void test_first_fit(void)
{
    struct shoal_alloc *a = shoal_alloc_create(4 * KiB);
    size_t b0 = shoal_alloc_get(a, 32, 16), b1 = shoal_alloc_get(a, 16, 16);
    size_t b2 = shoal_alloc_get(a, 64, 16), b3 = shoal_alloc_get(a, 16, 16);
    CHECK(b0 == 0 && b1 == 32 && b2 == 48 && b3 == 112);
    CHECK(shoal_alloc_put(a, b0) == 0 && shoal_alloc_put(a, b2) == 0);
    CHECK(stats_of(a).free_ranges == 3);
    /* Address order: the lowest range that fits, splitting it. */
    CHECK(shoal_alloc_get(a, 16, 16) == 0);
    CHECK(shoal_alloc_get(a, 20, 16) == 48);
    CHECK(shoal_alloc_get(a, 16, 16) == 16);
    CHECK(shoal_alloc_get(a, 48, 16) == 128);
    /* [80, 112) cannot hold an aligned block; above 176 the padding is put back. */
    CHECK(shoal_alloc_get(a, 16, 64) == 192);
    CHECK(shoal_alloc_get(a, 16, 16) == 80);
    CHECK(shoal_alloc_get(a, 16, 16) == 96);
    CHECK(shoal_alloc_get(a, 16, 16) == 176);
    CHECK(stats_of(a).free_ranges == 1);
    shoal_alloc_destroy(a);
}

static void test_bad_put_and_find(void)
{
    struct shoal_alloc *a = shoal_alloc_create(MiB);
    size_t x = shoal_alloc_get(a, 100, 16);
    size_t y = shoal_alloc_get(a, 4000, 4096);
    CHECK(x == 0 && y == 4096);
    struct shoal_alloc_stats before = stats_of(a);
    CHECK(shoal_alloc_put(a, 16) == -1);  /* inside x */
    CHECK(shoal_alloc_put(a, 112) == -1); /* start of the free range after x */
    CHECK(shoal_alloc_put(a, y + 1) == -1);
    CHECK(shoal_alloc_put(a, MiB) == -1);
    CHECK(shoal_alloc_put(a, FAIL) == -1);
    struct shoal_alloc_stats after = stats_of(a);
    CHECK(stats_equal(&before, &after));

    CHECK(shoal_alloc_size(a, x) == 100 && shoal_alloc_size(a, y) == 4000);
    CHECK(shoal_alloc_size(a, 16) == 0 && shoal_alloc_size(a, 112) == 0);
    CHECK(shoal_alloc_find(a, 0) == x && shoal_alloc_find(a, 50) == x);
    CHECK(shoal_alloc_find(a, 99) == x);
    CHECK(shoal_alloc_find(a, 100) == FAIL); /* rounding slack is not part of the block */
    CHECK(shoal_alloc_find(a, 112) == FAIL);
    CHECK(shoal_alloc_find(a, 4095) == FAIL);
    CHECK(shoal_alloc_find(a, y) == y && shoal_alloc_find(a, y + 3999) == y);
    CHECK(shoal_alloc_find(a, y + 4000) == FAIL);
    CHECK(shoal_alloc_find(a, MiB - 1) == FAIL && shoal_alloc_find(a, MiB) == FAIL);

    CHECK(shoal_alloc_put(a, x) == 0);
    CHECK(shoal_alloc_put(a, x) == -1); /* double free */
    CHECK(shoal_alloc_find(a, 50) == FAIL);
    CHECK(shoal_alloc_put(a, y) == 0);
    check_empty(a, MiB);
    shoal_alloc_destroy(a);
}

static void test_resize(void)
{
    struct shoal_alloc *a = shoal_alloc_create(64 * KiB);
    size_t x = shoal_alloc_get(a, 100, 16), y = shoal_alloc_get(a, 100, 16);
    CHECK(x == 0 && y == 112);
    CHECK(shoal_alloc_resize(a, x, 113) == -1); /* y is in the way */
    CHECK(shoal_alloc_resize(a, x, 112) == 0);  /* same granules: always fine */
    CHECK(shoal_alloc_size(a, x) == 112);
    CHECK(shoal_alloc_resize(a, x, 0) == -1);
    CHECK(shoal_alloc_resize(a, 16, 50) == -1);  /* not a block start */
    CHECK(shoal_alloc_resize(a, 224, 50) == -1); /* a free range */

    /* Shrink with a live neighbour: the freed tail becomes a new range. */
    CHECK(shoal_alloc_resize(a, x, 20) == 0);
    struct shoal_alloc_stats st = stats_of(a);
    CHECK(st.free_ranges == 2 && st.bytes_used == 32 + 112);
    CHECK(shoal_alloc_get(a, 80, 16) == 32);
    CHECK(shoal_alloc_put(a, 32) == 0);
    /* Grow into exactly that tail: the range disappears. */
    CHECK(shoal_alloc_resize(a, x, 112) == 0);
    CHECK(stats_of(a).free_ranges == 1);

    /* Shrink and grow next to a free range: it moves, nothing new appears. */
    CHECK(shoal_alloc_resize(a, y, 16) == 0);
    st = stats_of(a);
    CHECK(st.free_ranges == 1 && st.largest_free == 64 * KiB - 128);
    CHECK(shoal_alloc_resize(a, y, 64 * KiB - 112) == 0);
    st = stats_of(a);
    CHECK(st.free_ranges == 0 && st.bytes_free == 0);
    CHECK(shoal_alloc_get(a, 1, 16) == FAIL);
    CHECK(shoal_alloc_resize(a, y, 64 * KiB - 111) == -1);
    CHECK(shoal_alloc_resize(a, y, 1000) == 0);
    CHECK(shoal_alloc_size(a, y) == 1000);
    CHECK(shoal_alloc_find(a, y + 999) == y && shoal_alloc_find(a, y + 1000) == FAIL);
    CHECK(shoal_alloc_get(a, 16, 16) == y + 1008);
    shoal_alloc_destroy(a);
}

/* Fills the heap with blocks of random sizes until not a byte is left. */
static size_t fill_heap(struct shoal_alloc *a, size_t *offs, size_t cap)
{
    size_t n = 0;
    for (;;) {
        struct shoal_alloc_stats st = stats_of(a);
        if (st.largest_free == 0)
            break;
        size_t size = rnd_size(64 * KiB);
        if (size > st.largest_free)
            size = st.largest_free;
        size_t off = shoal_alloc_get(a, size, 16);
        CHECK(off != FAIL);
        CHECK(n < cap);
        offs[n++] = off;
    }
    return n;
}

static void shuffle(size_t *v, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = rnd_below(i), t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static void test_coalesce_and_exhaustion(uint64_t seed)
{
    cur_seed = seed;
    rng_state = seed;
    const size_t heap = 16 * MiB, cap = 1 << 16;
    size_t *offs = malloc(cap * sizeof *offs);
    size_t *sizes = malloc(cap * sizeof *sizes);
    CHECK(offs && sizes);
    struct shoal_alloc *a = shoal_alloc_create(heap);
    size_t n = fill_heap(a, offs, cap);
    struct shoal_alloc_stats full = stats_of(a);
    CHECK(full.bytes_used == heap && full.free_ranges == 0 && full.live_blocks == n);
    for (size_t i = 0; i < n; i++)
        sizes[i] = shoal_alloc_size(a, offs[i]);

    /* Exhaustion fails every request and changes nothing. */
    CHECK(shoal_alloc_get(a, 1, 16) == FAIL);
    CHECK(shoal_alloc_get(a, heap, 16) == FAIL);
    CHECK(shoal_alloc_get(a, 1, MiB) == FAIL);
    for (size_t i = 0; i < n; i++) {
        if (sizes[i] % 16 == 0)
            CHECK(shoal_alloc_resize(a, offs[i], sizes[i] + 1) == -1);
        CHECK(shoal_alloc_put(a, offs[i] + 1) == -1);
    }
    struct shoal_alloc_stats again = stats_of(a);
    CHECK(stats_equal(&full, &again));
    for (size_t i = 0; i < n; i++)
        CHECK(shoal_alloc_size(a, offs[i]) == sizes[i]);

    /* Free in random order; every range must merge with its neighbours. */
    shuffle(offs, n);
    for (size_t i = 0; i < n; i++) {
        CHECK(shoal_alloc_put(a, offs[i]) == 0);
        struct shoal_alloc_stats st = stats_of(a);
        CHECK(st.live_blocks == n - i - 1);
        CHECK(st.free_ranges <= st.live_blocks + 1);
    }
    check_empty(a, heap);
    CHECK(shoal_alloc_get(a, heap, 16) == 0);
    shoal_alloc_destroy(a);
    free(offs);
    free(sizes);
}

/* ---- randomized get/put/resize against a shadow model ---- */

struct blk {
    size_t off, size;
    uint32_t id;
};

struct model {
    size_t heap;
    uint32_t *own; /* per 16-byte granule: id of the block holding it, 0 if free */
    struct blk *live;
    size_t nlive, cap;
    uint32_t next_id;
};

/* Marks granules [g0, g1) as id after checking they hold expect. */
static void model_mark(struct model *m, size_t g0, size_t g1, uint32_t expect, uint32_t id)
{
    CHECK(g1 <= m->heap / 16);
    for (size_t g = g0; g < g1; g++) {
        CHECK(m->own[g] == expect);
        m->own[g] = id;
    }
}

static int model_run_free(const struct model *m, size_t g0, size_t g1)
{
    if (g1 > m->heap / 16)
        return 0;
    for (size_t g = g0; g < g1; g++)
        if (m->own[g])
            return 0;
    return 1;
}

/* Full comparison of the allocator with the model. */
static void model_verify(const struct model *m, const struct shoal_alloc *a)
{
    size_t used = 0, ranges = 0, longest = 0, run = 0;
    for (size_t g = 0; g < m->heap / 16; g++) {
        if (m->own[g]) {
            used += 16;
            run = 0;
            continue;
        }
        if (run++ == 0)
            ranges++;
        if (run * 16 > longest)
            longest = run * 16;
    }
    struct shoal_alloc_stats st = stats_of(a);
    CHECK(st.heap_size == m->heap);
    CHECK(st.bytes_used == used);
    CHECK(st.live_blocks == m->nlive);
    CHECK(st.free_ranges == ranges); /* adjacent free ranges were all merged */
    CHECK(st.largest_free == longest);
    for (size_t i = 0; i < m->nlive; i++) {
        const struct blk *b = &m->live[i];
        CHECK(shoal_alloc_size(a, b->off) == b->size);
        CHECK(shoal_alloc_find(a, b->off + rnd_below(b->size)) == b->off);
    }
}

static void test_random(uint64_t seed, size_t ops)
{
    cur_seed = seed;
    rng_state = seed;
    struct model m = { .heap = 64 * MiB, .cap = 1 << 16, .next_id = 1 };
    m.own = calloc(m.heap / 16, sizeof *m.own);
    m.live = malloc(m.cap * sizeof *m.live);
    CHECK(m.own && m.live);
    /* The twin gets the same calls and must give the same answers. */
    struct shoal_alloc *a = shoal_alloc_create(m.heap), *twin = shoal_alloc_create(m.heap);
    CHECK(a && twin);
    size_t gets = 0, fails = 0, puts = 0, resizes = 0, in_place = 0;

    for (size_t op = 0; op < ops; op++) {
        /* Phases of growth and shrinkage, so the heap goes through full and sparse states. */
        int growing = (op / 2000) % 2 == 0;
        size_t r = rnd_below(100);
        if (m.nlive == 0 || r < (growing ? 60u : 35u)) {
            size_t size = rnd_size(MiB);
            size_t align = rnd_below(3) ? rnd_below(16) : (size_t)1 << (4 + rnd_below(17));
            size_t off = shoal_alloc_get(a, size, align);
            CHECK(shoal_alloc_get(twin, size, align) == off);
            gets++;
            size_t eff = align < 16 ? 16 : align;
            if (off == FAIL) {
                /* Failure is only allowed when no free range could hold it. */
                CHECK(stats_of(a).largest_free < round16(size) + eff - 16);
                fails++;
                continue;
            }
            CHECK(off % eff == 0);
            CHECK(m.nlive < m.cap);
            struct blk *b = &m.live[m.nlive++];
            *b = (struct blk){ off, size, m.next_id++ };
            model_mark(&m, off / 16, (off + round16(size)) / 16, 0, b->id);
        } else if (r < 90) {
            size_t i = rnd_below(m.nlive);
            struct blk b = m.live[i];
            CHECK(shoal_alloc_put(a, b.off) == 0);
            CHECK(shoal_alloc_put(twin, b.off) == 0);
            CHECK(shoal_alloc_put(a, b.off) == -1);
            model_mark(&m, b.off / 16, (b.off + round16(b.size)) / 16, b.id, 0);
            m.live[i] = m.live[--m.nlive];
            puts++;
        } else {
            struct blk *b = &m.live[rnd_below(m.nlive)];
            size_t size = rnd_size(MiB);
            size_t g_old = (b->off + round16(b->size)) / 16,
                   g_new = (b->off + round16(size)) / 16;
            int rc = shoal_alloc_resize(a, b->off, size);
            CHECK(shoal_alloc_resize(twin, b->off, size) == rc);
            /* In place exactly when shrinking or the granules after it are free. */
            CHECK((rc == 0) == (g_new <= g_old || model_run_free(&m, g_old, g_new)));
            resizes++;
            if (rc == 0) {
                if (g_new < g_old)
                    model_mark(&m, g_new, g_old, b->id, 0);
                else
                    model_mark(&m, g_old, g_new, 0, b->id);
                b->size = size;
                in_place++;
            }
        }
        if (op % 1000 == 999)
            model_verify(&m, a);
    }
    model_verify(&m, a);
    struct shoal_alloc_stats sa = stats_of(a), sb = stats_of(twin);
    CHECK(stats_equal(&sa, &sb));

    while (m.nlive) {
        size_t i = rnd_below(m.nlive);
        CHECK(shoal_alloc_put(a, m.live[i].off) == 0);
        m.live[i] = m.live[--m.nlive];
    }
    check_empty(a, m.heap);
    printf("random seed %" PRIu64
           ": %zu gets (%zu failed), %zu puts, %zu resizes (%zu in place)\n",
           seed, gets, fails, puts, resizes, in_place);
    shoal_alloc_destroy(a);
    shoal_alloc_destroy(twin);
    free(m.own);
    free(m.live);
}

/* ---- timing sanity print (not an assertion) ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void timing(void)
{
    cur_seed = 7;
    rng_state = 7;
    enum { N = 10000 };
    size_t *offs = malloc(N * sizeof *offs);
    CHECK(offs);
    struct shoal_alloc *a = shoal_alloc_create(1024 * MiB);

    double t0 = now_s();
    for (size_t i = 0; i < N; i++) {
        offs[i] = shoal_alloc_get(a, rnd_size(16 * KiB), i % 8 ? 16 : 4096);
        CHECK(offs[i] != FAIL);
    }
    double t1 = now_s();
    size_t hits = 0;
    for (size_t i = 0; i < N; i++) {
        size_t o = offs[(i * 7919) % N];
        hits += shoal_alloc_find(a, o + shoal_alloc_size(a, o) - 1) == o;
    }
    CHECK(hits == N);
    double t2 = now_s();
    /* Steady state at 10k live blocks: free a random one, allocate another. */
    for (size_t i = 0; i < N; i++) {
        size_t j = rnd_below(N);
        CHECK(shoal_alloc_put(a, offs[j]) == 0);
        offs[j] = shoal_alloc_get(a, rnd_size(16 * KiB), 16);
        CHECK(offs[j] != FAIL);
    }
    double t3 = now_s();
    shuffle(offs, N);
    for (size_t i = 0; i < N; i++)
        CHECK(shoal_alloc_put(a, offs[i]) == 0);
    double t4 = now_s();
    check_empty(a, 1024 * MiB);
    printf("timing (10k blocks): get %.3f us, find %.3f us, put+get %.3f us, put %.3f us per "
           "op\n",
           (t1 - t0) * 1e6 / N, (t2 - t1) * 1e6 / N, (t3 - t2) * 1e6 / N,
           (t4 - t3) * 1e6 / N);
    shoal_alloc_destroy(a);
    free(offs);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        uint64_t seed = strtoull(argv[1], NULL, 0);
        test_coalesce_and_exhaustion(seed);
        test_random(seed, 20000);
        printf("test_alloc: seed %" PRIu64 " passed\n", seed);
        return 0;
    }
    test_create();
    test_alignment();
    test_overflow();
    test_first_fit();
    test_bad_put_and_find();
    test_resize();
    static const uint64_t seeds[] = { 1, 2, 3, 0x5eed, 20240601 };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++) {
        test_coalesce_and_exhaustion(seeds[i]);
        test_random(seeds[i], 20000);
    }
    timing();
    printf("test_alloc: all passed\n");
    return 0;
}
