/* Long runs of synchronization, meant for more PEs than cores (16 on 2 in CI):
 * barrier_all, sync_all and team_sync back to back; a token passed around the
 * ring with wait_until; and every PE signalling PE 0, which waits on all of
 * them with wait_until_all and test_some. Each part prints its elapsed time;
 * a PE that spins instead of yielding turns seconds into minutes here.
 *   stress_sync [--rounds N] */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MAX_PES 1024

static long token;             /* ring: the last round that reached this PE */
static long arrivals[MAX_PES]; /* on PE 0: the last round each PE reported */
static long counter;           /* on PE 0: rounds * PEs increments */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void report(const char *what, long n, double t0)
{
    double s = now_s() - t0;
    if (shmem_my_pe() == 0)
        printf("stress_sync: %-34s %6ld in %6.2f s (%7.1f us each) on %d PEs\n", what, n, s,
               1e6 * s / (double)n, shmem_n_pes());
}

static void barriers(long rounds)
{
    double t0 = now_s();
    for (long i = 0; i < rounds; i++) {
        /* Each barrier must complete the AMO issued before it. */
        shmem_long_atomic_inc(&counter, 0);
        if (i % 3 == 0)
            shmem_barrier_all();
        else if (i % 3 == 1)
            shmem_sync_all();
        else
            shmem_team_sync(SHMEM_TEAM_WORLD);
        /* Every PE's increment is in (sync_all alone does not complete it); some
         * PEs may already be a round ahead. */
        if (i % 3 != 1 && shmem_my_pe() == 0)
            CHECK(shmem_long_atomic_fetch(&counter, 0) >= (i + 1) * shmem_n_pes());
        if (i % 3 == 1)
            shmem_quiet();
    }
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        CHECK_EQ(counter, rounds * shmem_n_pes());
    report("barrier_all/sync_all/team_sync", rounds, t0);
}

/* PE 0 starts round r; each PE waits for it and passes it to the next. */
static void ring(long rounds)
{
    int me = shmem_my_pe(), next = (me + 1) % shmem_n_pes();
    double t0 = now_s();
    for (long r = 1; r <= rounds; r++) {
        if (me != 0)
            shmem_long_wait_until(&token, SHMEM_CMP_GE, r);
        CHECK(me == 0 || token == r);
        shmem_long_atomic_set(&token, r, next);
        if (me == 0)
            shmem_long_wait_until(&token, SHMEM_CMP_EQ, r);
    }
    report("token ring hops (wait_until)", rounds * shmem_n_pes(), t0);
    shmem_barrier_all();
}

/* Every PE reports round r to PE 0, which waits for all of them. */
static void gather_waits(long rounds)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    double t0 = now_s();
    for (long r = 1; r <= rounds; r++) {
        shmem_long_atomic_set(&arrivals[me], r, 0);
        if (me == 0) {
            if (r % 2) {
                shmem_long_wait_until_all(arrivals, (size_t)n, NULL, SHMEM_CMP_EQ, r);
            } else {
                /* Poll with test_some until every PE is seen, each exactly once. */
                int seen[MAX_PES] = { 0 };
                int status[MAX_PES];
                size_t idx[MAX_PES], got = 0;
                for (int p = 0; p < n; p++)
                    status[p] = 0;
                while (got < (size_t)n) {
                    size_t k = shmem_long_test_some(arrivals, (size_t)n, idx, status,
                                                    SHMEM_CMP_EQ, r);
                    for (size_t i = 0; i < k; i++) {
                        CHECK(!seen[idx[i]]);
                        seen[idx[i]] = 1;
                        status[idx[i]] = 1; /* test_some leaves it out from now on */
                    }
                    got += k;
                    if (!k)
                        shmem_long_wait_until_any(arrivals, (size_t)n, status, SHMEM_CMP_EQ,
                                                  r);
                }
            }
            for (int p = 0; p < n; p++)
                CHECK_EQ(arrivals[p], r);
        }
        /* Nobody starts round r+1 before PE 0 has seen all of round r. */
        shmem_barrier_all();
    }
    report("all-to-one rounds (wait_until_all)", rounds, t0);
}

int main(int argc, char **argv)
{
    long rounds = 2000;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--rounds"))
            rounds = atol(argv[i + 1]);
    shmem_init();
    CHECK(shmem_n_pes() <= MAX_PES);
    double t0 = now_s();
    barriers(rounds * 3);
    ring(rounds);
    gather_waits(rounds / 2);
    if (shmem_my_pe() == 0)
        printf("stress_sync: all parts on %d PEs in %.2f s\n", shmem_n_pes(), now_s() - t0);
    shmem_finalize();
    return 0;
}
