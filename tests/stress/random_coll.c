/* Collectives of the randomized stress test (see random_coll.h). */
#include "random_coll.h"
#include "check.h"
#include "rng.h"

#include <shmem.h>

#define COLL_MAX_N 32 /* elements per PE */

enum coll_kind { C_SUM, C_MAX, C_XOR, C_BCAST, C_FCOLLECT, C_COLLECT, C_ALLTOALL, C_KINDS };

static long *src, *dst; /* symmetric, npes * COLL_MAX_N each */

void coll_setup(int npes)
{
    src = test_malloc((size_t)npes * COLL_MAX_N * sizeof *src);
    dst = test_malloc((size_t)npes * COLL_MAX_N * sizeof *dst);
}

void coll_teardown(void)
{
    shmem_free(src);
    shmem_free(dst);
}

/* What PE p contributes as element i (to PE q, for alltoall): kept below 2^44 so
 * that sums over 64 PEs stay far from overflow. */
static long contrib(uint64_t seed, unsigned phase, int p, int q, unsigned i)
{
    struct rng g = rng_for(seed ^ 0xc011ec7ULL, phase,
                           ((uint64_t)p << 40) ^ ((uint64_t)q << 20) ^ i);
    return (long)(rng_next(&g) >> 20);
}

/* How many elements PE p gives to a collect (0 is allowed). */
static unsigned collect_n(uint64_t seed, unsigned phase, int p)
{
    return (unsigned)(contrib(seed, phase, p, -1, 0) % 5);
}

static void expect(const struct run *r, const char *what, unsigned i, long got, long want)
{
    if (got != want)
        stress_fail(r, "%s element %u: %ld, expected %ld", what, i, got, want);
}

void run_collective(const struct run *r, uint64_t seed, unsigned phase, int me, int npes)
{
    struct rng g = rng_for(seed, phase, 0xc0ffeeULL); /* the same on every PE */
    enum coll_kind kind = (enum coll_kind)rng_below(&g, C_KINDS);
    unsigned n = 1 + rng_below(&g, COLL_MAX_N);
    int root = (int)rng_below(&g, (unsigned)npes);
    int rc = 0;

    /* Element i of the source: for alltoall, element i % n of the block for PE i / n. */
    for (unsigned i = 0; i < (unsigned)npes * COLL_MAX_N; i++)
        src[i] = kind == C_ALLTOALL ? contrib(seed, phase, me, (int)(i / n), i % n)
                                    : contrib(seed, phase, me, 0, i);
    switch (kind) {
    case C_SUM:
    case C_MAX:
    case C_XOR:
        rc = kind == C_SUM ? shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n)
                : kind == C_MAX
                ? shmem_long_max_reduce(SHMEM_TEAM_WORLD, dst, src, n)
                : shmem_ulong_xor_reduce(SHMEM_TEAM_WORLD, (unsigned long *)dst,
                                         (const unsigned long *)src, n);
        for (unsigned i = 0; i < n; i++) {
            long want = contrib(seed, phase, 0, 0, i);
            for (int p = 1; p < npes; p++) {
                long c = contrib(seed, phase, p, 0, i);
                want = kind == C_SUM    ? want + c
                        : kind == C_MAX ? (c > want ? c : want)
                                        : want ^ c;
            }
            expect(r,
                   kind == C_SUM           ? "sum_reduce"
                           : kind == C_MAX ? "max_reduce"
                                           : "xor_reduce",
                   i, dst[i], want);
        }
        break;
    case C_BCAST:
        rc = shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, n, root);
        for (unsigned i = 0; i < n; i++)
            expect(r, "broadcast", i, dst[i], contrib(seed, phase, root, 0, i));
        break;
    case C_FCOLLECT:
        rc = shmem_long_fcollect(SHMEM_TEAM_WORLD, dst, src, n);
        for (unsigned i = 0; i < (unsigned)npes * n; i++)
            expect(r, "fcollect", i, dst[i], contrib(seed, phase, (int)(i / n), 0, i % n));
        break;
    case C_COLLECT: {
        rc = shmem_long_collect(SHMEM_TEAM_WORLD, dst, src, collect_n(seed, phase, me));
        unsigned at = 0;
        for (int p = 0; p < npes; p++)
            for (unsigned i = 0; i < collect_n(seed, phase, p); i++, at++)
                expect(r, "collect", at, dst[at], contrib(seed, phase, p, 0, i));
        break;
    }
    case C_ALLTOALL:
        rc = shmem_long_alltoall(SHMEM_TEAM_WORLD, dst, src, n);
        for (unsigned i = 0; i < (unsigned)npes * n; i++)
            expect(r, "alltoall", i, dst[i], contrib(seed, phase, (int)(i / n), me, i % n));
        break;
    case C_KINDS: break;
    }
    if (rc)
        stress_fail(r, "collective %d returned %d", (int)kind, rc);
}
