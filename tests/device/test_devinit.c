/* Device-initiated communication (shmemx_device.h) with emu kernels: each phase is a
 * kernel that emu runs on T threads per PE and that touches device memory only
 * through the device API (shmemx_dev_ptr included). Peers on this node are reached
 * directly, others (SHOAL_NODE_MAP=pe, or SHOAL_DEVICE_PROXY_ALL=1) through the proxy
 * thread; every phase asserts on data, and on order where the API promises one:
 *   rma:     put/put_nbi to every PE, then fence (even threads) or quiet (odd ones),
 *            then a flag; every receiver waits for the flags and checks the payloads;
 *            64 KiB put_nbi blocks completed by quiet alone; get/get_nbi/g back;
 *   amo:     fetch_add/add/inc to PE 0 (exact total), compare_swap (one winner),
 *            or (every bit), swap/set/fetch of doubles; put_signal_nbi ADDs from
 *            every PE, PE 0's own included, on one word of PE 0 (exact total);
 *   signal:  put_signal ping-pong between PE pairs, blocking and nbi, SET and ADD;
 *   full:    threads flood the next PE with p; with a small ring (SHOAL_DEVICE_RING)
 *            producers must have waited for slots, and nothing is lost;
 *   asleep:  an AMO issued once the proxy sleeps wakes it and completes.
 * Mode "die": PE n-1 ends (status 7) while the others' kernels have commands to it in
 * flight: the job must end promptly, naming it. Mode "host_src": a kernel's put from
 * host memory is refused with a message; "single": a job that needs the proxy thread
 * without SHMEM_THREAD_MULTIPLE is refused at shmemx_device_state. */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "test_device.h"

#define T 4      /* kernel threads */
#define B 16     /* longs per (sender, thread) block */
#define BIG 8192 /* longs per big block (64 KiB) */
#define AMO_K                                                                                \
    2 /* AMOs of each kind per even thread (each a locked round trip across nodes) */
#define SIG_K                                                                                \
    4 /* put-with-signal ADDs per thread to PE 0 (each a locked round trip across nodes) */
#define FLOOD 64  /* p per thread of the ring-full phase */
#define ROUNDS 10 /* ping-pong rounds */
#define MAX_PES 64

struct sym {
    long *inbox;         /* [np][T][B] */
    long *src;           /* [np][T][B] */
    long *big_in;        /* [T][BIG], from the left neighbour */
    long *big_src;       /* [T][BIG] */
    long *back;          /* [np][T][B]: gets */
    uint64_t *flags;     /* [np][T] */
    uint64_t *big_flags; /* [T] */
    long *counter, *winners;
    int *cas;
    unsigned long *bits;
    double *dbl;
    long *pp; /* [B] ping-pong payload */
    uint64_t *sig;
    uint64_t *sigsum; /* PE 0's: every PE's put-with-signal ADDs */
    long *flood;      /* [T][FLOOD] */
    long *naps;
};

static struct sym s;
static int me, np;
static long errors; /* kernels count what they find wrong; checked on the host */
static uint64_t round_no;

static long val(int from, int t, int i, uint64_t r)
{
    return (long)r * 1000003L + from * 10007L + t * 101L + i;
}

static void bad(void)
{
    __atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
}

static void k_rma(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    uint64_t r = round_no;
    long *src = shmemx_dev_ptr(s.src, me); /* this PE's device memory, for the kernel */
    for (int q = 0; q < np; q++) {
        long *mine = src + ((size_t)q * T + (size_t)t) * B;
        for (int i = 0; i < B; i++)
            mine[i] = val(me, t, i, r);
        long *dst = s.inbox + ((size_t)me * T + (size_t)t) * B;
        long *from = s.src + ((size_t)q * T + (size_t)t) * B;
        if (t % 2)
            shmemx_dev_long_put_nbi(dst, from, B, q);
        else
            shmemx_dev_long_put(dst, from, B, q);
    }
    if (t % 2)
        shmemx_dev_quiet();
    else
        shmemx_dev_fence();
    for (int q = 0; q < np; q++)
        shmemx_dev_uint64_p(&s.flags[me * T + t], r, q);
    /* Receive: each sender's flag, then its payload, which must be there already. */
    long *inbox = shmemx_dev_ptr(s.inbox, me);
    for (int from = 0; from < np; from++) {
        shmemx_dev_uint64_wait_until(&s.flags[from * T + t], SHMEM_CMP_GE, r);
        for (int i = 0; i < B; i++)
            if (inbox[((size_t)from * T + (size_t)t) * B + (size_t)i] != val(from, t, i, r))
                bad();
    }
}

