/* Sandia OpenSHMEM's performance counters (shmemx_pcntr_*). Each phase issues a known
 * number of writes and reads on one context and checks the counters' deltas against
 * that number: with SHOAL_PCNTR=1 issued counts are exact, completed ones never exceed
 * them, cover at least the operations complete on return (blocking gets, fetching
 * AMOs), and equal them after a quiet; other contexts do not move. Without it the
 * counts are the network transport's: zero when no PE is reached over the network or
 * the transport counts nothing (MPI), otherwise at least one message per operation to
 * a network PE, and complete after quiet. The data the operations move is checked too. */
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NPUT 37
#define THREAD_PUTS 300

static int me, npes, right, counting, net_anywhere, net_counts, right_remote, target_counted;
static long dst[NPUT + 16], src[NPUT + 16];
static long amo_word;
static uint64_t sig;

static shmemx_pcntr_t all(shmem_ctx_t ctx)
{
    shmemx_pcntr_t p;
    uint64_t v;
    shmemx_pcntr_get_all(ctx, &p);
    /* The single getters agree with get_all; counts only grow between the calls. */
    shmemx_pcntr_get_issued_write(ctx, &v);
    CHECK(v >= p.pending_put);
    shmemx_pcntr_get_issued_read(ctx, &v);
    CHECK(v >= p.pending_get);
    shmemx_pcntr_get_completed_write(ctx, &v);
    CHECK(v >= p.completed_put);
    shmemx_pcntr_get_completed_read(ctx, &v);
    CHECK(v >= p.completed_get);
    shmemx_pcntr_get_completed_target(&v);
    CHECK(v >= p.target);
    CHECK(p.completed_put <= p.pending_put);
    CHECK(p.completed_get <= p.pending_get);
    return p;
}

/* Operations issued by one phase, by kind. */
struct expect {
    uint64_t writes, reads, reads_done_at_once;
};

static struct expect issue(shmem_ctx_t ctx)
{
    struct expect e = { 0, 0, 0 };
    long got[8];
    for (int i = 0; i < NPUT; i++)
        shmem_ctx_long_put_nbi(ctx, &dst[i], &src[i], 1, right);
    e.writes += NPUT;
    shmem_ctx_long_put(ctx, &dst[NPUT], src, 4, right);
    shmem_ctx_long_p(ctx, &dst[NPUT + 4], me, right);
    e.writes += 2;
    shmem_ctx_long_atomic_add(ctx, &amo_word, 1, right);
    shmem_ctx_long_atomic_inc(ctx, &amo_word, right);
    e.writes += 2;
    shmem_ctx_putmem_signal(ctx, &dst[NPUT + 5], src, sizeof(long), &sig, 1, SHMEM_SIGNAL_ADD,
                            right);
    e.writes += 2; /* the payload and the signal */

    for (int i = 0; i < 5; i++)
        shmem_ctx_long_get(ctx, got, src, 8, right);
    (void)shmem_ctx_long_g(ctx, src, right);
    (void)shmem_ctx_long_atomic_fetch(ctx, &amo_word, right);
    (void)shmem_ctx_long_atomic_fetch_add(ctx, &amo_word, 0, right);
    e.reads += 8;
    e.reads_done_at_once += 8;
    long nb[3], f;
    for (int i = 0; i < 3; i++)
        shmem_ctx_long_get_nbi(ctx, &nb[i], &src[i], 1, right);
    shmem_ctx_long_atomic_fetch_add_nbi(ctx, &f, &amo_word, 0, right);
    e.reads += 4;
    /* Their results are read after the caller's quiet: until then nb and f belong to
     * the network, so the phase quiets before returning. */
    shmem_ctx_quiet(ctx);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(nb[i], right * 1000 + i);
    return e;
}

