/* A private context's operations progress while its owner waits for something
 * else: in a SHMEM_THREAD_MULTIPLE PE each PE puts a large buffer (beyond the
 * provider's eager size) to the next PE on a private context, without quiet, then
 * waits for that PE's answer; each PE answers once the buffer from the previous
 * one has fully arrived. The owner's waits drive its context (progress_all), and
 * so do the progress thread and the PE's other threads once no call has used it for
 * 50 us (test_ofi_private_drive.c); without that the ring stops: the waits here are
 * bounded and end the job with a message. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "check.h"

#define N ((size_t)4 << 20) /* bytes per put */
#define ROUNDS 3
#define CAP_S 60.0 /* only a failing run waits this long */

static long answer;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Polls (shmem_test drives progress) until *v == want, or fails naming what. */
static void wait_capped(long *v, long want, const char *what, int from)
{
    double t0 = now();
    while (!shmem_long_test(v, SHMEM_CMP_EQ, want)) {
        if (now() - t0 > CAP_S) {
            fprintf(stderr, "FAIL PE %d: no %s from PE %d after %.0f s (round value %ld)\n",
                    shmem_my_pe(), what, from, CAP_S, want);
            shmem_global_exit(1);
        }
    }
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    size_t n = N / sizeof(long);
    long *in = shmem_calloc(n, sizeof(long));
    long *out = malloc(N);
    CHECK(in && out);
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    shmem_barrier_all();

    for (long r = 1; r <= ROUNDS; r++) {
        for (size_t i = 0; i < n; i++)
            out[i] = ((long)me << 40) + (r << 32) + (long)i;
        if (npes > 1) {
            shmem_ctx_putmem_nbi(ctx, in, out, N, next);
            /* The first and last words of the buffer from prev, then all of it. */
            long first = ((long)prev << 40) + (r << 32);
            wait_capped(&in[n - 1], first + (long)(n - 1), "end of the buffer", prev);
            wait_capped(&in[0], first, "start of the buffer", prev);
            for (size_t i = 0; i < n; i++)
                if (in[i] != first + (long)i) {
                    fprintf(stderr,
                            "FAIL PE %d: round %ld word %zu from PE %d: %ld, not %ld\n", me,
                            r, i, prev, in[i], first + (long)i);
                    shmem_global_exit(1);
                }
            shmem_long_atomic_set(&answer, r, prev);
            wait_capped(&answer, r, "answer", next);
            shmem_ctx_quiet(ctx);
        }
        shmem_barrier_all(); /* nobody overwrites `in` before its owner has read it */
    }
    shmem_ctx_destroy(ctx);
    shmem_free(in);
    free(out);
    if (me == 0)
        printf("test_ofi_private_wait: %d rounds of 4 MiB private-context puts around a ring "
               "of %d PEs, each waited on by an answer, OK\n",
               ROUNDS, npes);
    shmem_finalize();
    return 0;
}
