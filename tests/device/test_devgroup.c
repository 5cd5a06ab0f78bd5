/* Warp and block forms of device put/get/put-with-signal, and many proxied commands in
 * flight, with emu kernels (shmemx_device.h). Same-node peers are reached directly
 * (the threads split the copy), others (SHOAL_NODE_MAP=pe, SHOAL_DEVICE_PROXY_ALL=1)
 * through the proxy; every phase asserts on data against values computed here:
 *   group:    a block of T threads (one full warp and a partial one) puts, to itself
 *             and to its right neighbour (so that 8 PEs on 2 cores stay quick),
 *             a block-form put, a warp-form put of each warp's slice (blocking and
 *             nbi, untyped and typed), then a block put-with-signal ADD; each
 *             receiver waits for both senders' signals and checks every byte; then
 *             block and warp gets back (blocking and nbi + quiet);
 *   inflight: one thread posts BURST contiguous put_nbi to the right neighbour (the
 *             proxy may merge them), puts that must not merge (sources apart; to
 *             the left neighbour in between; a second put over the first half of
 *             the last one, after a fence, which must win), then fence and a
 *             put-with-signal; the receiver waits for the signal and checks all of it
 *             (put-then-signal order); quiet completes everything. Where the right
 *             neighbour is behind the proxy, the ring's merged count must grow. */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "test_device.h"

#define T 36     /* kernel threads: one warp of 32 and one of 4 */
#define NB 4099  /* bytes of a block put: not a multiple of anything */
#define NW 515   /* bytes of a warp's put */
#define NL 24    /* longs of each warp's typed put */
#define BURST 64 /* contiguous put_nbi of the in-flight phase */
#define PIECE 24 /* bytes of each */
#define TRIES 20 /* rounds of the burst until the proxy has merged some */
#define MAX_PES 64
#define WARPS ((T + SHMEMX_DEV_EMU_WARP - 1) / SHMEMX_DEV_EMU_WARP)

struct sym {
    unsigned char *src;   /* [NB + WARPS * NW] this PE's payload */
    unsigned char *inb;   /* [np][NB]: block puts, by sender */
    unsigned char *inw;   /* [np][WARPS][NW]: warp puts */
    long *lsrc, *lin;     /* [WARPS][NL], [np][WARPS][NL]: typed warp puts */
    unsigned char *back;  /* [np][NB]: block gets */
    unsigned char *wback; /* [np][WARPS][NW]: warp gets */
    uint64_t *sig;        /* block put-with-signal ADDs, one per sender and round */
    unsigned char *fsrc;  /* [2 * BURST * PIECE] in-flight sources */
    unsigned char *fin;   /* [BURST * PIECE + tail] from the left neighbour */
    unsigned char *fleft; /* [BURST * PIECE] from the right neighbour */
    uint64_t *fsig;
};

#define FTAIL (3 * PIECE) /* the puts that must not merge, after the burst */

static struct sym s;
static int me, np, nq, tq[2],
        fq[2]; /* targets: this PE, the right; senders: this, the left */
static long errors;
static int round_no;

static unsigned char byte(int from, int r, size_t i)
{
    return (unsigned char)(from * 37 + r * 11 + i * 7 + (i >> 8));
}

static long lval(int from, int r, int w, int i)
{
    return (long)r * 1000003L + from * 10007L + w * 101L + i;
}

static void bad(void)
{
    __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
}