/* 64 KiB blocks to the right neighbour, completed by quiet alone, then a flag. */
static void k_big(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    uint64_t r = round_no;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    long *src = shmemx_dev_ptr(s.big_src, me);
    for (int i = 0; i < BIG; i++)
        src[(size_t)t * BIG + (size_t)i] = val(me, t, i, r);
    for (int k = 0; k < 4; k++) /* the same block four times: all pending at once */
        shmemx_dev_long_put_nbi(s.big_in + (size_t)t * BIG, s.big_src + (size_t)t * BIG, BIG,
                                right);
    shmemx_dev_quiet();
    shmemx_dev_uint64_p(&s.big_flags[t], r, right);
    shmemx_dev_uint64_wait_until(&s.big_flags[t], SHMEM_CMP_GE, r);
    long *in = shmemx_dev_ptr(s.big_in, me);
    for (int i = 0; i < BIG; i++)
        if (in[(size_t)t * BIG + (size_t)i] != val(left, t, i, r))
            bad();
}

/* Gets of what this PE put into every PE's inbox in k_rma. */
static void k_get(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    uint64_t r = round_no;
    for (int q = 0; q < np; q++) {
        long *from = s.inbox + ((size_t)me * T + (size_t)t) * B;
        long *into = s.back + ((size_t)q * T + (size_t)t) * B;
        if (t % 2)
            shmemx_dev_long_get_nbi(into, from, B, q);
        else
            shmemx_dev_long_get(into, from, B, q);
        if (shmemx_dev_long_g(from + 3, q) != val(me, t, 3, r))
            bad();
    }
    shmemx_dev_quiet();
    long *back = shmemx_dev_ptr(s.back, me);
    for (int q = 0; q < np; q++)
        for (int i = 0; i < B; i++)
            if (back[((size_t)q * T + (size_t)t) * B + (size_t)i] != val(me, t, i, r))
                bad();
}

static void k_amo(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    for (int k = 0; k < AMO_K && t % 2 == 0; k++) {
        shmemx_dev_long_atomic_fetch_add(s.counter, 2, 0);
        shmemx_dev_long_atomic_add(s.counter, 1, 0);
        shmemx_dev_long_atomic_inc(s.counter, 0);
    }
    if (shmemx_dev_int_atomic_compare_swap(s.cas, 0, me * T + t + 1, 0) == 0)
        shmemx_dev_long_atomic_inc(s.winners, 0);
    shmemx_dev_ulong_atomic_fetch_or(s.bits, 1UL << (me % 64), 0);
    /* Same-node signals and other nodes' (through their proxies) meet on one word. */
    for (int k = 0; k < SIG_K; k++) {
        size_t at = ((size_t)me * T + (size_t)t) * B + (size_t)k % B;
        shmemx_dev_long_put_signal_nbi(s.back + at, s.src + at, 1, s.sigsum, 1,
                                       SHMEM_SIGNAL_ADD, 0);
    }
    /* Every PE's thread 0 sets, swaps and fetches its own double on its right. */
    if (t == 0) {
        int right = (me + 1) % np;
        shmemx_dev_double_atomic_set(s.dbl, 0.5 + me, right);
        double old = shmemx_dev_double_atomic_swap(s.dbl + 1, 2.25 * me, right);
        (void)old;
        if (shmemx_dev_double_atomic_fetch(s.dbl, right) != 0.5 + me)
            bad();
    }
    shmemx_dev_quiet();
}

/* Pairs (2k, 2k+1) bounce a payload with a signal; a PE without a partner sends to
 * itself. The r-th message received leaves the signal at r: SET r on odd rounds
 * (blocking), ADD 1 on even ones (nbi). */
