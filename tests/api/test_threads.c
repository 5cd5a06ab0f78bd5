/* SHMEM_THREAD_MULTIPLE: NTHREADS pthreads per PE call RMA, AMOs, signals, waits and
 * quiet at the same time, first on SHMEM_CTX_DEFAULT, then on one context all threads
 * share, then on a private context each thread creates and destroys itself.
 * Checked exactly: every put lands (read back by get, and the last one per target
 * found by the target), every fetch-add ticket is handed out once, and every PE's
 * hit counter holds the number of increments aimed at it. Collectives and
 * shmem_malloc stay on the main thread: the spec forbids concurrent collectives on
 * one team, and allocation is collective over the world team. */
#include <pthread.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define NTHREADS 4
#define LEN 32
/* Rounds per thread and phase: many where every call is a load/store, fewer when PEs
 * span nodes, where each blocking call is a network round trip (tcp on loopback, on
 * oversubscribed cores in CI) and a few dozen rounds already interleave the threads. */
#define ITERS_SHM 200
#define ITERS_NET 25

enum mode { MODE_DEFAULT, MODE_SHARED, MODE_PRIVATE, NMODES };
static const char *const mode_name[NMODES] = { "default", "shared", "private" };

static int me, npes, iters;
static shmem_ctx_t shared_ctx;
static long *slots;              /* [npes][NTHREADS][LEN]: (source PE, thread) -> last put */
static int *seen;                /* on PE 0: seen[ticket] counts hand-outs of ticket */
static long tickets;             /* on PE 0: the fetch-add ticket dispenser */
static long hits;                /* atomic increments aimed at this PE */
static long mail[NTHREADS][LEN]; /* put_signal payload from thread t of the left PE */
static uint64_t sig[NTHREADS];   /* its signal, one SHMEM_SIGNAL_ADD of 1 per phase */

/* Over libfabric a software provider such as tcp writes incoming puts into this PE's
 * memory from whichever thread happens to drive progress, and orders them with code
 * TSan does not instrument, so a thread reading its mail after the signal would be
 * reported. Such reports, whose writer is libfabric, are suppressed; the longest
 * history keeps that writer's stack (and so its libfabric frame) recoverable. */
#if defined(__SANITIZE_THREAD__)
const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:libfabric.so\n";
}
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "history_size=7";
}
#endif

struct worker {
    int t;
    enum mode mode;
    pthread_t id;
};

static long pattern(int pe, int t, int mode, int iter, int k)
{
    return ((((long)pe * NTHREADS + t) * NMODES + mode) * ITERS_SHM + iter) * LEN + k + 1;
}

static int target_of(int pe, int t, int iter)
{
    return (pe + t + iter) % npes;
}

static long *slot(int pe, int t)
{
    return &slots[((long)pe * NTHREADS + t) * LEN];
}

static void rma_round(shmem_ctx_t ctx, const struct worker *w, int iter)
{
    long src[LEN], back[LEN];
    int pe = target_of(me, w->t, iter);
    for (int k = 0; k < LEN; k++)
        src[k] = pattern(me, w->t, w->mode, iter, k);
    if (iter % 2)
        shmem_ctx_long_put_nbi(ctx, slot(me, w->t), src, LEN, pe);
    else
        shmem_ctx_long_put(ctx, slot(me, w->t), src, LEN, pe);
    if (w->mode == MODE_DEFAULT)
        shmem_quiet();
    else
        shmem_ctx_quiet(ctx);
    memset(back, 0, sizeof back);
    shmem_ctx_long_get(ctx, back, slot(me, w->t), LEN, pe);
    for (int k = 0; k < LEN; k++)
        CHECK_EQ(back[k], src[k]);
    CHECK_EQ(shmem_ctx_long_g(ctx, slot(me, w->t) + LEN - 1, pe), src[LEN - 1]);
}

