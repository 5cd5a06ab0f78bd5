/* Cray OpenSHMEMX's thread-hot routines. THREADS threads per PE (argv[1], default 4)
 * each register, put a 64 KiB block of their own to the right neighbour with the
 * default-context routines, complete it with shmemx_thread_quiet and tell the
 * neighbour's thread of the same number so with a flag on the default context
 * itself (shmem_ctx_ form, not the thread's context), which then checks the block
 * without a barrier: only thread_quiet made it visible. A thread_fence between two
 * puts to one word orders them. Then each thread posts a triggered put-with-signal
 * to the right neighbour and opens a session on SHMEM_CTX_DEFAULT with a put in it;
 * the even threads fire theirs and call shmemx_thread_quiet, which must complete
 * their own (landed, where they land) while the odd threads' stay pending (not
 * there), and the session's thread-private state must not race (TSan); then the
 * odd threads do the same. A second mode argument runs a failure case:
 *   double      register twice in one thread
 *   unregistered  unregister without a register
 *   unbalanced  finalize with a thread still registered
 *   single      register at SHMEM_THREAD_SINGLE
 *   limit       register THREADS threads under SHOAL_MAX_THREADS below THREADS
 *   pending     shmemx_thread_quiet with this thread's triggered put not fired: it
 *               is on the thread's own context, which the quiet cannot complete */
#include <pthread.h>
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { MAX_THREADS = 16, N = 8192, ROUNDS = 4 }; /* 64 KiB blocks */

static int me, npes, right, left, nthreads;
static long *block; /* [MAX_THREADS][N] */
static long flag[MAX_THREADS], word[MAX_THREADS], ack[MAX_THREADS];
static long trig_dst[MAX_THREADS], sess_dst[MAX_THREADS], go[MAX_THREADS],
        landed[MAX_THREADS];
static uint64_t trig_sig[MAX_THREADS];
static pthread_barrier_t started;

static long val(int pe, int t, int r, int i)
{
    return ((long)pe << 40) + ((long)t << 32) + (long)r * N + i;
}

/* Thread t's triggered put and session put to the right neighbour, completed by its
 * own thread_quiet in its turn (even threads first, then odd), while the other half's
 * trigger has not fired. Each check is made where the data lands, told by a flag on
 * the shared default context, as above: a PE whose threads all waited outside the
 * library could not serve a peer's reads. An odd thread fires only once the right
 * neighbour's thread of its number, having seen nothing of it land while the even
 * threads completed theirs, says go. */
