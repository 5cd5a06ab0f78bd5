/* Contexts with endpoints of their own are opened and connected to their first
 * peers when they are created (ofi_ctx.c, warm). Here THREADS threads per PE each
 * create a private context at the same time and put to, and add on, every other
 * PE: the peers connected at creation and, beyond the first ones, any others.
 * With the argument "deaf", run without a progress thread
 * (SHMEM_OFI_PROGRESS_THREAD=0), the other PEs sleep outside Shoal while PE 0
 * creates a context and puts to them all: creation cannot connect then and gives
 * up on it, and the first put waits until the peers serve the network again (in
 * the barrier). Data only, checked by the targets. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pcntr_fresh.h"

#define THREADS 8
#define MAX_PES 64

static int me, npes;
static long got[THREADS][MAX_PES]; /* got[t][src]: thread t of PE src wrote it */
static long hits[MAX_PES];         /* hits[src]: adds from PE src's threads */

static long value(int pe, int t)
{
    return ((long)pe << 32) ^ ((long)t << 16) ^ 0x5a5a;
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    check_pcntr_fresh(ctx);
    for (int d = 1; d < npes; d++) {
        int pe = (me + d) % npes;
        shmem_ctx_long_p(ctx, &got[t][me], value(me, t), pe);
        shmem_ctx_long_atomic_add(ctx, &hits[me], 1, pe);
    }
    shmem_ctx_quiet(ctx);
    for (int d = 1; d < npes; d++)
        CHECK_EQ(shmem_ctx_long_g(ctx, &got[t][me], (me + d) % npes), value(me, t));
    shmem_ctx_destroy(ctx);
    return NULL;
}

static void many_at_once(void)
{
    pthread_t th[THREADS];
    shmem_barrier_all();
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    for (int src = 0; src < npes; src++) {
        if (src == me)
            continue;
        CHECK_EQ(hits[src], THREADS);
        for (int t = 0; t < THREADS; t++)
            CHECK_EQ(got[t][src], value(src, t));
    }
}

static void deaf_peers(void)
{
    shmem_barrier_all();
    if (me == 0) {
        shmem_ctx_t ctx;
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
        check_pcntr_fresh(ctx);
        for (int pe = 1; pe < npes; pe++)
            shmem_ctx_long_p(ctx, &got[0][0], value(0, 0), pe);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
    } else {
        usleep(300000); /* computing: nothing drives this PE's endpoint */
    }
    shmem_barrier_all();
    if (me != 0)
        CHECK_EQ(got[0][0], value(0, 0));
}

int main(int argc, char **argv)
{
    int provided;
    int deaf = argc > 1 && strcmp(argv[1], "deaf") == 0;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAX_PES);
    if (deaf)
        deaf_peers();
    else
        many_at_once();
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_ctx_warm: %s OK on %d PEs\n",
               deaf ? "a context created while its peers compute" : "contexts to every PE",
               npes);
    shmem_finalize();
    return 0;
}
