/* Distributed locks: mutual exclusion of a non-atomic read-modify-write on PE 0 with
 * set_lock, with test_lock, and with both mixed; test_lock reporting a held lock;
 * FIFO hand-over; a holder working on the home PE's memory while that PE polls;
 * locks in static data and on the heap; back-to-back reuse. */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <time.h>

#include "check.h"

#define ITERS 200

static int me, npes;
static long static_lock;
static long count; /* on PE 0, updated only under the lock */
static long winners;
static long ticket;
static long my_ticket;
static int turn;

static void acquire(long *lock, int by_test)
{
    if (!by_test) {
        shmem_set_lock(lock);
        return;
    }
    while (shmem_test_lock(lock))
        sched_yield();
}

/* Every PE adds 1 to count, ITERS times, as get + put: only exclusion keeps it exact. */
static void mutual_exclusion(long *lock, int mode)
{
    int by_test = mode == 2 ? me % 2 : mode;
    for (int k = 0; k < ITERS; k++) {
        acquire(lock, by_test);
        long v = shmem_long_g(&count, 0);
        if (k % 16 == me % 16)
            sched_yield(); /* widen the window a broken lock would let others into */
        shmem_long_p(&count, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(count, (long)ITERS * npes);
    /* A free lock is back to its initial 0 on every PE (Shoal keeps no other state). */
    CHECK_EQ(*lock, 0);
    shmem_barrier_all();
    count = 0;
    shmem_barrier_all();
}

static void held_lock(long *lock)
{
    if (me == 0)
        shmem_set_lock(lock);
    shmem_barrier_all();
    if (me != 0)
        CHECK_EQ(shmem_test_lock(lock), 1);
    shmem_barrier_all();
    if (me == 0)
        shmem_clear_lock(lock);
    shmem_barrier_all();
    /* All race for a free lock: exactly one wins, and no one else until it clears. */
    if (shmem_test_lock(lock) == 0) {
        shmem_long_atomic_inc(&winners, 0);
        shmem_barrier_all();
        shmem_clear_lock(lock);
    } else {
        shmem_barrier_all();
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(winners, 1);
}

static void pause_ms(long ms)
{
    struct timespec ts = { 0, ms * 1000000 };
    nanosleep(&ts, NULL);
}

/* While PE 0 holds the lock, PEs 1..n-1 queue up one after another, each 50 ms after
 * the previous one announced it was about to; they must get the lock in that order. */
static void fifo(long *lock)
{
    if (npes < 2)
        return;
    if (me == 0) {
        shmem_set_lock(lock);
        my_ticket = shmem_long_atomic_fetch_inc(&ticket, 0);
        shmem_int_p(&turn, 1, 1);
        shmem_int_wait_until(&turn, SHMEM_CMP_EQ, 1);
        pause_ms(100);
        shmem_clear_lock(lock);
    } else {
        shmem_int_wait_until(&turn, SHMEM_CMP_EQ, 1);
        pause_ms(50);
        shmem_int_p(&turn, 1, (me + 1) % npes);
        shmem_set_lock(lock);
        my_ticket = shmem_long_atomic_fetch_inc(&ticket, 0);
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    CHECK_EQ(my_ticket, me);
}

/* PE 1 holds the lock and works on PE 0's memory while PE 0, the lock's home, polls
 * with test_lock: under MPI passive-target RMA the holder's get, put and release
 * there need PE 0 to drive MPI progress, which its failing tests must do (a PE
 * polling an AMO on its own memory made none with Open MPI's osc/ucx, and the job
 * hung). */
static void home_polls(long *lock)
{
    if (npes < 2)
        return;
    if (me == 1)
        shmem_set_lock(lock);
    shmem_barrier_all();
    if (me == 0) {
        while (shmem_test_lock(lock))
            ;
        CHECK_EQ(count, 42);
        shmem_clear_lock(lock);
    } else if (me == 1) {
        pause_ms(100); /* PE 0 polls by now */
        long v = shmem_long_g(&count, 0);
        shmem_long_p(&count, v + 42, 0);
        shmem_quiet();
        shmem_clear_lock(lock);
    }
    shmem_barrier_all();
    count = 0;
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    long *heap_lock = shmem_calloc(1, sizeof(long));
    CHECK(heap_lock != NULL);
    for (int mode = 0; mode < 3; mode++) {
        mutual_exclusion(&static_lock, mode);
        mutual_exclusion(heap_lock, mode);
    }
    held_lock(heap_lock);
    home_polls(&static_lock);
    fifo(&static_lock);
    mutual_exclusion(&static_lock, 0);
    shmem_free(heap_lock);
    shmem_finalize();
    if (me == 0)
        printf("test_lock: OK on %d PEs\n", npes);
    return 0;
}
