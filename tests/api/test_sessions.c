/* Sessions that change how operations travel (docs/extensions.md): bundled puts,
 * the put-with-signal transform, single-transmit AMOs. Every PE writes to every
 * other PE (and itself) inside sessions and checks what arrived against what its
 * peers must have sent. Over the network each pattern exercises a flush: another
 * PE, a full bundle, pieces that overlap, a fence, a get, a wait, the stop. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define MAXPES 16
#define SLOTS 64   /* elements each PE owns in a peer's arrays */
#define BIG 3000   /* bytes: too large to join a bundle */
#define CHUNKS 100 /* put-with-signal operations per peer: more than are held back */

static long grid[MAXPES][SLOTS]; /* grid[src][i]: written by PE src */
static long strided[MAXPES][2 * SLOTS];
static char big[MAXPES][BIG];
static long flag[MAXPES];
static long chunks[MAXPES][CHUNKS];
static uint64_t chunk_sig[MAXPES][CHUNKS];
static uint64_t arrivals;
static long counter[MAXPES];
static unsigned long bits;
static long mine;

static long value(int src, int dst, int i, int round)
{
    return ((src * 64L + dst) << 20) + i * 4 + round;
}

static void bundled_puts(int me, int npes, shmem_ctx_t ctx)
{
    memset(flag, 0, sizeof flag);
    memset(strided, 0, sizeof strided);
    shmem_barrier_all();
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT);
    for (int i = 0; i < SLOTS; i++)
        for (int pe = 0; pe < npes; pe++) {
            /* Adjacent elements, one at a time, blocking, from the stack. */
            long v = value(me, pe, i, 0);
            shmem_ctx_long_put(ctx, &grid[me][i], &v, 1, pe);
            v = -1; /* the put copied it: this must not travel */
            /* Every other element: separate targets of one bundled write. */
            shmem_ctx_long_p(ctx, &strided[me][2 * i], value(me, pe, i, 1), pe);
        }
    /* Overlapping puts ordered by a fence, and a size that does not join. */
    for (int pe = 0; pe < npes; pe++) {
        char b[BIG];
        memset(b, 'a' + (me + pe) % 26, sizeof b);
        shmem_ctx_putmem_nbi(ctx, big[me], b, 100, pe);
        shmem_ctx_fence(ctx);
        shmem_ctx_putmem(ctx, big[me], b, BIG, pe);
        memset(b, 0, sizeof b);
    }
    shmem_ctx_quiet(ctx);
    /* A get after quiet sees this PE's own puts. */
    long back = 0;
    shmem_ctx_long_get(ctx, &back, &grid[me][SLOTS - 1], 1, (me + 1) % npes);
    CHECK_EQ(back, value(me, (me + 1) % npes, SLOTS - 1, 0));
    /* A wait inside the session: the flag after the fence must get out while this
     * PE waits, or the left neighbour never sees it. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    shmem_ctx_long_p(ctx, &strided[me][1], 77, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, &flag[me], 1, right);
    shmem_long_wait_until(&flag[left], SHMEM_CMP_EQ, 1);
    CHECK_EQ(strided[left][1], 77);
    shmemx_ctx_session_stop(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int src = 0; src < npes; src++) {
        for (int i = 0; i < SLOTS; i++) {
            CHECK_EQ(grid[src][i], value(src, me, i, 0));
            CHECK_EQ(strided[src][2 * i], value(src, me, i, 1));
        }
        for (int k = 0; k < BIG; k++)
            CHECK_EQ(big[src][k], 'a' + (src + me) % 26);
    }
}

/* Each PE sends CHUNKS put-with-signal to every PE: a SET per chunk and an ADD on
 * one word per arrival; the payload must be there once its signal is. */
static void put_with_signal(int me, int npes, shmem_ctx_t ctx)
{
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PWS);
    for (int i = 0; i < CHUNKS; i++)
        for (int pe = 0; pe < npes; pe++) {
            long v = value(me, pe, i, 2);
            if (i % 2)
                shmem_ctx_long_put_signal_nbi(ctx, &chunks[me][i], &v, 1, &chunk_sig[me][i],
                                              (uint64_t)i + 1, SHMEM_SIGNAL_SET, pe);
            else
                shmem_ctx_long_put_signal(ctx, &chunks[me][i], &v, 1, &arrivals, 1,
                                          SHMEM_SIGNAL_ADD, pe);
            if (i % 16 == 0 && pe == 0)
                shmem_ctx_quiet(ctx); /* now and then: a flush in the middle */
        }
    /* Waited for inside the session: held-back signals must get out meanwhile. */
    shmem_signal_wait_until(&arrivals, SHMEM_CMP_EQ, (uint64_t)npes * (CHUNKS / 2));
    shmemx_ctx_session_stop(ctx);
    for (int src = 0; src < npes; src++)
        for (int i = 0; i < CHUNKS; i++) {
            if (i % 2)
                shmem_signal_wait_until(&chunk_sig[src][i], SHMEM_CMP_EQ, (uint64_t)i + 1);
            CHECK_EQ(chunks[src][i], value(src, me, i, 2));
        }
    shmem_barrier_all();
}

