/* Symmetric heap allocator stress: malloc, calloc, align, realloc, malloc_with_hints
 * and free in a seeded random order (the same on every PE), sizes 1 B .. 1 MiB.
 *
 * Symmetry is checked on offsets, not addresses (PEs may map the heap at different
 * addresses): each block's offset from `base`, the first allocation, must be the same
 * on every PE. Live blocks must not overlap, must be usable as symmetric objects
 * (shmem_putmem into the neighbour's copy lands where expected), calloc must zero,
 * and realloc must preserve contents. */
#include <shmem.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define NS 48     /* live slots */
#define NOPS 2000 /* random operations */
#define VERIFY_EVERY 25
#define MAXSZ (1u << 20)
#define SIG 64 /* bytes of remote signature at each end of a block */

enum { K_MALLOC, K_CALLOC, K_ALIGN, K_HINTS, K_REALLOC_NULL, K_SHMALLOC, NKINDS };

struct slot {
    unsigned char *p;
    size_t size;
    size_t align;
    unsigned tag;
};

static char *base;
static long long *offs; /* at PE 0: [pe][slot][offset, size] */
static struct slot slots[NS];
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static int op_no;

#define SCHECK(c) CHECK_WHILE(c, "doing random operation %d", op_no)

/* xorshift64*: the same sequence on every PE. */
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Log-uniform sizes from 1 B to 1 MiB. */
static size_t rnd_size(void)
{
    unsigned bits = (unsigned)(rnd() % 21);
    size_t s = 1 + (size_t)(rnd() % ((size_t)1 << bits));
    return s > MAXSZ ? MAXSZ : s;
}

static unsigned char pat(unsigned tag, size_t i)
{
    return (unsigned char)(tag * 31u + i * 7u + (i >> 9) + (unsigned)me * 101u);
}

/* Contents are tracked on every byte of the first 4 KiB and the last 4 KiB of a block
 * and on every 1021st byte between, which keeps megabyte blocks cheap. */
static size_t next_pos(size_t i, size_t size)
{
    size_t tail = size > 4096 ? size - 4096 : 0;
    if (i + 1 < 4096 || i + 1 >= tail)
        return i + 1;
    size_t n = (i / 1021 + 1) * 1021;
    return n < tail ? n : tail;
}

static void fill(struct slot *s)
{
    for (size_t i = 0; i < s->size; i = next_pos(i, s->size))
        s->p[i] = pat(s->tag, i);
}

/* The tracked bytes below `n` still hold this PE's pattern. */
static void check_fill(const struct slot *s, size_t n)
{
    for (size_t i = 0; i < n && i < s->size; i = next_pos(i, s->size))
        if (s->p[i] != pat(s->tag, i)) {
            fprintf(stderr, "PE %d: slot tag %u byte %zu of %zu is %d, expected %d\n", me,
                    s->tag, i, s->size, s->p[i], pat(s->tag, i));
            SCHECK(0);
        }
}

static size_t off_of(const void *p)
{
    return (size_t)((const char *)p - base);
}

static void check_default_alignment(const void *p)
{
    SCHECK((uintptr_t)p % alignof(max_align_t) == 0);
}

static void *do_alloc(int kind, size_t size, size_t *align)
{
    static const long hints[] = { 0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                                  SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE };
    *align = alignof(max_align_t);
    switch (kind) {
    case K_MALLOC: return shmem_malloc(size);
    case K_CALLOC: {
        size_t count = 1 + rnd() % 4;
        size_t each = (size + count - 1) / count;
        unsigned char *p = shmem_calloc(count, each);
        SCHECK(p != NULL);
        for (size_t i = 0; i < count * each; i++)
            if (p[i] != 0) {
                fprintf(stderr, "PE %d: shmem_calloc(%zu, %zu) byte %zu is %d\n", me, count,
                        each, i, p[i]);
                SCHECK(0);
            }
        return p;
    }
    case K_ALIGN:
        *align = (size_t)8 << (rnd() % 18); /* 8 .. 1 MiB */
        return shmem_align(*align, size);
    case K_HINTS: return shmem_malloc_with_hints(size, hints[rnd() % 4]);
    case K_REALLOC_NULL: return shmem_realloc(NULL, size);
    default: return shmalloc(size);
    }
}

