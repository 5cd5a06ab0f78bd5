/* OpenSHMEM 1.5 points where Shoal used to differ: a series of _any calls returns
 * every satisfied index (9.10), quiet/fence on SHMEM_CTX_INVALID do nothing (9.11),
 * and shmem_align with an alignment below sizeof(void *) rounds it up. The ivars are
 * set by another PE (over the network in the ofi and mixed test modes). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>

#define N 8
static long ivars[N];
static long pair_a[4], pair_b[4];
static int failures;

#define CHECK(c)                                                                             \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            printf("FAIL PE %d %s:%d: %s\n", shmem_my_pe(), __FILE__, __LINE__, #c);         \
            failures++;                                                                      \
        }                                                                                    \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), left = (me + npes - 1) % npes;

    /* The left neighbour sets every ivar of this PE. */
    for (int i = 0; i < N; i++)
        shmem_long_atomic_set(&ivars[i], 1, (me + 1) % npes);
    for (int i = 0; i < 2; i++) {
        shmem_long_atomic_set(&pair_a[i], 1, (me + 1) % npes);
        shmem_long_atomic_set(&pair_b[i], 1, (me + 1) % npes);
    }
    shmem_barrier_all();
    (void)left;

    /* N calls of each _any form return N different indices: all of them. */
    int seen[4][N] = { { 0 } };
    long cmps[N];
    for (int i = 0; i < N; i++)
        cmps[i] = 1;
    for (int f = 0; f < 4; f++)
        for (int k = 0; k < N; k++) {
            size_t a = f == 0 ? shmem_long_test_any(ivars, N, NULL, SHMEM_CMP_EQ, 1)
                    : f == 1  ? shmem_long_wait_until_any(ivars, N, NULL, SHMEM_CMP_EQ, 1)
                    : f == 2
                    ? shmem_long_test_any_vector(ivars, N, NULL, SHMEM_CMP_EQ, cmps)
                    : shmem_long_wait_until_any_vector(ivars, N, NULL, SHMEM_CMP_EQ, cmps);
            CHECK(a < N);
            if (a < N)
                seen[f][a]++;
        }
    for (int f = 0; f < 4; f++)
        for (int i = 0; i < N; i++)
            CHECK(seen[f][i] == 1);
    /* Masked indices are never returned, the others still all are. */
    int status[N] = { 1, 0, 1, 0, 1, 0, 1, 0 }, masked[N] = { 0 };
    for (int k = 0; k < N; k++) {
        size_t a = shmem_long_test_any(ivars, N, status, SHMEM_CMP_EQ, 1);
        CHECK(a < N && !status[a]);
        if (a < N)
            masked[a]++;
    }
    for (int i = 1; i < N; i += 2)
        CHECK(masked[i] == 2);

    /* Two arrays polled in turn: each still returns every satisfied index (a
     * position per thread instead of per array would give one array only index 0
     * and the other only index 1). Indices 0 and 1 of each are set. */
    {
        size_t from_a[2] = { 0 }, from_b[2] = { 0 };
        for (int k = 0; k < 4; k++) {
            size_t a = shmem_long_test_any(pair_a, 4, NULL, SHMEM_CMP_EQ, 1);
            size_t b = k % 2 ? shmem_long_test_any(pair_b, 4, NULL, SHMEM_CMP_EQ, 1)
                             : shmem_long_wait_until_any(pair_b, 4, NULL, SHMEM_CMP_EQ, 1);
            CHECK(a < 2 && b < 2);
            if (a < 2)
                from_a[a]++;
            if (b < 2)
                from_b[b]++;
        }
        CHECK(from_a[0] == 2 && from_a[1] == 2 && from_b[0] == 2 && from_b[1] == 2);
    }

    /* 9.11: no operation, no error. */
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    int pes[1] = { 0 };
    shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, pes, 1);

    /* Alignments 1, 2 and 4 round up to sizeof(void *); the blocks are symmetric. */
    for (size_t al = 1; al < sizeof(void *); al *= 2) {
        long *p = shmem_align(al, 3 * sizeof(long));
        CHECK(p != NULL);
        if (!p)
            continue;
        CHECK((uintptr_t)p % sizeof(void *) == 0);
        shmem_long_p(&p[2], me + 100, (me + 1) % npes);
        shmem_barrier_all();
        CHECK(p[2] == (me + npes - 1) % npes + 100);
        shmem_free(p);
    }

    shmem_barrier_all();
    if (me == 0)
        printf("test_conform: %s on %d PEs\n", failures ? "FAILED" : "OK", npes);
    shmem_finalize();
    return failures != 0;
}
