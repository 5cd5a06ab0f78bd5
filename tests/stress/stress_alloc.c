/* Allocation churn: thousands of shmem_malloc/calloc/align/realloc/free calls of
 * seeded random sizes (the same sequence on every PE, as the spec requires).
 * After every call each PE's block must sit at the same heap offset as on every
 * other PE; every few calls each PE writes every live block of its neighbour
 * through the symmetric address and checks what its own neighbour wrote.
 *   stress_alloc [--seed N] [--ops K] */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rng.h"

#define MAX_LIVE 48
#define DATA_CHECK_EVERY 32
/* The test runs with SHMEM_SYMMETRIC_SIZE=128M (see CMakeLists.txt). */
#define BIG_BLOCK ((size_t)96 << 20)

struct block {
    unsigned char *p;
    size_t size;
    unsigned tag; /* changes whenever the contents are rewritten */
};

static struct block live[MAX_LIVE];
static unsigned nlive;
static long offsets[2 * 1024]; /* symmetric: every PE's offset of the newest block */
static long my_offset;         /* symmetric */
static unsigned char *anchor;  /* the first allocation: offsets are taken from it */

/* Byte k of a block with this tag as written by PE pe. */
static unsigned char pattern(int pe, unsigned tag, size_t k)
{
    return (unsigned char)(pe * 31 + tag * 7 + k * 13 + (k >> 8));
}

/* Sizes from 1 byte to 256 KiB, mostly small. */
static size_t draw_size(struct rng *g)
{
    unsigned shift = rng_below(g, 19);
    return 1 + rng_below(g, 1u << shift);
}

/* Every PE got the same offset for p (or every PE got NULL). */
static void check_symmetric(const void *p, const char *call, unsigned step)
{
    my_offset = p ? (long)((const unsigned char *)p - anchor) : -1;
    shmem_long_fcollect(SHMEM_TEAM_WORLD, offsets, &my_offset, 1);
    for (int pe = 0; pe < shmem_n_pes(); pe++)
        if (offsets[pe] != offsets[0]) {
            fprintf(stderr,
                    "FAIL PE %d step %u: %s gave offset %ld on PE 0 but %ld on PE %d\n",
                    shmem_my_pe(), step, call, offsets[0], offsets[pe], pe);
            shmem_global_exit(1);
        }
}

/* Each PE fills every live block on its right neighbour, then checks its own
 * copies hold what its left neighbour wrote. */
static void check_data(unsigned step)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;
    static unsigned char buf[1 << 18];
    /* No PE may write into a block while its owner still checks what it kept. */
    shmem_barrier_all();
    for (unsigned b = 0; b < nlive; b++) {
        live[b].tag = step + b;
        for (size_t k = 0; k < live[b].size; k++)
            buf[k] = pattern(me, live[b].tag, k);
        shmem_putmem(live[b].p, buf, live[b].size, right);
    }
    shmem_barrier_all();
    for (unsigned b = 0; b < nlive; b++)
        for (size_t k = 0; k < live[b].size; k++)
            if (live[b].p[k] != pattern(left, live[b].tag, k)) {
                fprintf(stderr,
                        "FAIL PE %d step %u: block %u (%zu bytes) byte %zu is %u, PE %d "
                        "wrote %u\n",
                        me, step, b, live[b].size, k, live[b].p[k], left,
                        pattern(left, live[b].tag, k));
                shmem_global_exit(1);
            }
    shmem_barrier_all();
}

static int left_pe(void)
{
    return (shmem_my_pe() + shmem_n_pes() - 1) % shmem_n_pes();
}

/* A block's expected contents: what the left neighbour last wrote (or, for a
 * block it has not written yet, the same pattern filled in locally). */
static void fill(struct block *b, size_t from)
{
    for (size_t k = from; k < b->size; k++)
        b->p[k] = pattern(left_pe(), b->tag, k);
}

static void check_kept(const struct block *b, size_t upto)
{
    for (size_t k = 0; k < upto; k++)
        CHECK_EQ(b->p[k], pattern(left_pe(), b->tag, k));
}

static void one_step(struct rng *g, unsigned step, long *counts)
{
    unsigned what = rng_below(g, 10);
    if (nlive == MAX_LIVE || (nlive > 0 && what < 3)) { /* free */
        unsigned b = rng_below(g, nlive);
        shmem_free(live[b].p);
        live[b] = live[--nlive];
        counts[0]++;
        return;
    }
    if (nlive > 0 && what < 5) { /* realloc */
        struct block *b = &live[rng_below(g, nlive)];
        size_t size = draw_size(g);
        unsigned char *p = shmem_realloc(b->p, size);
        CHECK(p != NULL);
        check_symmetric(p, "shmem_realloc", step);
        b->p = p;
        size_t old = b->size;
        check_kept(b, size < old ? size : old);
        b->size = size;
        fill(b, old < size ? old : size);
        counts[1]++;
        return;
    }
    struct block nb = { .size = draw_size(g), .tag = step };
    const char *call;
    if (what < 7) {
        call = "shmem_malloc";
        nb.p = shmem_malloc(nb.size);
    } else if (what < 8) {
        call = "shmem_calloc";
        nb.p = shmem_calloc(nb.size, 1);
        CHECK(nb.p != NULL);
        for (size_t k = 0; k < nb.size; k++)
            CHECK_EQ(nb.p[k], 0);
    } else {
        call = "shmem_align";
        size_t align = sizeof(void *) << rng_below(g, 14); /* the spec asks for this */
        nb.p = shmem_align(align, nb.size);
        CHECK(nb.p != NULL);
        CHECK_EQ((uintptr_t)nb.p % align, 0);
    }
    CHECK(nb.p != NULL);
    check_symmetric(nb.p, call, step);
    fill(&nb, 0);
    live[nlive++] = nb;
    counts[2]++;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    unsigned nops = 3000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            seed = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--ops"))
            nops = (unsigned)atoi(argv[i + 1]);
    }
    shmem_init();
    CHECK(shmem_n_pes() <= (int)(sizeof offsets / sizeof offsets[0]));
    anchor = shmem_malloc(1);
    CHECK(anchor != NULL);

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct rng g = rng_for(seed, 0, 0xa110c); /* the same stream on every PE */
    long counts[3] = { 0, 0, 0 };             /* frees, reallocs, allocations */
    for (unsigned step = 0; step < nops; step++) {
        one_step(&g, step, counts);
        if (step % DATA_CHECK_EVERY == DATA_CHECK_EVERY - 1)
            check_data(step);
    }
    check_data(nops);
    while (nlive)
        shmem_free(live[--nlive].p);
    /* Everything freed came back in one piece: most of the heap fits in one block. */
    unsigned char *big = shmem_malloc(BIG_BLOCK);
    CHECK(big != NULL);
    check_symmetric(big, "shmem_malloc of most of the heap after the churn", nops);
    shmem_free(big);
    shmem_free(anchor);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (shmem_my_pe() == 0)
        printf("stress_alloc: seed %llu, %u calls on %d PEs (%ld allocations, %ld reallocs, "
               "%ld frees), symmetric and intact (%.2f s)\n",
               (unsigned long long)seed, nops, shmem_n_pes(), counts[2], counts[1], counts[0],
               (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    shmem_finalize();
    return 0;
}