static void phase(shmem_ctx_t ctx, shmem_ctx_t other)
{
    /* Before the barrier after which the left neighbour starts. */
    uint64_t target0;
    shmemx_pcntr_get_completed_target(&target0);
    shmem_barrier_all();
    shmemx_pcntr_t o0 = all(other);
    shmemx_pcntr_t a0 = all(ctx);

    /* Writes first, read before any quiet: nothing may be reported complete that the
     * test could not have completed. */
    struct expect e = issue(ctx);
    shmemx_pcntr_t a1 = all(ctx);
    shmemx_pcntr_t o1 = all(other);

    if (counting) {
        CHECK_EQ(a1.pending_put - a0.pending_put, e.writes);
        CHECK_EQ(a1.pending_get - a0.pending_get, e.reads);
        /* issue() ended with a quiet. */
        CHECK_EQ(a1.completed_put - a0.completed_put, e.writes);
        CHECK_EQ(a1.completed_get - a0.completed_get, e.reads);
        CHECK(e.reads_done_at_once <= e.reads);
        if (ctx != other) {
            CHECK_EQ(o1.pending_put, o0.pending_put);
            CHECK_EQ(o1.pending_get, o0.pending_get);
        }
    } else if (!net_anywhere || !net_counts) {
        /* Nothing reaches the network, or its transport counts nothing (MPI). */
        CHECK_EQ(a1.pending_put, 0);
        CHECK_EQ(a1.pending_get, 0);
        CHECK_EQ(a1.completed_put, 0);
        CHECK_EQ(a1.target, 0);
    } else {
        if (right_remote) {
            CHECK(a1.pending_put - a0.pending_put >= e.writes);
            CHECK(a1.pending_get - a0.pending_get >= e.reads);
        }
        /* The quiet completed everything the endpoint had issued. */
        CHECK_EQ(a1.completed_put, a1.pending_put);
        CHECK_EQ(a1.completed_get, a1.pending_get);
    }
    (void)o1;

    /* Completion before quiet: non-blocking puts, read back before any quiet. */
    shmemx_pcntr_t b0 = all(ctx);
    for (int i = 0; i < NPUT; i++)
        shmem_ctx_long_put_nbi(ctx, &dst[i], &src[i], 1, right);
    long got;
    shmem_ctx_long_get(ctx, &got, &src[1], 1, right);
    CHECK_EQ(got, right * 1000 + 1);
    shmemx_pcntr_t b1 = all(ctx);
    if (counting) {
        CHECK_EQ(b1.pending_put - b0.pending_put, NPUT);
        CHECK(b1.completed_put - b0.completed_put <= NPUT);
        /* The blocking get is complete on return. */
        CHECK_EQ(b1.completed_get - b0.completed_get, 1);
    }
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_t b2 = all(ctx);
    if (counting) {
        CHECK_EQ(b2.completed_put - b0.completed_put, NPUT);
        CHECK_EQ(b2.completed_put, b2.pending_put);
        CHECK_EQ(b2.completed_get, b2.pending_get);
    }

    shmem_barrier_all();
    for (int i = 0; i < NPUT; i++)
        CHECK_EQ(dst[i], ((me - 1 + npes) % npes) * 1000 + i);
    CHECK_EQ(dst[NPUT + 4], (me - 1 + npes) % npes);
    if (target_counted) {
        /* The left neighbour's two rounds of NPUT puts, at least, all complete. */
        uint64_t target1;
        shmemx_pcntr_get_completed_target(&target1);
        CHECK(target1 - target0 >= 2 * NPUT);
    }
    shmem_barrier_all();
}

/* Strided transfers count a write or read per block, each complete when its
 * blocking call returns (also where the transport's own counters cannot tell: a
 * session, or MPI); puts a bundling session holds back count as issued at once and
 * complete by the quiet after the session. */
