/* Contexts of the network path: each context quiets its own operations. Every
 * thread (SHMEM_THREAD_MULTIPLE) drives its own context with puts, gets and
 * AMOs to the right neighbour and checks them after its own ctx_quiet, while
 * the other threads keep theirs in flight. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define THREADS 4
#define ROUNDS 50
#define LEN 4096

static int me, npes;
static unsigned char area[THREADS][LEN];
static long counter[THREADS];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, right = (me + 1) % npes;
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    unsigned char buf[LEN], back[LEN];
    for (int r = 0; r < ROUNDS; r++) {
        memset(buf, (me * 7 + t * 3 + r) & 0xff, LEN);
        shmem_ctx_putmem_nbi(ctx, area[t], buf, LEN, right);
        shmem_ctx_long_atomic_add(ctx, &counter[t], 1, right);
        shmem_ctx_quiet(ctx);
        /* This context's own put is complete: a get on it sees it. */
        shmem_ctx_getmem(ctx, back, area[t], LEN, right);
        CHECK(memcmp(back, buf, LEN) == 0);
        CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &counter[t], right), r + 1);
    }
    shmem_ctx_destroy(ctx);
    return NULL;
}

int main(void)
{
    int provided;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    /* Each PE's right neighbour is written only by this PE: no races on counters. */
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(counter[t], ROUNDS);
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_ctx: %d threads, one context each, quiet per context OK on %d PEs\n",
               THREADS, npes);
    shmem_finalize();
    return 0;
}
