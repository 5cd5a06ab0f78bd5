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
#include "core/state.h"

#define LOCK_GRANTED (1u << 31)
#define LOCK_NEXT (LOCK_GRANTED - 1)

typedef uint32_t __attribute__((may_alias)) lock_half;

static lock_half *half(const char *fn, long *lock, int pe, int which)
{
    shoal_require_init(fn);
    lock_half *p = (lock_half *)shoal_xlate(lock, pe);
    if (SHOAL_UNLIKELY(!p))
        shoal_bad_addr(fn, lock, pe);
    return p + which;
}

static void wait_for(lock_half *node, uint32_t bits)
{
    struct shoal_backoff b = { 0 };
    while (!(__atomic_load_n(node, __ATOMIC_ACQUIRE) & bits))
        shoal_backoff(&b);
}

void shmem_set_lock(long *lock)
{
    lock_half *tail = half(__func__, lock, 0, 0), *node = half(__func__, lock, shoal.my_pe, 1);
    uint32_t prev = __atomic_exchange_n(tail, (uint32_t)shoal.my_pe + 1, __ATOMIC_ACQ_REL);
    if (prev == 0)
        return;
    __atomic_fetch_or(half(__func__, lock, (int)prev - 1, 1), (uint32_t)shoal.my_pe + 1,
                      __ATOMIC_RELEASE);
    wait_for(node, LOCK_GRANTED);
}
SHOAL_PROFILED(shmem_set_lock)

int shmem_test_lock(long *lock)
{
    lock_half *tail = half(__func__, lock, 0, 0);
    uint32_t free_tail = 0;
    return !__atomic_compare_exchange_n(tail, &free_tail, (uint32_t)shoal.my_pe + 1, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}
SHOAL_PROFILED(shmem_test_lock)

void shmem_clear_lock(long *lock)
{
    lock_half *tail = half(__func__, lock, 0, 0), *node = half(__func__, lock, shoal.my_pe, 1);
    shoal_quiet_all();
    uint32_t next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & LOCK_NEXT;
    if (next == 0) {
        uint32_t self = (uint32_t)shoal.my_pe + 1;
        if (__atomic_compare_exchange_n(tail, &self, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
            __atomic_store_n(node, 0, __ATOMIC_RELAXED);
            return;
        }
        wait_for(node, LOCK_NEXT);
        next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & LOCK_NEXT;
    }
    __atomic_store_n(node, 0, __ATOMIC_RELAXED);
    __atomic_fetch_or(half(__func__, lock, (int)next - 1, 1), LOCK_GRANTED, __ATOMIC_RELEASE);
}
SHOAL_PROFILED(shmem_clear_lock)
