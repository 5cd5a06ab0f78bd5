/* Put-with-signal and the signal routines.
 *   1. shmem_[ctx_]TYPENAME_put_signal[_nbi] for every type of SHMEM_RMA_TYPES,
 *      shmem_[ctx_]putSIZE_signal[_nbi] for every SIZE, shmem_[ctx_]putmem_signal[_nbi]
 *      and the C11 shmem_put_signal[_nbi], with SHMEM_SIGNAL_SET and SHMEM_SIGNAL_ADD:
 *      each PE sends to (me+1)%n, then waits on its own signal (no barrier) and checks
 *      the payload is all there (payload before signal) and the signal value.
 *   2. shmem_signal_set / shmem_signal_add (1.6), with and without ctx (named and C11
 *      generic forms); shmem_signal_fetch; shmem_signal_wait_until with every
 *      comparison, which must return the value that satisfied it.
 *   3. A ring pipeline: PE i sends a payload to i+1 with put_signal ADD 1000 times,
 *      increasing values and varying lengths (up to 128 KiB), double-buffered with an
 *      acknowledgement signal; the receiver checks each payload in full. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define BASE 1000000u /* every signal word starts here */
#define NSLOT 512     /* one signal word and one payload region per exchange */
#define HALF 64       /* payload bytes per half region */
#define REGB (2 * HALF)

static uint64_t sig_static[NSLOT]; /* .bss, set to BASE before the first barrier */
static uint64_t *sig_heap;         /* NSLOT words on the symmetric heap */
static unsigned char *pay;         /* NSLOT * REGB payload bytes on the heap */
static int next_slot;              /* advanced identically on every PE */

static unsigned char pat(int pe, int slot, size_t i)
{
    return (unsigned char)(1 + (unsigned)(pe * 53 + slot * 29 + (int)i * 7) % 251);
}

/* ---- 1. put_signal families -------------------------------------------------------- */

/* variant: bit 0 = ctx_ form, bit 1 = _nbi form. */
typedef void (*put_signal_fn)(int variant, void *d, const void *s, size_t n, uint64_t *sig,
                              uint64_t v, int op, int pe);

#define PS_CALL(variant, NAME, ...)                                                          \
    do {                                                                                     \
        switch (variant) {                                                                   \
        case 0: shmem_##NAME##_signal(__VA_ARGS__); break;                                   \
        case 1: shmem_ctx_##NAME##_signal(SHMEM_CTX_DEFAULT, __VA_ARGS__); break;            \
        case 2: shmem_##NAME##_signal_nbi(__VA_ARGS__); break;                               \
        default: shmem_ctx_##NAME##_signal_nbi(SHMEM_CTX_DEFAULT, __VA_ARGS__); break;       \
        }                                                                                    \
    } while (0)

#define DEF_TYPED(T, N)                                                                      \
    static void ps_##N(int variant, void *d, const void *s, size_t n, uint64_t *sig,         \
                       uint64_t v, int op, int pe)                                           \
    {                                                                                        \
        PS_CALL(variant, N##_put, (T *)d, (const T *)s, n, sig, v, op, pe);                  \
    }
SHMEM_RMA_TYPES(DEF_TYPED)

#define DEF_SIZED(S)                                                                         \
    static void ps_##S(int variant, void *d, const void *s, size_t n, uint64_t *sig,         \
                       uint64_t v, int op, int pe)                                           \
    {                                                                                        \
        PS_CALL(variant, put##S, d, s, n, sig, v, op, pe);                                   \
    }
SHMEM_RMA_SIZES(DEF_SIZED)
DEF_SIZED(mem)

/* The C11 generic names, on long and double. */
#define DEF_GENERIC(T)                                                                       \
    static void ps_generic_##T(int variant, void *d, const void *s, size_t n, uint64_t *sig, \
                               uint64_t v, int op, int pe)                                   \
    {                                                                                        \
        T *dt = d;                                                                           \
        const T *st = s;                                                                     \
        switch (variant) {                                                                   \
        case 0: shmem_put_signal(dt, st, n, sig, v, op, pe); break;                          \
        case 1: shmem_put_signal(SHMEM_CTX_DEFAULT, dt, st, n, sig, v, op, pe); break;       \
        case 2: shmem_put_signal_nbi(dt, st, n, sig, v, op, pe); break;                      \
        default: shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, dt, st, n, sig, v, op, pe); break;  \
        }                                                                                    \
    }