static void own_completion(int t)
{
    shmemx_trigger_t tr;
    CHECK_EQ(shmemx_trigger_create(&tr), 0);
    long tv = val(me, t, 7, 0), sv = val(me, t, 8, 0);
    shmemx_putmem_signal_triggered(&trig_dst[t], &tv, sizeof tv, &trig_sig[t], 1,
                                   SHMEM_SIGNAL_SET, right, tr, 1);
    pthread_barrier_wait(&started); /* every thread of this PE has posted */
    for (int turn = 0; turn < 2; turn++) {
        if (t % 2 == turn) {
            if (turn) {
                if (trig_dst[t] != 0)
                    check_note("thread %d: PE %d's thread %d's triggered put landed before "
                               "its trigger fired",
                               t, left, t);
                CHECK_EQ(trig_dst[t], 0);
                shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, &go[t], 1, left);
                shmem_long_wait_until(&go[t], SHMEM_CMP_EQ, 1);
            }
            shmem_ctx_session_start(SHMEM_CTX_DEFAULT, SHMEM_CTX_SESSION_BATCH, NULL, 0);
            shmem_long_put(&sess_dst[t], &sv, 1, right);
            shmemx_trigger_increment(tr, 1);
            shmemx_thread_quiet();
            shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, &landed[t], 1, right);
            shmem_ctx_session_stop(SHMEM_CTX_DEFAULT);
            shmem_long_wait_until(&landed[t], SHMEM_CMP_EQ, 1);
            if (trig_dst[t] != val(left, t, 7, 0) || sess_dst[t] != val(left, t, 8, 0))
                check_note("thread %d: PE %d's thread %d's triggered put and session put "
                           "after its own shmemx_thread_quiet",
                           t, left, t);
            CHECK_EQ(trig_dst[t], val(left, t, 7, 0));
            CHECK_EQ(sess_dst[t], val(left, t, 8, 0));
        }
        pthread_barrier_wait(&started);
    }
    shmemx_trigger_destroy(tr);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    long *src = malloc(N * sizeof(long));
    CHECK(src != NULL);
    shmemx_thread_register();
    pthread_barrier_wait(&started); /* every thread registered at once */
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = val(me, t, r, i);
        shmem_long_put_nbi(block + (size_t)t * N, src, N, right);
        shmem_long_p(&word[t], -r, right);
        shmemx_thread_fence();
        shmem_long_p(&word[t], r, right);
        shmemx_thread_quiet();
        shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, &flag[t], r, right);
        shmem_long_wait_until(&flag[t], SHMEM_CMP_GE, r);
        CHECK_EQ(word[t], r);
        for (int i = 0; i < N; i++)
            if (block[(size_t)t * N + i] != val(left, t, r, i)) {
                check_note("thread %d checking round %d: what PE %d's thread %d put "
                           "before shmemx_thread_quiet",
                           t, r, left, t);
                CHECK_EQ(block[(size_t)t * N + i], val(left, t, r, i));
            }
        /* The next round rewrites the block and word: each waits for the other's ack. */
        shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, &ack[t], r, left);
        shmem_long_wait_until(&ack[t], SHMEM_CMP_GE, r);
    }
    own_completion(t);
    shmemx_thread_unregister();
    free(src);
    return NULL;
}

static void *register_only(void *arg)
{
    (void)arg;
    shmemx_thread_register();
    pthread_barrier_wait(&started);
    pthread_barrier_wait(&started);
    shmemx_thread_unregister();
    return NULL;
}

static int failure_case(const char *mode)
{
    if (!strcmp(mode, "double")) {
        shmemx_thread_register();
        shmemx_thread_register();
    } else if (!strcmp(mode, "unregistered")) {
        shmemx_thread_unregister();
    } else if (!strcmp(mode, "unbalanced")) {
        shmemx_thread_register();
        shmem_finalize();
    } else if (!strcmp(mode, "pending")) {
        shmemx_thread_register();
        shmemx_trigger_t tr;
        CHECK_EQ(shmemx_trigger_create(&tr), 0);
        static long v = 1;
        shmemx_putmem_signal_triggered(&trig_dst[0], &v, sizeof v, &trig_sig[0], 1,
                                       SHMEM_SIGNAL_SET, right, tr, 1);
        shmemx_thread_quiet();
    } else if (!strcmp(mode, "limit")) {
        pthread_t th[MAX_THREADS];
        for (int t = 0; t < nthreads; t++)
            CHECK_EQ(pthread_create(&th[t], NULL, register_only, NULL), 0);
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
    }
    return 1; /* reached only when the library let the misuse pass */
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atoi(argv[1]) : 4;
    const char *mode = argc > 2 ? argv[2] : NULL;
    int provided;
    int want = mode && !strcmp(mode, "single") ? SHMEM_THREAD_SINGLE : SHMEM_THREAD_MULTIPLE;
    CHECK_EQ(shmem_init_thread(want, &provided), 0);
    if (want == SHMEM_THREAD_SINGLE) {
        shmemx_thread_register();
        return 1;
    }
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    CHECK(nthreads >= 1 && nthreads <= MAX_THREADS);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    pthread_barrier_init(&started, NULL, (unsigned)nthreads);
    if (mode)
        return failure_case(mode);
    block = test_malloc((size_t)MAX_THREADS * N * sizeof(long));
    memset(block, 0, (size_t)MAX_THREADS * N * sizeof(long));
    shmem_barrier_all();
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nthreads; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(long)t), 0);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    shmem_free(block);
    if (me == 0)
        printf("thread_hot: %d threads on %d PEs passed\n", nthreads, npes);
    shmem_finalize();
    return 0;
}