static void strided_and_session(shmem_ctx_t ctx)
{
    shmem_barrier_all();
    shmemx_pcntr_t a0 = all(ctx);
    shmem_ctx_long_iput(ctx, dst, src, 2, 1, 4, right);            /* 4 blocks */
    shmem_ctx_long_ibget(ctx, &dst[NPUT], src, 2, 3, 2, 3, right); /* 3 blocks */
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT);
    shmem_ctx_long_iput(ctx, &dst[NPUT + 8], src, 1, 2, 3, right); /* 3 blocks */
    shmemx_pcntr_t as = all(ctx);
    if (counting) {
        CHECK_EQ(as.pending_put - a0.pending_put, 4 + 3);
        CHECK_EQ(as.completed_put - a0.completed_put, 4 + 3);
        CHECK_EQ(as.pending_get - a0.pending_get, 3);
        CHECK_EQ(as.completed_get - a0.completed_get, 3);
    }
    for (int i = 0; i < 20; i++)
        shmem_ctx_long_put_nbi(ctx, &dst[8 + i], &src[i], 1, right);
    shmemx_pcntr_t a1 = all(ctx);
    if (counting) {
        CHECK_EQ(a1.pending_put - a0.pending_put, 4 + 3 + 20);
        CHECK_EQ(a1.pending_get - a0.pending_get, 3);
    }
    shmemx_ctx_session_stop(ctx);
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_t a2 = all(ctx);
    if (counting) {
        CHECK_EQ(a2.completed_put - a0.completed_put, 4 + 3 + 20);
        CHECK_EQ(a2.completed_get - a0.completed_get, 3);
    }
    CHECK_EQ(a2.completed_put, a2.pending_put);
    shmem_barrier_all();
    int left = (me - 1 + npes) % npes;
    for (int i = 0; i < 20; i++)
        CHECK_EQ(dst[8 + i], left * 1000 + i);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(dst[NPUT + 8 + i], left * 1000 + 2 * i);
    shmem_barrier_all();
}

static shmem_ctx_t thread_ctx;

/* Each thread puts into its own half of dst: threads that store to the same words
 * at once would race in the program (TSan reports it at one PE, where the puts
 * are stores to this PE's own dst). */
static void *thread_puts(void *arg)
{
    long *mine = arg;
    int half = (int)(mine - src);
    for (int i = 0; i < THREAD_PUTS; i++)
        shmem_ctx_long_put_nbi(thread_ctx, &dst[half * (NPUT / 2) + i % (NPUT / 2)], mine, 1,
                               right);
    return NULL;
}

/* Two threads count on one shared context at once: none of their puts is lost. */
static void threads(shmem_ctx_t ctx)
{
    shmem_barrier_all();
    shmemx_pcntr_t a0 = all(ctx);
    thread_ctx = ctx;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&t[i], NULL, thread_puts, &src[i]) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    shmem_ctx_quiet(ctx);
    shmemx_pcntr_t a1 = all(ctx);
    if (counting) {
        CHECK_EQ(a1.pending_put - a0.pending_put, 2 * THREAD_PUTS);
        CHECK_EQ(a1.completed_put - a0.completed_put, 2 * THREAD_PUTS);
    }
    shmem_barrier_all();
}

int main(void)
{
    int provided;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    const char *env = getenv("SHOAL_PCNTR");
    counting = env && strcmp(env, "1") == 0;
    /* Set where the provider counts what targets a PE (FI_RMA_EVENT: sockets). */
    env = getenv("SHOAL_TEST_PCNTR_TARGET");
    target_counted = env && strcmp(env, "1") == 0;
    /* The MPI transport (SHOAL_TRANSPORT=mpi, mpi-all) keeps no counters. */
    env = getenv("SHOAL_TRANSPORT");
    net_counts = !env || strncmp(env, "mpi", 3) != 0;
    for (int pe = 0; pe < npes; pe++)
        if (!shmem_ptr(dst, pe))
            net_anywhere = 1;
    right_remote = shmem_ptr(dst, right) == NULL;

    for (int i = 0; i < NPUT + 16; i++)
        src[i] = me * 1000 + i;
    shmem_ctx_t ctx, priv;
    CHECK(shmem_ctx_create(0, &ctx) == 0);
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &priv) == 0);
    phase(ctx, SHMEM_CTX_DEFAULT);
    phase(priv, ctx);
    phase(SHMEM_CTX_DEFAULT, priv);
    strided_and_session(ctx);
    if (provided == SHMEM_THREAD_MULTIPLE)
        threads(ctx);
    shmem_ctx_destroy(priv);
    shmem_ctx_destroy(ctx);
    if (me == 0)
        printf("pcntr: %s, %d PEs: ok\n", counting ? "counting" : "transport counts", npes);
    shmem_finalize();
    return 0;
}