DEF_GENERIC(long)
DEF_GENERIC(double)

struct family {
    const char *name;
    size_t esize;
    put_signal_fn fn;
};
#define LIST_TYPED(T, N) { "shmem_" #N "_put_signal", sizeof(T), ps_##N },
#define LIST_SIZED(S) { "shmem_put" #S "_signal", (S) / 8, ps_##S },
static const struct family families[] = {
    SHMEM_RMA_TYPES(LIST_TYPED)
            SHMEM_RMA_SIZES(LIST_SIZED){ "shmem_putmem_signal", 1, ps_mem },
    { "C11 shmem_put_signal(long)", sizeof(long), ps_generic_long },
    { "C11 shmem_put_signal(double)", sizeof(double), ps_generic_double },
};
#define NFAMILIES (sizeof families / sizeof families[0])

static void check_payload(const char *name, int variant, int slot, const unsigned char *got,
                          size_t len, size_t off)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char want = pat(left, slot, off + i);
        if (got[i] != want)
            fprintf(stderr,
                    "PE %d: %s variant %d slot %d: payload byte %zu is 0x%02x, "
                    "expected 0x%02x\n",
                    me, name, variant, slot, off + i, got[i], want);
        CHECK_EQ(got[i], want);
    }
}

static void quiet_variant(int variant)
{
    if (variant & 1)
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    else
        shmem_quiet();
}

/* One exchange per variant (plain, ctx_, _nbi, ctx_ _nbi):
 *   SET: one put_signal of HALF bytes, signal set to a value naming the sender;
 *   ADD: two put_signals (both halves), adding sender+1 and 100 to BASE. */
static void run_family(const struct family *f)
{
    const size_t n = HALF / f->esize; /* elements per half */
    unsigned char src[REGB];
    for (int variant = 0; variant < 4; variant++) {
        for (int op = 0; op < 2; op++) {
            const int sig_op = op ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
            const int slot = next_slot++;
            CHECK(slot < NSLOT);
            /* Static signal words for the blocking forms, heap ones for _nbi. */
            uint64_t *sig = (variant & 2) ? &sig_heap[slot] : &sig_static[slot];
            unsigned char *dst = pay + (size_t)slot * REGB;
            for (size_t i = 0; i < REGB; i++)
                src[i] = pat(me, slot, i);

            uint64_t want;
            if (sig_op == SHMEM_SIGNAL_SET) {
                f->fn(variant, dst, src, n, sig, 7u + (uint64_t)slot * 64 + (uint64_t)me,
                      SHMEM_SIGNAL_SET, right);
                want = 7u + (uint64_t)slot * 64 + (uint64_t)left;
            } else {
                f->fn(variant, dst, src, n, sig, (uint64_t)me + 1, SHMEM_SIGNAL_ADD, right);
                f->fn(variant, dst + HALF, src + HALF, n, sig, 100, SHMEM_SIGNAL_ADD, right);
                want = BASE + (uint64_t)left + 1 + 100;
            }
            if (variant & 2)
                quiet_variant(variant);

            /* SET: wait for the exact value; ADD: for the sum (nothing else adds). */
            uint64_t got = shmem_signal_wait_until(sig,
                                                   sig_op == SHMEM_SIGNAL_SET ? SHMEM_CMP_EQ
                                                                              : SHMEM_CMP_GE,
                                                   want);
            if (got != want)
                fprintf(stderr, "PE %d: %s variant %d op %d: signal %llu, expected %llu\n",
                        me, f->name, variant, sig_op, (unsigned long long)got,
                        (unsigned long long)want);
            CHECK_EQ(got, want);
            CHECK_EQ(shmem_signal_fetch(sig), want);
            check_payload(f->name, variant, slot, dst, n * f->esize, 0);
            if (sig_op == SHMEM_SIGNAL_ADD)
                check_payload(f->name, variant, slot, dst + HALF, n * f->esize, HALF);
        }
    }
}