static void send(int to, uint64_t r)
{
    long *src = shmemx_dev_ptr(s.src, me);
    shmemx_dev_quiet(); /* the last round's nbi source may be rewritten only now */
    for (int i = 0; i < B; i++)
        src[i] = val(me, 0, i, r);
    if (r % 2)
        shmemx_dev_long_put_signal(s.pp, s.src, B, s.sig, r, SHMEM_SIGNAL_SET, to);
    else
        shmemx_dev_long_put_signal_nbi(s.pp, s.src, B, s.sig, 1, SHMEM_SIGNAL_ADD, to);
}

static void receive(int from, uint64_t r)
{
    long *pp = shmemx_dev_ptr(s.pp, me);
    if (shmemx_dev_signal_wait_until(s.sig, SHMEM_CMP_GE, r) != r)
        bad();
    for (int i = 0; i < B; i++)
        if (pp[i] != val(from, 0, i, r))
            bad();
}

static void k_ping(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    if (t != 0)
        return;
    int partner = (me ^ 1) < np ? me ^ 1 : me;
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        if (me % 2 == 0 || partner == me) {
            send(partner, r);
            receive(partner, r);
        } else {
            receive(partner, r);
            send(partner, r);
        }
    }
    if (shmemx_dev_signal_fetch(s.sig) != ROUNDS)
        bad();
}

static void k_flood(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    int right = (me + 1) % np;
    for (int i = 0; i < FLOOD; i++)
        shmemx_dev_long_p(&s.flood[t * FLOOD + i], val(me, t, i, round_no), right);
    shmemx_dev_quiet();
}

static void k_asleep(int t, int nt, void *arg)
{
    (void)nt;
    if (t != 0)
        return;
    struct shmemx_dev_ring *r = shmemx_device_state()->ring;
    /* Wait (bounded) for the proxy to fall asleep; arg reports whether it did. */
    int *slept = arg;
    for (int i = 0; i < 5000 && !__atomic_load_n(&r->asleep, __ATOMIC_ACQUIRE); i++)
        usleep(1000);
    *slept = __atomic_load_n(&r->asleep, __ATOMIC_ACQUIRE) != 0;
    /* With a proxy, every AMO takes it, this PE's own too. */
    if (shmemx_dev_long_atomic_fetch_add(s.naps, 1, me) != 0)
        bad();
}

static void k_die(int t, int nt, void *arg)
{
    (void)nt, (void)arg;
    int last = np - 1;
    if (me == last) {
        if (t == 0) {
            shmemx_dev_uint64_wait_until(&s.flags[0], SHMEM_CMP_GE, 1);
            fprintf(stderr, "PE %d: ending with status 7, commands to it in flight\n", me);
            _exit(7);
        }
        return;
    }
    if (t == 0)
        shmemx_dev_uint64_p(&s.flags[0], 1, last);
    for (long k = 0; k < 1000000; k++) {
        shmemx_dev_long_put_nbi(s.big_in + (size_t)t * BIG, s.big_src + (size_t)t * BIG, BIG,
                                last);
        if (k % 8 == 7)
            shmemx_dev_quiet();
    }
    bad(); /* never reached: the job ends first */
}

/* Misuse: a host buffer as the source of a device put. */
static void k_host_src(int t, int nt, void *arg)
{
    (void)nt;
    if (t == 0)
        shmemx_dev_putmem(s.inbox, arg, 8, 0);
}

static void alloc_all(void)
{
    size_t blk = (size_t)np * T * B * sizeof(long);
    s.inbox = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, blk);
    s.src = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, blk);
    s.back = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, blk);
    s.big_in = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)T * BIG, sizeof(long));
    s.big_src = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)T * BIG, sizeof(long));
    s.flags = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)np * T, sizeof(uint64_t));
    s.big_flags = shmem_space_alloc(SHMEM_SPACE_DEVICE, T, sizeof(uint64_t));
    s.counter = shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(long));
    s.winners = s.counter + 1;
    s.cas = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(int));
    s.bits = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(unsigned long));
    s.dbl = shmem_space_alloc(SHMEM_SPACE_DEVICE, 2, sizeof(double));
    s.pp = shmem_space_alloc(SHMEM_SPACE_DEVICE, B, sizeof(long));
    s.sig = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    s.sigsum = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(uint64_t));
    s.flood = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)T * FLOOD, sizeof(long));
    s.naps = shmem_space_alloc(SHMEM_SPACE_DEVICE, 1, sizeof(long));
    CHECK(s.naps && s.inbox && s.src && s.back && s.big_in && s.big_src && s.flags &&
          s.big_flags && s.counter && s.cas && s.bits && s.dbl && s.pp && s.sig && s.sigsum &&
          s.flood);
}