static void k_group(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    int r = round_no, w = t / SHMEMX_DEV_EMU_WARP, rank;
    unsigned char *src = shmemx_dev_ptr(s.src, me);
    long *lsrc = shmemx_dev_ptr(s.lsrc, me);
    /* Each thread fills its share; the group forms copy at once, so the whole block
     * waits for the filling first. */
    for (size_t i = (size_t)t; i < NB + WARPS * NW; i += T)
        src[i] = byte(me, r, i);
    for (int i = t; i < WARPS * NL; i += T)
        lsrc[i] = lval(me, r, i / NL, i % NL);
    shmemx_device_group_sync(0, "k_group");
    CHECK(shmemx_device_group(1, &rank, "test") ==
          (w < T / SHMEMX_DEV_EMU_WARP ? SHMEMX_DEV_EMU_WARP : T % SHMEMX_DEV_EMU_WARP));
    CHECK(rank == t % SHMEMX_DEV_EMU_WARP);
    for (int j = 0; j < nq; j++) {
        int q = tq[j];
        if (r % 2)
            shmemx_dev_putmem_block(s.inb + (size_t)me * NB, s.src, NB, q);
        else
            shmemx_dev_putmem_nbi_block(s.inb + (size_t)me * NB, s.src, NB, q);
        unsigned char *wd = s.inw + ((size_t)me * WARPS + (size_t)w) * NW;
        const unsigned char *ws = s.src + NB + (size_t)w * NW;
        if (r % 2)
            shmemx_dev_putmem_warp(wd, ws, NW, q);
        else
            shmemx_dev_putmem_nbi_warp(wd, ws, NW, q);
        long *ld = s.lin + ((size_t)me * WARPS + (size_t)w) * NL;
        if (r % 2)
            shmemx_dev_long_put_warp(ld, s.lsrc + (size_t)w * NL, NL, q);
        else
            shmemx_dev_long_put_nbi_block(s.lin + (size_t)me * WARPS * NL, s.lsrc,
                                          (size_t)WARPS * NL, q);
    }
    /* The signal guards the puts above: fence, then the last payload with it. */
    shmemx_dev_fence();
    for (int j = 0; j < nq; j++) {
        int q = tq[j];
        if (r % 2)
            shmemx_dev_putmem_signal_block(s.inb + (size_t)me * NB, s.src, NB, s.sig, 1,
                                           SHMEM_SIGNAL_ADD, q);
        else
            shmemx_dev_uint8_put_signal_nbi_block(s.inb + (size_t)me * NB, s.src, NB, s.sig,
                                                  1, SHMEM_SIGNAL_ADD, q);
    }
    shmemx_dev_signal_wait_until(s.sig, SHMEM_CMP_GE, (uint64_t)nq * (uint64_t)r);
    const unsigned char *inb = shmemx_dev_ptr(s.inb, me), *inw = shmemx_dev_ptr(s.inw, me);
    const long *lin = shmemx_dev_ptr(s.lin, me);
    for (int j = 0; j < nq; j++) {
        int from = fq[j];
        for (size_t i = (size_t)t; i < NB; i += T)
            if (inb[(size_t)from * NB + i] != byte(from, r, i))
                bad();
        for (size_t i = (size_t)t; i < (size_t)WARPS * NW; i += T)
            if (inw[(size_t)from * WARPS * NW + i] != byte(from, r, NB + i))
                bad();
        for (int i = t; i < WARPS * NL; i += T)
            if (lin[(size_t)from * WARPS * NL + (size_t)i] != lval(from, r, i / NL, i % NL))
                bad();
    }
}

/* Gets of what this PE put into every PE's inboxes in k_group. */
static void k_get(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    int r = round_no, w = t / SHMEMX_DEV_EMU_WARP;
    for (int j = 0; j < nq; j++) {
        int q = tq[j];
        unsigned char *wb = s.wback + ((size_t)q * WARPS + (size_t)w) * NW;
        const unsigned char *wf = s.inw + ((size_t)me * WARPS + (size_t)w) * NW;
        if (r % 2) {
            shmemx_dev_getmem_block(s.back + (size_t)q * NB, s.inb + (size_t)me * NB, NB, q);
            shmemx_dev_getmem_warp(wb, wf, NW, q);
        } else {
            shmemx_dev_uchar_get_nbi_block(s.back + (size_t)q * NB, s.inb + (size_t)me * NB,
                                           NB, q);
            shmemx_dev_getmem_nbi_warp(wb, wf, NW, q);
        }
    }
    shmemx_dev_quiet();
    shmemx_device_group_sync(0, "k_get"); /* every thread's gets are done */
    const unsigned char *back = shmemx_dev_ptr(s.back, me),
                        *wback = shmemx_dev_ptr(s.wback, me);
    for (int j = 0; j < nq; j++) {
        int q = tq[j];
        for (size_t i = (size_t)t; i < NB; i += T)
            if (back[(size_t)q * NB + i] != byte(me, r, i))
                bad();
        for (size_t i = (size_t)t; i < (size_t)WARPS * NW; i += T)
            if (wback[(size_t)q * WARPS * NW + i] != byte(me, r, NB + i))
                bad();
    }
}