/* ---- 2. signal_set / signal_add / signal_fetch / signal_wait_until ------------------- */

static void signal_routines(void)
{
    uint64_t r;
    int s;

    /* signal_set to the right, named and generic, plain and ctx. */
    for (int form = 0; form < 4; form++) {
        s = next_slot++;
        uint64_t *sig = form % 2 ? &sig_heap[s] : &sig_static[s];
        uint64_t v = 5000u + (uint64_t)form * 100 + (uint64_t)me;
        switch (form) {
        case 0: (shmem_signal_set)(sig, v, right); break; /* the function itself */
        case 1: shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, sig, v, right); break;
        case 2: shmem_signal_set(SHMEM_CTX_DEFAULT, sig, v, right); break; /* C11 form */
        default: {
            shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
            shmem_signal_set(ctx, sig, v, right);
        }
        }
        uint64_t want = 5000u + (uint64_t)form * 100 + (uint64_t)left;
        r = shmem_signal_wait_until(sig, SHMEM_CMP_NE, BASE);
        CHECK_EQ(r, want);
        CHECK_EQ(shmem_signal_fetch(sig), want);
    }

    /* signal_add from every PE to every PE: the sum arrives exactly. */
    for (int form = 0; form < 4; form++) {
        s = next_slot++;
        uint64_t *sig = form % 2 ? &sig_heap[s] : &sig_static[s];
        for (int q = 0; q < npes; q++) {
            int pe = (me + q) % npes;
            uint64_t v = (uint64_t)me + 1;
            switch (form) {
            case 0: (shmem_signal_add)(sig, v, pe); break; /* the function itself */
            case 1: shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig, v, pe); break;
            case 2: shmem_signal_add(SHMEM_CTX_DEFAULT, sig, v, pe); break; /* C11 form */
            default: shmem_signal_add(sig, v, pe); break; /* C11 form, no ctx */
            }
        }
        uint64_t want = BASE + (uint64_t)npes * (npes + 1) / 2;
        r = shmem_signal_wait_until(sig, SHMEM_CMP_GE, want);
        CHECK_EQ(r, want);
        CHECK_EQ(shmem_signal_fetch(sig), want);
    }

    /* Each comparison operator. The left neighbour moves the word to a value that
     * satisfies the condition (and stays there); wait_until returns that value. */
    static const struct {
        int cmp;
        int64_t delta;
        int64_t cmp_delta;
    } cmps[] = {
        { SHMEM_CMP_EQ, 3, 3 },   /* == BASE+3 */
        { SHMEM_CMP_NE, 4, 0 },   /* != BASE   */
        { SHMEM_CMP_GT, 5, 4 },   /* >  BASE+4 */
        { SHMEM_CMP_GE, 6, 6 },   /* >= BASE+6 */
        { SHMEM_CMP_LT, -7, 0 },  /* <  BASE   */
        { SHMEM_CMP_LE, -8, -8 }, /* <= BASE-8 */
    };
    for (unsigned k = 0; k < sizeof cmps / sizeof cmps[0]; k++) {
        s = next_slot++;
        uint64_t *sig = k % 2 ? &sig_heap[s] : &sig_static[s];
        uint64_t target = (uint64_t)((int64_t)BASE + cmps[k].delta);
        if (k % 2)
            shmem_signal_set(sig, target, right);
        else /* reach it by adding (two's complement for a negative delta) */
            shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig, (uint64_t)cmps[k].delta, right);
        r = shmem_signal_wait_until(sig, cmps[k].cmp,
                                    (uint64_t)((int64_t)BASE + cmps[k].cmp_delta));
        if (r != target)
            fprintf(stderr, "PE %d: signal_wait_until cmp %d returned %llu, expected %llu\n",
                    me, cmps[k].cmp, (unsigned long long)r, (unsigned long long)target);
        CHECK_EQ(r, target);
    }

    /* A wait whose condition already holds returns at once with the current value. */
    s = next_slot++;
    CHECK_EQ(shmem_signal_wait_until(&sig_static[s], SHMEM_CMP_EQ, BASE), BASE);
    CHECK_EQ(shmem_signal_wait_until(&sig_heap[s], SHMEM_CMP_LE, BASE + 1), BASE);
    CHECK_EQ(shmem_signal_fetch(&sig_heap[s]), BASE);

    /* Set on oneself, then add on oneself, in the same word. */
    shmem_signal_set(&sig_static[s], 42, me);
    CHECK_EQ(shmem_signal_fetch(&sig_static[s]), 42);
    shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig_static[s], 8, me);
    CHECK_EQ(shmem_signal_wait_until(&sig_static[s], SHMEM_CMP_EQ, 50), 50);
}

