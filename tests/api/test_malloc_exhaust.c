/* Symmetric heap exhaustion, run with SHMEM_SYMMETRIC_SIZE=1M: a request larger than
 * the heap returns NULL on every PE (with a warning naming SHMEM_SYMMETRIC_SIZE, which
 * the api.malloc_exhaust.message test looks for); the heap recovers after frees; and
 * the whole megabyte can be handed out in pieces. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define HEAP (1u << 20)

static int me, npes;
static long nulls; /* at PE 0: how many PEs saw NULL (a global, so it costs no heap) */

/* p is NULL on this PE; check that it is NULL on every PE. */
static void all_null(void *p)
{
    CHECK(p == NULL);
    nulls = 0;
    shmem_barrier_all();
    shmem_long_atomic_inc(&nulls, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(nulls, npes);
    shmem_barrier_all();
}

/* Allocate `piece`-byte blocks until the heap is full; returns how many fit. */
static int fill_heap(size_t piece, void **blocks, int max)
{
    int n = 0;
    while (n < max) {
        void *p = shmem_malloc(piece);
        if (!p)
            break;
        /* usable: the neighbour's last byte */
        shmem_char_p((char *)p + piece - 1, (char)me, (me + 1) % npes);
        blocks[n++] = p;
    }
    shmem_barrier_all();
    for (int i = 0; i < n; i++)
        CHECK_EQ(((char *)blocks[i])[piece - 1], (me + npes - 1) % npes);
    return n;
}

static void free_all(void **blocks, int n)
{
    /* every other one first, then the rest: the free ranges must merge again */
    for (int i = 0; i < n; i += 2)
        shmem_free(blocks[i]);
    for (int i = 1; i < n; i += 2)
        shmem_free(blocks[i]);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *env = getenv("SHMEM_SYMMETRIC_SIZE");
    CHECK(env != NULL && strcmp(env, "1M") == 0);

    /* more than there is: NULL everywhere, by every allocation routine */
    all_null(shmem_malloc(2 * HEAP));
    all_null(shmem_malloc(HEAP + 1));
    all_null(shmem_calloc(HEAP, 2));
    all_null(shmem_align(4096, 2 * HEAP));
    all_null(shmem_malloc_with_hints(2 * HEAP, SHMEM_MALLOC_ATOMICS_REMOTE));

    /* two 600 KiB blocks do not fit at once; after a free the second does */
    char *a = shmem_malloc(600 << 10);
    CHECK(a != NULL);
    memset(a, 'a', 600 << 10);
    all_null(shmem_malloc(600 << 10));
    /* a failed realloc leaves the block alone */
    all_null(shmem_realloc(a, 2 * HEAP));
    for (size_t i = 0; i < (600u << 10); i += 4099)
        CHECK_EQ(a[i], 'a');
    shmem_free(a);
    char *b = shmem_malloc(600 << 10);
    CHECK(b != NULL);
    shmem_free(b);

    /* the whole heap in pieces, twice, with different piece sizes */
    enum { MAXB = 1200 };
    void **blocks = malloc(MAXB * sizeof(void *));
    CHECK(blocks != NULL);
    int n = fill_heap(64 << 10, blocks, MAXB);
    CHECK(n >= 15 && n <= 16); /* 16 fit exactly; allow one for bookkeeping */
    all_null(shmem_malloc(64 << 10));
    free_all(blocks, n);
    n = fill_heap(1000, blocks, MAXB);
    CHECK((size_t)n * 1008 >= HEAP - (16 << 10)); /* 1000 B rounds up to 1008 */
    all_null(shmem_malloc(1000));
    free_all(blocks, n);

    /* and in one piece, minus a little */
    void *big = shmem_malloc(HEAP - (16 << 10));
    CHECK(big != NULL);
    shmem_free(big);
    big = shmem_calloc(HEAP / 16 - 1024, 16);
    CHECK(big != NULL);
    shmem_free(big);

    free(blocks);
    if (me == 0)
        printf("test_malloc_exhaust: %d PEs OK\n", npes);
    shmem_finalize();
    return 0;
}
