/* A PE that polls its own memory with fetching AMOs or gets alone, making no other
 * call, must not starve its peers' operations on that memory: under the MPI transport
 * (Open MPI's osc/ucx) those wait for the target's progress, which the transport must
 * then make inside the polling calls, though a get from same-node memory is a local
 * copy. User-written loops on PE 0, each bounded so that a starved job ends with a FAIL
 * line instead of hanging:
 *   counter  PE 0 polls a counter until every peer's adds, fetch-adds and puts (after
 *            some work) have landed: exact sum and data; once for each way of polling
 *            (struct poll_kind: fetching AMOs, and every get family);
 *   peer     PE 0 polls a flag on PE 1 (the same node in mpi-mixed mode) with
 *            shmem_long_g, which PE 1 sets once the peers' adds to PE 0 have landed;
 *   lock     a compare-and-swap spin lock homed on PE 0, contended by every PE, whose
 *            holders do a get + put increment of a word on PE 0. */
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#define CAP_S 30      /* a loop still spinning after this long is starved */
#define LOCK_ITERS 50 /* acquisitions per PE */

static int me, npes;
static long counter;   /* on PE 0: the peers' contributions */
static long slots[64]; /* on PE 0: slots[p], put by PE p before its adds */
static long spin;      /* on PE 0: the lock word, 0 free, p + 1 held by PE p */
static long data;      /* on PE 0: incremented under the lock */
static long flag;      /* on PE 1: set once PE 0's counter is complete */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void pause_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&t, NULL);
}

/* Ends the job when a loop of PE 0's has spun past the cap. */
static void check_cap(double start, const char *loop, long seen, long want)
{
    if (now_s() - start < CAP_S)
        return;
    fprintf(stderr,
            "FAIL PE %d: %s loop polling memory without other calls: still %ld "
            "(want %ld) after %d s: peers' operations on this PE starved\n",
            me, loop, seen, want, CAP_S);
    shmem_global_exit(1);
}

/* The ways PE 0 polls its counter: each makes no other call. */
enum poll_kind { FETCH, FETCH_NBI, G, CTX_G, GET, GETMEM, GET64, IGET, GET_NBI, NKINDS };
static const char *const kind_name[NKINDS] = {
    "shmem_atomic_fetch",
    "shmem_atomic_fetch_nbi+quiet",
    "shmem_long_g",
    "shmem_ctx_long_g",
    "shmem_long_get",
    "shmem_getmem",
    "shmem_get64",
    "shmem_long_iget",
    "shmem_long_get_nbi+quiet",
};

static long poll_counter(enum poll_kind k)
{
    int self = shmem_my_pe();
    long v = -1;
    switch (k) {
    case FETCH: return shmem_atomic_fetch(&counter, self);
    case FETCH_NBI:
        shmem_atomic_fetch_nbi(&v, &counter, self);
        shmem_quiet();
        break;
    case G: return shmem_long_g(&counter, self);
    case CTX_G: return shmem_ctx_long_g(SHMEM_CTX_DEFAULT, &counter, self);
    case GET: shmem_long_get(&v, &counter, 1, self); break;
    case GETMEM: shmem_getmem(&v, &counter, sizeof v, self); break;
    case GET64: shmem_get64(&v, &counter, 1, self); break;
    case IGET: shmem_long_iget(&v, &counter, 1, 1, 1, self); break;
    case GET_NBI:
        shmem_long_get_nbi(&v, &counter, 1, self);
        shmem_quiet();
        break;
    case NKINDS: break;
    }
    return v;
}

/* What the peers' contributions to PE 0's counter add up to. */
static long counter_want(void)
{
    long want = 0;
    for (int p = 1; p < npes; p++)
        want += 1001L * p + 1;
    return want;
}

/* A peer's contributions to PE 0's counter, after some work (PE 0 polls by then). */
static void contribute(long want)
{
    pause_ms(20 + 10 * me);
    if (me < 64) {
        long v = 7L * me;
        shmem_long_put(&slots[me], &v, 1, 0);
        shmem_quiet(); /* in place before the adds that PE 0 counts */
    }
    shmem_atomic_add(&counter, (long)me, 0);
    long old = shmem_atomic_fetch_add(&counter, 1000L * me, 0);
    CHECK(old >= 0 && old <= want - 1000L * me);
    shmem_atomic_inc(&counter, 0);
}

static void counter_case(enum poll_kind k)
{
    long want = counter_want();
    counter = 0;
    for (int p = 0; p < 64; p++)
        slots[p] = 0;
    shmem_barrier_all();
    if (me == 0) {
        double start = now_s();
        long v;
        while ((v = poll_counter(k)) != want)
            check_cap(start, kind_name[k], v, want);
        for (int p = 1; p < npes && p < 64; p++)
            CHECK_EQ(slots[p], 7L * p);
    } else {
        contribute(want);
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_atomic_fetch(&counter, 0), want);
    shmem_barrier_all();
}

/* PE 0 polls PE 1's flag with gets while the peers' adds to PE 0 wait for its
 * progress; PE 1 raises the flag once they have all landed. */
static void peer_case(void)
{
    if (npes < 2)
        return;
    long want = counter_want();
    counter = 0;
    flag = 0;
    shmem_barrier_all();
    if (me == 0) {
        double start = now_s();
        long v;
        while ((v = shmem_long_g(&flag, 1)) != 1)
            check_cap(start, "shmem_long_g of PE 1's flag", v, 1);
        CHECK_EQ(shmem_atomic_fetch(&counter, 0), want);
    } else {
        contribute(want);
        if (me == 1) {
            while (shmem_atomic_fetch(&counter, 0) != want)
                ;
            shmem_long_p(&flag, 1, 1);
        }
    }
    shmem_barrier_all();
}

static void acquire(void)
{
    double start = now_s();
    long seen;
    while ((seen = shmem_atomic_compare_swap(&spin, 0L, (long)me + 1, 0)) != 0)
        if (me == 0)
            check_cap(start, "lock", seen, 0);
}

static void release(void)
{
    shmem_quiet(); /* the increment lands before the lock is free */
    shmem_atomic_set(&spin, 0L, 0);
}

static void increment(void)
{
    long v = shmem_long_g(&data, 0);
    shmem_long_p(&data, v + 1, 0);
}

static void lock_case(void)
{
    /* PE 1 holds the lock while PE 0 spins for it: its increment must still land. */
    if (me == 1)
        acquire();
    shmem_barrier_all();
    if (me == 0 && npes > 1) {
        acquire();
        CHECK_EQ(data, 1);
        release();
    } else if (me == 1) {
        pause_ms(50);
        increment();
        release();
    }
    shmem_barrier_all();
    for (int k = 0; k < LOCK_ITERS; k++) {
        acquire();
        increment();
        release();
    }
    shmem_barrier_all();
    CHECK_EQ(shmem_long_g(&data, 0), (npes > 1 ? 1 : 0) + (long)LOCK_ITERS * npes);
    CHECK_EQ(shmem_atomic_fetch(&spin, 0), 0);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (int k = 0; k < NKINDS; k++)
        counter_case((enum poll_kind)k);
    peer_case();
    lock_case();
    shmem_finalize();
    if (me == 0)
        printf("test_self_poll: OK on %d PEs\n", npes);
    return 0;
}