/* The proxy thread counts while the host reads. */
static uint64_t count(const uint64_t *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}

static long dev_long(const long *p)
{
    long v;
    tdev_d2h(&v, p, sizeof v);
    return v;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided;
    /* "single": a job that needs the proxy but did not ask for threads is refused. */
    if (strcmp(mode, "single") == 0)
        shmem_init();
    else
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    np = shmem_n_pes();
    CHECK(np <= MAX_PES);
    alloc_all();
    struct shmemx_dev_state *st = shmemx_device_state();
    struct shmemx_dev_ring *ring = st->ring;
    CHECK(strcmp(mode, "single") != 0);
    if (strcmp(mode, "host_src") == 0) {
        long host[1] = { 1 };
        shmemx_device_launch(k_host_src, 1, host);
        CHECK(!"a host source should have been refused");
    }
    if (strcmp(mode, "die") == 0) {
        CHECK(np >= 2);
        shmem_barrier_all();
        shmemx_device_launch(k_die, T, NULL);
        CHECK(!"the job should have ended");
    }

    for (round_no = 1; round_no <= 2; round_no++) {
        shmemx_device_launch(k_rma, T, NULL);
        shmem_barrier_all();
        shmemx_device_launch(k_get, T, NULL);
        shmemx_device_launch(k_big, T, NULL);
        shmem_barrier_all();
        CHECK_EQ(errors, 0);
    }
    /* The host reads what the kernels wrote, through the device copy routines. */
    for (int from = 0; from < np; from++)
        CHECK_EQ(dev_long(s.inbox + ((size_t)from * T + 2) * B + 5), val(from, 2, 5, 2));

    shmemx_device_launch(k_amo, T, NULL);
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(dev_long(s.counter), (long)np * (T / 2) * AMO_K * 4);
        CHECK_EQ(dev_long(s.winners), 1);
        uint64_t sigsum;
        tdev_d2h(&sigsum, s.sigsum, sizeof sigsum);
        CHECK_EQ(sigsum, (uint64_t)np * T * SIG_K);
        unsigned long bits;
        tdev_d2h(&bits, s.bits, sizeof bits);
        CHECK_EQ(bits, np >= 64 ? ~0UL : (1UL << np) - 1);
    }
    double d[2];
    tdev_d2h(d, s.dbl, sizeof d);
    int left = (me + np - 1) % np;
    CHECK(d[0] == 0.5 + left && d[1] == 2.25 * left);

    shmemx_device_launch(k_ping, T, NULL);
    CHECK_EQ(errors, 0);
    shmem_barrier_all();

    round_no = 3;
    uint64_t stalls0 = ring ? count(&ring->stalls) : 0;
    shmemx_device_launch(k_flood, T, NULL);
    shmem_barrier_all();
    for (int t = 0; t < T; t++)
        for (int i = 0; i < FLOOD; i += 7)
            CHECK_EQ_WHILE(dev_long(s.flood + t * FLOOD + i), val(left, t, i, 3),
                           "checking the flood of thread %d, p %d", t, i);
    /* A small ring must have filled: producers waited for their slots. */
    if (ring && ring->slots <= 8)
        CHECK(count(&ring->stalls) > stalls0);
    shmem_barrier_all(); /* every PE has checked before the next phase writes */

    if (ring) {
        uint64_t wakes0 = count(&ring->wakes);
        int slept = 0;
        shmemx_device_launch(k_asleep, T, &slept);
        shmem_barrier_all();
        CHECK_EQ(dev_long(s.naps), 1);
        if (slept)
            CHECK(count(&ring->wakes) > wakes0);
        if (me == 0)
            printf("test_devinit: proxy %s (ring of %u, %llu stalls, %llu wakes)\n",
                   slept ? "slept and woke" : "never slept", ring->slots,
                   (unsigned long long)count(&ring->stalls),
                   (unsigned long long)count(&ring->wakes));
    }
    CHECK_EQ(errors, 0);
    tdev_passed("device.devinit");
    return 0;
}
