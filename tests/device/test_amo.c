/* AMOs on device-space objects (the locked fallback): concurrent fetch-adds, increments,
 * compare-swaps, swaps and bitwise operations from every PE against one PE's device
 * object, checked against the arithmetic; fetch results into device buffers; and an
 * AMO on a host object whose result lands in device memory. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_device.h"

#define ROUNDS 20

static long dget(const long *p)
{
    long v;
    tdev_d2h(&v, p, sizeof v);
    return v;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    long *ctr = shmem_space_alloc(SHMEM_SPACE_DEVICE, 4, sizeof(long));
    unsigned long *bits = shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(unsigned long));
    int *i32 = shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(int));
    double *dbl = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(double));
    long *hctr = shmem_calloc(1, sizeof(long));
    long *dres = tdev_malloc(ROUNDS * sizeof(long));
    CHECK(ctr && bits && i32 && dbl && hctr);

    /* Fetch-adds and increments from every PE on PE 0's device counters; every value
     * fetched is distinct, and the totals are exact. */
    long seen = 0;
    for (int r = 0; r < ROUNDS; r++) {
        long old = shmem_long_atomic_fetch_add(&ctr[0], 2, 0);
        CHECK(old % 2 == 0 && old < 2L * ROUNDS * np);
        seen += old;
        shmem_long_atomic_inc(&ctr[1], 0);
        shmem_long_atomic_fetch_inc_nbi(&dres[r], &ctr[2], 0); /* result into device memory */
        shmem_int_atomic_add(&i32[0], me + 1, 0);
    }
    shmem_quiet();
    long *res = malloc(ROUNDS * sizeof(long));
    tdev_d2h(res, dres, ROUNDS * sizeof(long));
    for (int r = 1; r < ROUNDS; r++)
        CHECK(res[r] > res[r - 1]); /* one PE's increments are ordered */
    shmem_barrier_all();
    long total = shmem_long_atomic_fetch(&ctr[0], 0);
    CHECK_EQ(total, 2L * ROUNDS * np);
    CHECK_EQ(shmem_long_atomic_fetch(&ctr[1], 0), (long)ROUNDS * np);
    CHECK_EQ(shmem_long_atomic_fetch(&ctr[2], 0), (long)ROUNDS * np);
    CHECK_EQ(shmem_int_atomic_fetch(&i32[0], 0), ROUNDS * np * (np + 1) / 2);
    /* floating-point extended AMOs */
    if (me == 0)
        shmem_double_atomic_set(dbl, 2.5, np - 1);
    shmem_barrier_all();
    CHECK(shmem_double_atomic_fetch(dbl, np - 1) == 2.5);
    shmem_barrier_all();
    if (me == np - 1)
        CHECK(shmem_double_atomic_swap(dbl, -1.25, np - 1) == 2.5);
    shmem_barrier_all();
    CHECK(shmem_double_atomic_fetch(dbl, np - 1) == -1.25);
    /* The sum of all fetched values of all PEs is 2 * (0 + 1 + ... + ROUNDS*np - 1). */
    long *sums = shmem_calloc((size_t)np, sizeof(long));
    for (int pe = 0; pe < np; pe++)
        shmem_long_p(&sums[me], seen, pe);
    shmem_barrier_all();
    long all = 0;
    for (int pe = 0; pe < np; pe++)
        all += sums[pe];
    long k = (long)ROUNDS * np;
    CHECK_EQ(all, k * (k - 1));

    /* Compare-swap: exactly one PE wins each round on PE np-1's device word. */
    int last = np - 1, wins = 0;
    for (int r = 0; r < ROUNDS; r++) {
        if (shmem_long_atomic_compare_swap(&ctr[3], r, r + 1, last) == r)
            wins++;
        shmem_barrier_all();
    }
    int *w = shmem_calloc(1, sizeof(int));
    shmem_int_atomic_add(w, wins, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(*w, ROUNDS);
    CHECK_EQ(shmem_long_atomic_fetch(&ctr[3], last), ROUNDS);

    /* Bitwise: each PE sets its own bit, then the odd PEs clear theirs, XOR flips bit 40. */
    shmem_ulong_atomic_or(&bits[0], 1UL << me, 0);
    shmem_barrier_all();
    if (me % 2)
        shmem_ulong_atomic_fetch_and(&bits[0], ~(1UL << me), 0);
    if (me == 0)
        shmem_ulong_atomic_xor(&bits[0], 1UL << 40, 0);
    shmem_barrier_all();
    unsigned long want = 1UL << 40;
    for (int pe = 0; pe < np; pe += 2)
        want |= 1UL << pe;
    CHECK_EQ(shmem_ulong_atomic_fetch(&bits[0], 0), want);

    /* Swap and set. */
    shmem_barrier_all();
    if (me == 0)
        shmem_long_atomic_set(&ctr[0], -5, last);
    shmem_barrier_all();
    if (me == last)
        CHECK_EQ(shmem_long_atomic_swap(&ctr[0], 9, last), -5);
    shmem_barrier_all();
    CHECK_EQ(dget(&ctr[0]) == 9 || me != last, 1);

    /* A host-heap AMO whose fetched value goes to a device buffer. */
    shmem_long_atomic_fetch_add_nbi(&dres[0], hctr, 1, 0);
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(*hctr, np);
    long f = dget(&dres[0]);
    CHECK(f >= 0 && f < np);

    shmem_barrier_all();
    tdev_free(dres);
    free(res);
    shmem_free(w);
    shmem_free(sums);
    shmem_free(hctr);
    shmem_free(dbl);
    shmem_free(i32);
    shmem_free(bits);
    shmem_free(ctr);
    tdev_passed("device.amo");
    return 0;
}