static void k_inflight(int t, int nt, void *arg)
{
    (void)t, (void)nt, (void)arg;
    int r = round_no, right = (me + 1) % np, left = (me + np - 1) % np;
    unsigned char *src = shmemx_dev_ptr(s.fsrc, me);
    for (size_t i = 0; i < 2 * BURST * PIECE; i++)
        src[i] = byte(me, r, i);
    for (int k = 0; k < BURST; k++) /* neighbours in both ranges: may merge */
        shmemx_dev_putmem_nbi(s.fin + k * PIECE, s.fsrc + k * PIECE, PIECE, right);
    unsigned char *tail = s.fin + BURST * PIECE;
    /* Contiguous destinations, sources apart: must not merge. */
    shmemx_dev_putmem_nbi(tail, s.fsrc + BURST * PIECE, PIECE, right);
    shmemx_dev_putmem_nbi(s.fleft, s.fsrc, PIECE, left); /* another PE between */
    shmemx_dev_putmem_nbi(tail + PIECE, s.fsrc + BURST * PIECE + 2 * PIECE, PIECE, right);
    shmemx_dev_putmem_nbi(tail + 2 * PIECE, s.fsrc + BURST * PIECE + PIECE, PIECE, right);
    shmemx_dev_fence();
    /* Over the first half of the last piece, after the fence: it must win. */
    shmemx_dev_putmem_nbi(tail + 2 * PIECE, s.fsrc + BURST * PIECE + 3 * PIECE, PIECE / 2,
                          right);
    shmemx_dev_fence();
    shmemx_dev_putmem_signal_nbi(s.fin, s.fsrc, PIECE, s.fsig, (uint64_t)r, SHMEM_SIGNAL_SET,
                                 right);
    shmemx_dev_quiet();
    shmemx_dev_signal_wait_until(s.fsig, SHMEM_CMP_GE, (uint64_t)r);
    const unsigned char *in = shmemx_dev_ptr(s.fin, me);
    for (size_t i = 0; i < BURST * PIECE; i++)
        if (in[i] != byte(left, r, i))
            bad();
    static const int from[3] = { 0, 2, 1 }; /* which source piece each tail piece holds */
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < PIECE; i++) {
            size_t at = BURST * PIECE + (size_t)from[k] * PIECE + i;
            if (k == 2 && i < PIECE / 2)
                at = BURST * PIECE + 3 * PIECE + i;
            if (in[BURST * PIECE + (size_t)k * PIECE + i] != byte(left, r, at))
                bad();
        }
}

static uint64_t count(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    np = shmem_n_pes();
    CHECK(np <= MAX_PES);
    nq = np > 1 ? 2 : 1;
    tq[0] = fq[0] = me;
    tq[1] = (me + 1) % np;
    fq[1] = (me + np - 1) % np;
    s.src = shmem_space_malloc(SHMEM_SPACE_DEVICE, NB + WARPS * NW);
    s.inb = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * NB);
    s.inw = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * WARPS * NW);
    s.lsrc = shmem_space_alloc(SHMEM_SPACE_DEVICE, WARPS * NL, sizeof(long));
    s.lin = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)np * WARPS * NL, sizeof(long));
    s.back = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * NB);
    s.wback = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)np * WARPS * NW);
    s.sig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    s.fsrc = shmem_space_malloc(SHMEM_SPACE_DEVICE, 2 * BURST * PIECE);
    s.fin = shmem_space_malloc(SHMEM_SPACE_DEVICE, BURST * PIECE + FTAIL);
    s.fleft = shmem_space_malloc(SHMEM_SPACE_DEVICE, PIECE);
    s.fsig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    CHECK(s.src && s.inb && s.inw && s.lsrc && s.lin && s.back && s.wback && s.sig &&
          s.fsrc && s.fin && s.fleft && s.fsig);
    struct shmemx_dev_state *st = shmemx_device_state();
    struct shmemx_dev_ring *ring = st->ring;

    for (round_no = 1; round_no <= 2; round_no++) {
        shmemx_device_launch(k_group, T, NULL);
        shmem_barrier_all();
        CHECK_EQ(errors, 0);
        shmemx_device_launch(k_get, T, NULL);
        shmem_barrier_all();
        CHECK_EQ(errors, 0);
    }

    /* Many commands in flight; where the right neighbour is behind the proxy, its
     * bursts must have been merged at least once in TRIES rounds (the producer posts
     * far faster than the proxy issues). */
    int proxied = np > 1 && !shmemx_dev_ptr(s.fin, (me + 1) % np);
    uint64_t merged0 = ring ? count(&ring->merged) : 0;
    for (round_no = 3; round_no < 3 + TRIES; round_no++) {
        shmemx_device_launch(k_inflight, 1, NULL);
        shmem_barrier_all();
        CHECK_EQ(errors, 0);
        static int merged, all;
        merged = !proxied || count(&ring->merged) > merged0;
        CHECK_EQ(shmem_int_min_reduce(SHMEM_TEAM_WORLD, &all, &merged, 1), 0);
        if (all)
            break;
    }
    CHECK_WHILE(round_no < 3 + TRIES, "the proxy merged none of %d rounds of %d puts", TRIES,
                BURST);
    if (ring && me == 0)
        printf("test_devgroup: proxy took %llu batches, merged %llu puts\n",
               (unsigned long long)count(&ring->batches),
               (unsigned long long)count(&ring->merged));
    tdev_passed("device.devgroup");
    return 0;
}
