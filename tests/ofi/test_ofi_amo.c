/* Every AMO type of the network path: with SHOAL_NODE_MAP=pe every AMO goes
 * through libfabric, to other PEs and to this PE itself. Run natively and with
 * SHMEM_OFI_ATOMIC_EMULATE=1 (the compare-and-swap fallback). Concurrent updates
 * of one word from every PE must add up exactly. */
#include <stdint.h>

#include "check.h"

#define ITERS 200

static int32_t c_i32;
static uint32_t c_u32, bits32;
static int64_t c_i64, cas64, swap_word, swap_sum;
static uint64_t c_u64, bits64;
static float f_word;
static double d_word;
static int64_t self_word;
static int64_t nbi_word;
static int64_t from_left; /* only the left neighbour adds here */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    if (me == 0)
        swap_word = -1;
    shmem_barrier_all();

    /* Adds and fetch-adds from every PE on PE 0's words. */
    for (int k = 0; k < ITERS; k++) {
        shmem_int32_atomic_add(&c_i32, 1, 0);
        shmem_uint32_atomic_fetch_add(&c_u32, 2, 0);
        shmem_int64_atomic_inc(&c_i64, 0);
        (void)shmem_uint64_atomic_fetch_inc(&c_u64, 0);
    }
    /* A lock-free increment by compare-and-swap. */
    for (int k = 0; k < ITERS; k++) {
        int64_t old = shmem_int64_atomic_fetch(&cas64, 0), seen;
        while ((seen = shmem_int64_atomic_compare_swap(&cas64, old, old + 1, 0)) != old)
            old = seen;
    }
    /* Bitwise: set my bit, toggle it twice, clear a bit nobody owns. */
    shmem_uint64_atomic_or(&bits64, 1ULL << (me % 64), 0);
    shmem_uint64_atomic_xor(&bits64, 1ULL << 63, 0);
    shmem_uint64_atomic_xor(&bits64, 1ULL << 63, 0);
    (void)shmem_uint32_atomic_fetch_or(&bits32, 1U << (me % 31), 0);
    shmem_uint32_atomic_and(&bits32, ~(1U << 31), 0);
    /* Swap: every old value is seen exactly once. */
    int64_t prev = shmem_int64_atomic_swap(&swap_word, me, 0);
    shmem_int64_atomic_add(&swap_sum, prev, 0);
    /* Float and double: set, fetch, swap on the right neighbour. */
    shmem_float_atomic_set(&f_word, (float)me + 0.5f, right);
    shmem_double_atomic_set(&d_word, (double)me + 0.25, right);
    /* This PE's own word, through the network too. */
    shmem_int64_atomic_add(&self_word, 5, me);
    CHECK_EQ(shmem_int64_atomic_fetch(&self_word, me), 5);
    CHECK_EQ(self_word, 5);
    /* After quiet a get sees this PE's adds: over libfabric's shm the target's
     * progress applies AMOs, while a get reads its memory directly. */
    for (int k = 1; k <= 200; k++) {
        shmem_int64_atomic_add(&from_left, 1, right);
        shmem_int64_atomic_add(&from_left, 2, right);
        shmem_quiet();
        CHECK_EQ(shmem_int64_g(&from_left, right), 3 * k);
    }
    /* Non-blocking fetch: the value is there after quiet. */
    int64_t fetched = -7;
    shmem_int64_atomic_fetch_add_nbi(&fetched, &nbi_word, 3, right);
    shmem_quiet();
    CHECK(fetched >= 0 && fetched % 3 == 0);
    shmem_barrier_all();

    int left = (me + npes - 1) % npes;
    CHECK(f_word == (float)left + 0.5f);
    CHECK(d_word == (double)left + 0.25);
    CHECK(shmem_float_atomic_fetch(&f_word, me) == (float)left + 0.5f);
    shmem_barrier_all(); /* every PE checked its words before they change again */
    CHECK(shmem_float_atomic_swap(&f_word, 1.5f, me) == (float)left + 0.5f);
    CHECK(shmem_double_atomic_swap(&d_word, 2.5, right) == (double)me + 0.25);
    CHECK_EQ(nbi_word, 3);
    if (me == 0) {
        CHECK_EQ(c_i32, (int32_t)ITERS * npes);
        CHECK_EQ(c_u32, 2u * ITERS * npes);
        CHECK_EQ(c_i64, (int64_t)ITERS * npes);
        CHECK_EQ(c_u64, (uint64_t)ITERS * npes);
        CHECK_EQ(cas64, (int64_t)ITERS * npes);
        uint64_t want64 = 0;
        uint32_t want32 = 0;
        for (int p = 0; p < npes; p++) {
            want64 |= 1ULL << (p % 64);
            want32 |= 1U << (p % 31);
        }
        CHECK_EQ(bits64, want64);
        CHECK_EQ(bits32, want32);
        CHECK_EQ(swap_sum + swap_word, -1 + (int64_t)npes * (npes - 1) / 2);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_amo: every AMO type through the network OK on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