static void new_block(struct slot *s)
{
    int kind = (int)(rnd() % NKINDS);
    size_t size = rnd_size();
    s->p = do_alloc(kind, size, &s->align);
    SCHECK(s->p != NULL);
    SCHECK((uintptr_t)s->p % s->align == 0);
    check_default_alignment(s->p);
    s->size = size;
    s->tag = (unsigned)rnd();
    fill(s);
}

static void realloc_block(struct slot *s)
{
    size_t ns = rnd() % 8 == 0 ? s->size : rnd_size();
    if (rnd() % 3 == 0) /* small growth or shrink, which may stay in place */
        ns = s->size + (size_t)(rnd() % 64) - (s->size > 64 ? 32 : 0);
    if (ns == 0)
        ns = 1;
    unsigned char *q = shmem_realloc(s->p, ns);
    SCHECK(q != NULL);
    check_default_alignment(q);
    size_t keep = ns < s->size ? ns : s->size;
    s->p = q;
    check_fill(s, keep); /* as tracked at the old size */
    s->size = ns;
    s->align = alignof(max_align_t);
    fill(s);
}

static int cmp_range(const void *a, const void *b)
{
    const long long *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* What PE `pe` writes at byte `pos` of slot `i` on its right neighbour. */
static unsigned char remote_sig(int pe, int i, size_t pos)
{
    return (unsigned char)(pe * 16 + i + pos * 3 + 1);
}

/* Offsets equal on every PE, blocks disjoint, and each block usable remotely. */
static void verify(void)
{
    long long mine[NS][2], sorted[NS][2];
    int nlive = 0;
    for (int i = 0; i < NS; i++) {
        mine[i][0] = slots[i].p ? (long long)off_of(slots[i].p) : -1;
        mine[i][1] = slots[i].p ? (long long)slots[i].size : 0;
        if (slots[i].p) {
            sorted[nlive][0] = mine[i][0];
            sorted[nlive][1] = mine[i][1];
            nlive++;
            SCHECK(shmem_addr_accessible(slots[i].p, right));
            SCHECK(shmem_addr_accessible(slots[i].p + slots[i].size - 1, left));
        }
    }
    qsort(sorted, (size_t)nlive, sizeof sorted[0], cmp_range);
    for (int i = 1; i < nlive; i++)
        SCHECK(sorted[i - 1][0] + sorted[i - 1][1] <= sorted[i][0]);

    shmem_barrier_all(); /* every PE has filled and restored its blocks */
    shmem_putmem(&offs[(size_t)me * NS * 2], mine, sizeof mine, 0);
    for (int i = 0; i < NS; i++) {
        struct slot *s = &slots[i];
        if (!s->p)
            continue;
        unsigned char head[SIG], tail[SIG];
        size_t n = s->size < SIG ? s->size : SIG;
        for (size_t j = 0; j < n; j++) {
            head[j] = remote_sig(me, i, j);
            tail[j] = remote_sig(me, i, s->size - n + j);
        }
        shmem_putmem(s->p, head, n, right);
        shmem_putmem(s->p + s->size - n, tail, n, right);
    }
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (int i = 0; i < NS; i++)
                if (offs[((size_t)pe * NS + i) * 2] != offs[(size_t)i * 2] ||
                    offs[((size_t)pe * NS + i) * 2 + 1] != offs[(size_t)i * 2 + 1]) {
                    fprintf(stderr,
                            "slot %d: PE %d has offset %lld size %lld, PE 0 %lld %lld\n", i,
                            pe, offs[((size_t)pe * NS + i) * 2],
                            offs[((size_t)pe * NS + i) * 2 + 1], offs[(size_t)i * 2],
                            offs[(size_t)i * 2 + 1]);
                    SCHECK(0);
                }
    for (int i = 0; i < NS; i++) {
        struct slot *s = &slots[i];
        if (!s->p)
            continue;
        size_t n = s->size < SIG ? s->size : SIG;
        for (size_t j = 0; j < n; j++) {
            SCHECK(s->p[j] == remote_sig(left, i, j));
            SCHECK(s->p[s->size - n + j] == remote_sig(left, i, s->size - n + j));
        }
        /* this PE's own pattern again, for the realloc checks */
        for (size_t j = 0; j < n; j++) {
            s->p[j] = pat(s->tag, j);
            s->p[s->size - n + j] = pat(s->tag, s->size - n + j);
        }
    }
}

/* Every size class once: allocate, write all of it on the neighbour, read it back. */
static void sizes_sweep(void)
{
    unsigned char *buf = malloc(MAXSZ);
    CHECK(buf != NULL);
    for (size_t s = 1; s <= MAXSZ; s = s == MAXSZ ? s + 1
                 : s < 16                         ? s + 1
                                                  : s * 2 + (s & 1 ? 0 : 3)) {
        if (s > MAXSZ / 2 && s < MAXSZ)
            s = MAXSZ; /* end on exactly 1 MiB */
        size_t size = s;
        unsigned char *p = shmem_malloc(size);
        CHECK(p != NULL);
        check_default_alignment(p);
        for (size_t i = 0; i < size; i++)
            buf[i] = (unsigned char)(me + i * 13);
        shmem_putmem(p, buf, size, right);
        shmem_barrier_all();
        for (size_t i = 0; i < size; i++)
            if (p[i] != (unsigned char)(left + i * 13)) {
                fprintf(stderr, "PE %d: size %zu byte %zu\n", me, size, i);
                CHECK(0);
            }
        /* and the whole block read back from the neighbour */
        shmem_getmem(buf, p, size, right);
        for (size_t i = 0; i < size; i++)
            CHECK(buf[i] == (unsigned char)(me + i * 13));
        shmem_free(p);
    }
    free(buf);
}

/* shmem_align at every alignment 8 .. 1 MiB, with small and large sizes, offsets
 * checked for symmetry through PE 0. */
static void align_sweep(void)
{
    void *blocks[2 * 18];
    int nb = 0;
    for (size_t a = 8; a <= MAXSZ; a *= 2) {
        for (int big = 0; big < 2; big++) {
            size_t size = big ? a + 1 : 24;
            char *p = shmem_align(a, size);
            CHECK(p != NULL);
            CHECK((uintptr_t)p % a == 0);
            /* symmetric: PE 0's block at the same offset */
            long long o = (long long)off_of(p), o0;
            shmem_longlong_atomic_set(&offs[me], o, 0);
            shmem_barrier_all();
            if (me == 0)
                for (int pe = 0; pe < npes; pe++)
                    CHECK_EQ(offs[pe], o);
            o0 = shmem_longlong_atomic_fetch(&offs[0], 0);
            CHECK_EQ(o0, o);
            shmem_char_p(p + size - 1, (char)(me + 1), right);
            shmem_barrier_all();
            CHECK_EQ(p[size - 1], left + 1);
            blocks[nb++] = p;
        }
    }
    /* free in a scrambled but common order */
    for (int i = 0; i < nb; i++) {
        int j = (i * 7) % nb;
        if (blocks[j]) {
            shmem_free(blocks[j]);
            blocks[j] = NULL;
        }
    }
    for (int i = 0; i < nb; i++)
        if (blocks[i])
            shmem_free(blocks[i]);
    /* the deprecated name */
    void *d = shmemalign(4096, 10);
    CHECK(d != NULL && (uintptr_t)d % 4096 == 0);
    shfree(d);
}

/* realloc growth and shrink, in place and moving, contents kept. */
static void realloc_sweep(void)
{
    size_t sizes[] = { 10, 100, 5000, 17, 1 << 20, 3, 300000, 64, 65, 1 };
    unsigned char *p = shmem_malloc(1);
    CHECK(p != NULL);
    p[0] = 0xA5;
    size_t cur = 1;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        /* a block right after p, so that growth sometimes has to move */
        void *blocker = k % 2 ? shmem_malloc(32) : NULL;
        unsigned char *q = shmem_realloc(p, sizes[k]);
        CHECK(q != NULL);
        size_t keep = cur < sizes[k] ? cur : sizes[k];
        for (size_t i = 1; i < keep; i++)
            CHECK(q[i] == (unsigned char)(i * 5 + me));
        CHECK(q[0] == 0xA5);
        for (size_t i = 1; i < sizes[k]; i++)
            q[i] = (unsigned char)(i * 5 + me);
        p = q;
        cur = sizes[k];
        /* still symmetric: write the neighbour's last byte */
        shmem_barrier_all();
        shmem_uint8_p((uint8_t *)&p[cur - 1], (uint8_t)(0xF0 + me % 8), right);
        shmem_barrier_all();
        CHECK_EQ(p[cur - 1], 0xF0 + left % 8);
        p[cur - 1] = cur > 1 ? (unsigned char)((cur - 1) * 5 + me) : 0xA5;
        if (blocker)
            shmem_free(blocker);
    }
    p = shrealloc(p, 40);
    CHECK(p != NULL && p[0] == 0xA5);
    /* realloc to 0 frees and returns NULL */
    CHECK(shmem_realloc(p, 0) == NULL);
}