/* ---- 3. Ring pipeline ---------------------------------------------------------------- */

#define ITERS 1000
#define RING_MAX 16384         /* longs: 128 KiB, past the non-temporal copy size */
static uint64_t ring_data_sig; /* counts payloads received from the left */
static uint64_t ring_ack_sig;  /* counts payloads the right neighbour has consumed */

static size_t ring_len(int k)
{
    if (k % 20 == 0)
        return RING_MAX;
    if (k % 10 == 5)
        return 2048 + (size_t)k; /* 16 KiB and up */
    return 1 + (size_t)(k % 61);
}

static long ring_val(int pe, int k, size_t i)
{
    return (long)k * 1000003L + (long)pe * 40009L + (long)i;
}

static void ring(void)
{
    long *buf = shmem_malloc(2 * RING_MAX * sizeof(long)); /* two slots */
    long *src = malloc(RING_MAX * sizeof(long));
    CHECK(buf != NULL && src != NULL);
    shmem_barrier_all();

    for (int k = 1; k <= ITERS; k++) {
        long *slot = buf + (size_t)(k % 2) * RING_MAX;
        size_t len = ring_len(k);
        /* The right neighbour must have consumed iteration k-2 (same slot). */
        if (k > 2)
            shmem_signal_wait_until(&ring_ack_sig, SHMEM_CMP_GE, (uint64_t)(k - 2));
        for (size_t i = 0; i < len; i++)
            src[i] = ring_val(me, k, i);
        switch (k % 4) {
        case 0:
            shmem_long_put_signal(slot, src, len, &ring_data_sig, 1, SHMEM_SIGNAL_ADD, right);
            break;
        case 1:
            shmem_ctx_long_put_signal_nbi(SHMEM_CTX_DEFAULT, slot, src, len, &ring_data_sig,
                                          1, SHMEM_SIGNAL_ADD, right);
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
            break;
        case 2:
            shmem_putmem_signal(slot, src, len * sizeof(long), &ring_data_sig, 1,
                                SHMEM_SIGNAL_ADD, right);
            break;
        default:
            shmem_put64_signal_nbi(slot, src, len, &ring_data_sig, 1, SHMEM_SIGNAL_ADD,
                                   right);
            shmem_quiet();
            break;
        }

        /* Receive iteration k from the left; it may already be one ahead. */
        uint64_t r = shmem_signal_wait_until(&ring_data_sig, SHMEM_CMP_GE, (uint64_t)k);
        if (r < (uint64_t)k || r > (uint64_t)k + 1)
            fprintf(stderr, "PE %d: ring iteration %d: data signal %llu\n", me, k,
                    (unsigned long long)r);
        CHECK(r >= (uint64_t)k && r <= (uint64_t)k + 1);
        /* Last element first: a writer still copying would be caught at the tail. */
        for (size_t i = len; i-- > 0;) {
            if (slot[i] != ring_val(left, k, i))
                fprintf(stderr,
                        "PE %d: ring iteration %d (%zu longs): element %zu is %ld, "
                        "expected %ld\n",
                        me, k, len, i, slot[i], ring_val(left, k, i));
            CHECK_EQ(slot[i], ring_val(left, k, i));
        }
        shmem_signal_add(&ring_ack_sig, 1, left);
    }
    CHECK_EQ(shmem_signal_wait_until(&ring_data_sig, SHMEM_CMP_EQ, ITERS), ITERS);
    CHECK_EQ(shmem_signal_wait_until(&ring_ack_sig, SHMEM_CMP_EQ, ITERS), ITERS);
    shmem_barrier_all();
    free(src);
    shmem_free(buf);
}