/* Single-transmit AMOs: adds, bitwise ORs and sets to every PE; fetching AMOs in
 * the same session stay reliable; a quiet inside does not wait for them; after the
 * stop (and the barrier) all have landed on this machine's reliable transports. */
static void single_transmit(int me, int npes, shmem_ctx_t ctx)
{
    const int rounds = 40;
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO);
    for (int r = 0; r < rounds; r++)
        for (int pe = 0; pe < npes; pe++) {
            shmem_ctx_long_atomic_add(ctx, &counter[me], r, pe);
            shmem_ctx_ulong_atomic_or(ctx, &bits, 1UL << (me % 64), pe);
            if (r % 10 == 0)
                shmem_ctx_quiet(ctx);
        }
    /* This PE's own word: applied before the call returns, as always. */
    shmem_ctx_long_atomic_set(ctx, &mine, 5, me);
    CHECK_EQ(mine, 5);
    long before = shmem_ctx_long_atomic_fetch_inc(ctx, &mine, me);
    CHECK_EQ(before, 5);
    shmemx_ctx_session_stop(ctx);
    shmem_barrier_all();
    unsigned long want_bits = 0;
    for (int src = 0; src < npes; src++) {
        CHECK_EQ(counter[src], (long)rounds * (rounds - 1) / 2);
        want_bits |= 1UL << (src % 64);
    }
    CHECK_EQ(bits, want_bits);
    CHECK_EQ(mine, 6);
    shmem_barrier_all();
}

/* Inside a single-transmit session, quiet and fence still cover the AMOs before
 * them: each PE updates its right neighbour's words (runs of one operation on one
 * word, which fold into one message, broken by other operations and widths), then
 * quiet or fence, then a put of a flag; the neighbour, once it sees the flag, must
 * find every update applied, before the session stops. */
#define SPREAD 256 /* words updated one message each: a long queue ahead of the flag */
static long qsum, fsum, spread[SPREAD];
static unsigned long mixed;
static int narrow;
static long qflag, fflag;

static void single_transmit_ordering(int me, int npes, shmem_ctx_t ctx)
{
    const int k = 50;
    int right = (me + 1) % npes;
    qsum = fsum = mixed = qflag = fflag = 0;
    narrow = 0;
    memset(spread, 0, sizeof spread);
    shmem_barrier_all();
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO);
    for (int i = 1; i <= k; i++)
        shmem_ctx_long_atomic_add(ctx, &qsum, i, right);
    shmem_ctx_ulong_atomic_add(ctx, &mixed, 3, right);
    shmem_ctx_ulong_atomic_add(ctx, &mixed, 4, right);
    shmem_ctx_ulong_atomic_set(ctx, &mixed, 100, right); /* the adds go first */
    shmem_ctx_ulong_atomic_set(ctx, &mixed, 200, right);
    shmem_ctx_ulong_atomic_xor(ctx, &mixed, 5, right);
    shmem_ctx_ulong_atomic_xor(ctx, &mixed, 5, right);
    shmem_ctx_ulong_atomic_add(ctx, &mixed, 7, right); /* 207 */
    for (int i = 0; i < k; i++)
        shmem_ctx_int_atomic_add(ctx, &narrow, -3, right);
    for (int i = 0; i < SPREAD; i++)
        shmem_ctx_long_atomic_add(ctx, &spread[i], i, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_long_p(ctx, &qflag, 1, right);
    for (int i = 1; i <= k; i++)
        shmem_ctx_long_atomic_add(ctx, &fsum, 2 * i, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_long_p(ctx, &fflag, 1, right);
    shmem_long_wait_until(&qflag, SHMEM_CMP_EQ, 1);
    CHECK_EQ(qsum, (long)k * (k + 1) / 2);
    CHECK_EQ(mixed, 207UL);
    CHECK_EQ(narrow, -3 * k);
    for (int i = 0; i < SPREAD; i++)
        CHECK_EQ(spread[i], (long)i);
    shmem_long_wait_until(&fflag, SHMEM_CMP_EQ, 1);
    CHECK_EQ(fsum, (long)k * (k + 1));
    shmemx_ctx_session_stop(ctx);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > MAXPES) {
        if (me == 0)
            printf("sessions test: at most %d PEs, skipped\n", MAXPES);
        shmem_finalize();
        return 0;
    }
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    bundled_puts(me, npes, ctx);
    bundled_puts(me, npes, SHMEM_CTX_DEFAULT);
    put_with_signal(me, npes, ctx);
    single_transmit(me, npes, ctx);
    memset(counter, 0, sizeof counter);
    bits = 0;
    shmem_barrier_all();
    single_transmit(me, npes, SHMEM_CTX_DEFAULT);
    single_transmit_ordering(me, npes, ctx);
    single_transmit_ordering(me, npes, SHMEM_CTX_DEFAULT);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("sessions (bundles, put-with-signal transform, single-transmit AMOs, "
               "their quiet and fence): ok at %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