static void edge_cases(void)
{
    /* size 0 and shmem_free(NULL): no action, so no barrier either; only PE 0 calls
     * them, then everyone barriers (a barrier inside any of them would pair with it
     * and leave PE 0 a barrier short, which hangs). */
    if (me == 0) {
        shmem_free(NULL);
        CHECK(shmem_malloc(0) == NULL);
        CHECK(shmem_calloc(0, 8) == NULL);
        CHECK(shmem_calloc(8, 0) == NULL);
        CHECK(shmem_align(64, 0) == NULL);
        CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL);
    }
    shmem_barrier_all();
    shmem_free(NULL);
    shfree(NULL);
    shmem_barrier_all();
    void *a = shmem_malloc(128), *b = shmem_malloc(128);
    CHECK(a && b && a != b);
    /* a freed block's offset is reused by the next same-size allocation everywhere */
    size_t oa = off_of(a);
    shmem_free(a);
    void *c = shmem_malloc(128);
    CHECK(c != NULL);
    shmem_longlong_atomic_set(&offs[me], (long long)off_of(c), 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            CHECK_EQ(offs[pe], offs[0]);
    (void)oa;
    shmem_free(b);
    shmem_free(c);
}

int main(void)
{
    ring_init();
    base = shmem_malloc(64);
    CHECK(base != NULL);
    offs = shmem_calloc((size_t)npes * NS * 2, sizeof(long long));
    CHECK(offs != NULL);

    edge_cases();
    sizes_sweep();
    align_sweep();
    realloc_sweep();

    int counts[3] = { 0, 0, 0 };
    for (op_no = 0; op_no < NOPS; op_no++) {
        struct slot *s = &slots[rnd() % NS];
        if (!s->p) {
            new_block(s);
            counts[0]++;
        } else if (rnd() % 2) {
            check_fill(s, s->size);
            shmem_free(s->p);
            s->p = NULL;
            counts[1]++;
        } else {
            realloc_block(s);
            counts[2]++;
        }
        if (op_no % VERIFY_EVERY == VERIFY_EVERY - 1)
            verify();
    }
    verify();
    /* free what is left in a seeded random order */
    int order[NS];
    for (int i = 0; i < NS; i++)
        order[i] = i;
    for (int i = NS - 1; i > 0; i--) {
        int j = (int)(rnd() % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < NS; i++) {
        struct slot *s = &slots[order[i]];
        if (s->p) {
            check_fill(s, s->size);
            shmem_free(s->p);
            s->p = NULL;
        }
    }
    for (int i = 0; i < NS; i++)
        CHECK(slots[i].p == NULL);
    CHECK(counts[0] > NOPS / 4 && counts[1] > NOPS / 8 && counts[2] > NOPS / 8);

    /* After all that, the heap is whole again: a large block fits, at the same offset
     * everywhere. */
    void *big = shmem_malloc(64u << 20);
    CHECK(big != NULL);
    shmem_longlong_atomic_set(&offs[me], (long long)off_of(big), 0);
    shmem_barrier_all();
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            CHECK_EQ(offs[pe], offs[0]);
    shmem_free(big);
    shmem_free(offs);
    shmem_free(base);
    if (me == 0)
        printf("test_malloc: %d PEs OK (%d allocations, %d frees, %d reallocs)\n", npes,
               counts[0], counts[1], counts[2]);
    shmem_finalize();
    return 0;
}
