/* Distributed locks: an MCS queue lock that keeps all of its state in the user's
 * symmetric long, which must be 0 before first use. The long is taken as two
 * 32-bit halves, with the same meaning in every PE's copy:
 *
 *   half 0, TAIL, used on PE 0 only: world PE + 1 of the last PE queued (the holder
 *           when no one waits); 0 when the lock is free.
 *   half 1, NODE, each PE's queue node: NEXT bits = world PE + 1 of its successor
 *           (0 while none has linked in), GRANTED bit = the lock has been passed to it.
 *
 * set_lock swaps itself into TAIL. An old TAIL of 0 means the lock is ours;
 * otherwise we link in by ORing our PE + 1 into the predecessor's NODE and spin on
 * our own NODE (local memory) until the predecessor ORs in GRANTED. clear_lock
 * hands the lock to the linked successor; with none linked it CASes TAIL from
 * itself back to 0, and if that fails a PE has swapped in but not linked yet, so
 * it waits for the link. The order of the swaps on TAIL is the order of
 * acquisition (FIFO). A NODE is written only while its PE is queued, by its
 * successor (link) and predecessor (grant); both are over when the PE releases,
 * so it zeroes its NODE then, and the whole long is 0 again whenever the lock is
 * free, ready for reuse. */
#include "api/api.h"

#define LOCK_GRANTED (1u << 31)
#define LOCK_NEXT (LOCK_GRANTED - 1)

typedef uint32_t __attribute__((may_alias)) lock_half;

/* This PE's own half, for local polling and the release store: a NODE is written by
 * others only while its PE is queued, so neither races a network AMO. */
static lock_half *own_half(const char *fn, long *lock, int which)
{
    shoal_require_init(fn);
    struct shoal_rref r;
    shoal_remote(fn, SHMEM_CTX_DEFAULT, lock, sizeof *lock, shoal.my_pe, &r);
    return (lock_half *)r.ptr + which;
}

/* An AMO on half `which` of world PE pe's copy of the lock; returns the old value.
 * The link (OR) only publishes, so release suffices; the others acquire the lock. */
static uint32_t lock_amo(const char *fn, long *lock, int pe, int which, enum shoal_amo_op op,
                         uint32_t v, uint32_t cmp)
{
    struct shoal_rref r;
    shoal_remote(fn, SHMEM_CTX_DEFAULT, (lock_half *)lock + which, sizeof(lock_half), pe, &r);
    uint32_t old;
    shoal_tp_amo(SHMEM_CTX_DEFAULT, &r, op, SHOAL_AMO_UINT32, v, cmp, &old, 0,
                 op == SHOAL_AMO_OR ? __ATOMIC_RELEASE : __ATOMIC_ACQ_REL);
    return old;
}

/* The locks this PE holds, so that clearing one it does not hold (which would hang
 * or corrupt the queue) ends the job instead. Slots change by CAS: threads may hold
 * different locks. Beyond HELD_MAX at once, clears go unchecked. */
#define HELD_MAX 64
static long *held[HELD_MAX];
static int held_overflow;

static void held_add(long *lock)
{
    for (int i = 0; i < HELD_MAX; i++) {
        long *none = NULL;
        if (__atomic_compare_exchange_n(&held[i], &none, lock, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return;
    }
    __atomic_store_n(&held_overflow, 1, __ATOMIC_RELAXED);
}

static void held_remove(const char *fn, long *lock)
{
    for (int i = 0; i < HELD_MAX; i++) {
        long *mine = lock;
        if (__atomic_compare_exchange_n(&held[i], &mine, NULL, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            return;
    }
    if (!__atomic_load_n(&held_overflow, __ATOMIC_RELAXED))
        shoal_fatal(fn,
                    "the lock at %p is not held by this PE; only the PE that acquired it "
                    "(shmem_set_lock, or shmem_test_lock returning 0) may clear it",
                    (void *)lock);
}

static int held_has(long *lock)
{
    for (int i = 0; i < HELD_MAX; i++)
        if (__atomic_load_n(&held[i], __ATOMIC_RELAXED) == lock)
            return 1;
    return 0;
}

/* A PE number read from the lock's state: anything but 1..npes means the long was
 * not 0 before first use (or was written by other code), and the queue it encodes
 * cannot be followed. */
static int queued_pe(const char *fn, long *lock, uint32_t v)
{
    if (SHOAL_UNLIKELY(v == 0 || v > (uint32_t)shoal.n_pes))
        shoal_fatal(fn,
                    "the lock at %p does not hold a lock's state (its queue names %#x, not "
                    "a PE); a lock must be 0 before its first use (a global, or memory from "
                    "shmem_calloc) and changed only by the lock routines",
                    (void *)lock, v);
    return (int)v - 1;
}

static void wait_for(lock_half *node, uint32_t bits)
{
    struct shoal_backoff b = { 0 };
    while (!(__atomic_load_n(node, __ATOMIC_ACQUIRE) & bits))
        shoal_backoff(&b);
}

void shmem_set_lock(long *lock)
{
    SHOAL_LOG_SCOPE(__func__);
    lock_half *node = own_half(__func__, lock, 1);
    /* The lock is not recursive: this PE would wait for itself for ever. */
    if (SHOAL_UNLIKELY(held_has(lock)))
        shoal_fatal(__func__,
                    "this PE already holds the lock at %p; shmem_set_lock waits until the "
                    "lock is free, so it would wait for ever: call shmem_clear_lock first",
                    (void *)lock);
    uint32_t me = (uint32_t)shoal.my_pe + 1;
    uint32_t prev = lock_amo(__func__, lock, 0, 0, SHOAL_AMO_WRITE, me, 0);
    if (prev != 0) {
        lock_amo(__func__, lock, queued_pe(__func__, lock, prev), 1, SHOAL_AMO_OR, me, 0);
        wait_for(node, LOCK_GRANTED);
    }
    held_add(lock);
}
SHOAL_PROFILED(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    own_half(__func__, lock, 0);
    uint32_t me = (uint32_t)shoal.my_pe + 1;
    if (lock_amo(__func__, lock, 0, 0, SHOAL_AMO_CSWAP, me, 0) != 0) {
        /* The caller polls, as with shmem_test: drive the network for the peers'
         * operations on this PE, which the holder's may need to land before it can
         * clear the lock. Under MPI passive-target RMA (Open MPI 4.1's osc/ucx) a PE
         * drives MPI only inside MPI calls that wait, and an AMO on its own memory
         * (the lock's home polling) never waits: test api.lock, home_polls. */
        shoal_progress();
        return 1;
    }
    held_add(lock);
    return 0;
}
SHOAL_PROFILED(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    SHOAL_LOG_SCOPE(__func__);
    lock_half *node = own_half(__func__, lock, 1);
    held_remove(__func__, lock);
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    uint32_t next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & LOCK_NEXT;
    if (next == 0) {
        uint32_t me = (uint32_t)shoal.my_pe + 1;
        if (lock_amo(__func__, lock, 0, 0, SHOAL_AMO_CSWAP, 0, me) == me) {
            __atomic_store_n(node, 0, __ATOMIC_RELAXED);
            return;
        }
        wait_for(node, LOCK_NEXT);
        next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & LOCK_NEXT;
    }
    int succ = queued_pe(__func__, lock, next);
    __atomic_store_n(node, 0, __ATOMIC_RELAXED);
    lock_amo(__func__, lock, succ, 1, SHOAL_AMO_OR, LOCK_GRANTED, 0);
}
SHOAL_PROFILED(shmem_clear_lock)