/* One-way stream in pairs (0->1, 2->3, ...): the receiver is already waiting while the
 * sender fills and copies, so a signal that overtook its payload would be seen at once.
 * Payloads are checked tail first. */
#define STREAM_ITERS 40
#define STREAM_MAX (256 * 1024) /* longs: 2 MiB, so a copy outlasts the waiter's naps */
static uint64_t stream_data_sig, stream_ack_sig;

static void stream(void)
{
    long *buf = shmem_malloc(2 * STREAM_MAX * sizeof(long));
    long *src = malloc(STREAM_MAX * sizeof(long));
    CHECK(buf != NULL && src != NULL);
    const int sender = me % 2 == 0 && me + 1 < npes;
    const int receiver = me % 2 == 1;
    for (int k = 1; k <= STREAM_ITERS; k++) {
        long *slot = buf + (size_t)(k % 2) * STREAM_MAX;
        /* Odd k: 2 MiB with ADD; even k: 40000 bytes with SET, between glibc's smallest
         * non-temporal copy threshold (16448 bytes) and the library's full-fence size. */
        size_t len = k % 2 ? STREAM_MAX - (size_t)(k % 7) : 5000 + (size_t)(k % 7);
        if (sender) {
            if (k > 2)
                shmem_signal_wait_until(&stream_ack_sig, SHMEM_CMP_GE, (uint64_t)(k - 2));
            for (size_t i = 0; i < len; i++)
                src[i] = ring_val(me, k, i);
            if (k % 2)
                shmem_long_put_signal(slot, src, len, &stream_data_sig, 1, SHMEM_SIGNAL_ADD,
                                      me + 1);
            else
                shmem_putmem_signal(slot, src, len * sizeof(long), &stream_data_sig,
                                    (uint64_t)k, SHMEM_SIGNAL_SET, me + 1);
        } else if (receiver) {
            uint64_t r = shmem_signal_wait_until(&stream_data_sig, SHMEM_CMP_GE, (uint64_t)k);
            CHECK(r >= (uint64_t)k && r <= (uint64_t)k + 1);
            for (size_t i = len; i-- > 0;) {
                if (slot[i] != ring_val(me - 1, k, i))
                    fprintf(stderr,
                            "PE %d: stream iteration %d (%zu longs): element %zu is "
                            "%ld, expected %ld\n",
                            me, k, len, i, slot[i], ring_val(me - 1, k, i));
                CHECK_EQ(slot[i], ring_val(me - 1, k, i));
            }
            shmem_signal_add(&stream_ack_sig, 1, me - 1);
        }
    }
    shmem_barrier_all();
    free(src);
    shmem_free(buf);
}

int main(void)
{
    ring_init();

    sig_heap = test_malloc(NSLOT * sizeof(uint64_t));
    pay = test_malloc((size_t)NSLOT * REGB);
    for (int i = 0; i < NSLOT; i++)
        sig_static[i] = sig_heap[i] = BASE;
    memset(pay, 0, (size_t)NSLOT * REGB);
    shmem_barrier_all();

    for (size_t k = 0; k < NFAMILIES; k++)
        run_family(&families[k]);
    signal_routines();
    shmem_barrier_all();
    ring();
    stream();

    shmem_barrier_all();
    if (me == 0)
        printf("test_signal: put_signal[_nbi] for %zu typed/sized/mem/C11 families (SET, "
               "ADD), "
               "signal_set/add/fetch/wait_until, %d-iteration ring pipeline, %d x 2 MiB "
               "stream: OK on %d PEs\n",
               NFAMILIES, ITERS, STREAM_ITERS, npes);
    shmem_finalize();
    return 0;
}