static void amo_round(shmem_ctx_t ctx, const struct worker *w, int iter)
{
    long ticket = shmem_ctx_long_atomic_fetch_add(ctx, &tickets, 1, 0);
    CHECK(ticket >= 0 && ticket < (long)NMODES * npes * NTHREADS * iters);
    shmem_ctx_int_atomic_inc(ctx, &seen[ticket], 0);
    shmem_ctx_long_atomic_inc(ctx, &hits, target_of(me, w->t, iter));
}

/* Once per phase: thread t mails thread t of the right PE and waits for its own mail. */
static void mail_round(shmem_ctx_t ctx, const struct worker *w)
{
    long src[LEN];
    for (int k = 0; k < LEN; k++)
        src[k] = pattern(me, w->t, w->mode, iters - 1, k);
    shmem_ctx_long_put_signal(ctx, mail[w->t], src, LEN, &sig[w->t], 1, SHMEM_SIGNAL_ADD,
                              (me + 1) % npes);
    shmem_signal_wait_until(&sig[w->t], SHMEM_CMP_GE, (uint64_t)w->mode + 1);
    int left = (me + npes - 1) % npes;
    for (int k = 0; k < LEN; k++)
        CHECK_EQ(mail[w->t][k], pattern(left, w->t, w->mode, iters - 1, k));
}

static void *work(void *arg)
{
    const struct worker *w = arg;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (w->mode == MODE_SHARED)
        ctx = shared_ctx;
    if (w->mode == MODE_PRIVATE)
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    for (int iter = 0; iter < iters; iter++) {
        rma_round(ctx, w, iter);
        amo_round(ctx, w, iter);
    }
    mail_round(ctx, w);
    /* The barrier after the threads completes the default context only, and
     * destroying a context completes its operations: the shared one needs a quiet
     * for its last increments to have landed. */
    if (w->mode == MODE_SHARED)
        shmem_ctx_quiet(ctx);
    if (w->mode == MODE_PRIVATE)
        shmem_ctx_destroy(ctx);
    return NULL;
}

/* Hits aimed at this PE in one phase, and the last put each (PE, thread) left here. */
static long hits_per_phase(void)
{
    long n = 0;
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < NTHREADS; t++)
            for (int iter = 0; iter < iters; iter++)
                n += target_of(pe, t, iter) == me;
    return n;
}

static void check_slots(enum mode mode)
{
    for (int pe = 0; pe < npes; pe++)
        for (int t = 0; t < NTHREADS; t++) {
            int last = iters - 1;
            while (target_of(pe, t, last) != me)
                last--;
            for (int k = 0; k < LEN; k++)
                CHECK_EQ(slot(pe, t)[k], pattern(pe, t, mode, last, k));
        }
}

static void run_phase(enum mode mode)
{
    struct worker w[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        w[t] = (struct worker){ .t = t, .mode = mode };
        CHECK_EQ(pthread_create(&w[t].id, NULL, work, &w[t]), 0);
    }
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ(pthread_join(w[t].id, NULL), 0);
    shmem_barrier_all();
    check_slots(mode);
    CHECK_EQ(hits, hits_per_phase() * (mode + 1));
    if (me == 0)
        printf("threads: %s context phase passed\n", mode_name[mode]);
    shmem_barrier_all();
}

int main(void)
{
    int provided = -1;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&provided);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    iters = shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes ? ITERS_SHM : ITERS_NET;
    if (iters < npes)
        iters = npes; /* each thread's targets cycle through every PE */

    long total = (long)NMODES * npes * NTHREADS * iters;
    slots = shmem_calloc((size_t)npes * NTHREADS * LEN, sizeof *slots);
    seen = shmem_calloc((size_t)total, sizeof *seen);
    CHECK(slots && seen);
    CHECK_EQ(shmem_ctx_create(0, &shared_ctx), 0);

    for (int mode = 0; mode < NMODES; mode++)
        run_phase(mode);

    if (me == 0) {
        CHECK_EQ(tickets, total);
        for (long k = 0; k < total; k++)
            CHECK_EQ(seen[k], 1);
    }
    shmem_ctx_destroy(shared_ctx);
    shmem_free(seen);
    shmem_free(slots);
    shmem_finalize();
    return 0;
}
