/* Many contexts with endpoints of their own (SHMEM_THREAD_MULTIPLE): 32 threads,
 * and 32 private contexts, each created and used by its own thread; or, with the
 * argument "serialized", 16 serialized contexts that pairs of threads take turns
 * on. Every round a thread puts a block to its right neighbour, adds to a counter
 * there, quiets its context, reads the block back and fetches the counter. Two
 * generations: all contexts are destroyed and created again, so the second one
 * runs on the endpoints the first left behind, whose counts (shmemx_pcntr_*)
 * must start from zero again. Data only: how long contexts take and what they
 * cost is measured by bench/micro/ctx_cost.c. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "pcntr_fresh.h"

#define THREADS 32
#define GENS 2
#define ROUNDS 3
#define LEN 64 /* longs per block */

static int me, npes, serialized;
static long block[THREADS][LEN]; /* block[t] is written by the left neighbour's thread t */
static long counter[THREADS];
static shmem_ctx_t shared_ctx[THREADS / 2];   /* serialized: thread t uses t / 2 */
static pthread_mutex_t turn[THREADS / 2];     /* the program serializes them */
static pthread_barrier_t gen_start, gen_done; /* threads and main, per generation */

static long value(int pe, int t, int gen, int r, int i)
{
    return ((long)pe << 40) ^ ((long)t << 32) ^ ((long)gen << 24) ^ ((long)r << 16) ^ i;
}

static void round_on(shmem_ctx_t ctx, int t, int gen, int r)
{
    int right = (me + 1) % npes;
    long src[LEN], back[LEN];
    for (int i = 0; i < LEN; i++)
        src[i] = value(me, t, gen, r, i);
    shmem_ctx_putmem(ctx, block[t], src, sizeof src, right);
    shmem_ctx_long_atomic_add(ctx, &counter[t], 1, right);
    shmem_ctx_quiet(ctx);
    shmem_ctx_getmem(ctx, back, block[t], sizeof back, right);
    for (int i = 0; i < LEN; i++)
        CHECK_EQ(back[i], src[i]);
    CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, &counter[t], right),
             (long)gen * ROUNDS + r + 1);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int gen = 0; gen < GENS; gen++) {
        pthread_barrier_wait(&gen_start);
        if (serialized) {
            for (int r = 0; r < ROUNDS; r++) {
                pthread_mutex_lock(&turn[t / 2]);
                round_on(shared_ctx[t / 2], t, gen, r);
                pthread_mutex_unlock(&turn[t / 2]);
            }
        } else {
            shmem_ctx_t ctx;
            CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
            check_pcntr_fresh(ctx);
            for (int r = 0; r < ROUNDS; r++)
                round_on(ctx, t, gen, r);
            shmem_ctx_destroy(ctx);
        }
        pthread_barrier_wait(&gen_done);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    serialized = argc > 1 && strcmp(argv[1], "serialized") == 0;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK_EQ(pthread_barrier_init(&gen_start, NULL, THREADS + 1), 0);
    CHECK_EQ(pthread_barrier_init(&gen_done, NULL, THREADS + 1), 0);
    for (int c = 0; c < THREADS / 2; c++)
        pthread_mutex_init(&turn[c], NULL);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int gen = 0; gen < GENS; gen++) {
        if (serialized)
            for (int c = 0; c < THREADS / 2; c++) {
                CHECK_EQ(shmem_ctx_create(SHMEM_CTX_SERIALIZED, &shared_ctx[c]), 0);
                check_pcntr_fresh(shared_ctx[c]);
            }
        pthread_barrier_wait(&gen_start);
        pthread_barrier_wait(&gen_done);
        if (serialized)
            for (int c = 0; c < THREADS / 2; c++)
                shmem_ctx_destroy(shared_ctx[c]);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    for (int t = 0; t < THREADS; t++) {
        CHECK_EQ(counter[t], GENS * ROUNDS);
        for (int i = 0; i < LEN; i++)
            CHECK_EQ(block[t][i], value(left, t, GENS - 1, ROUNDS - 1, i));
    }
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_ctx_many: %d %s contexts, %d generations, OK on %d PEs\n",
               serialized ? THREADS / 2 : THREADS, serialized ? "serialized" : "private",
               GENS, npes);
    for (int c = 0; c < THREADS / 2; c++)
        pthread_mutex_destroy(&turn[c]);
    pthread_barrier_destroy(&gen_start);
    pthread_barrier_destroy(&gen_done);
    shmem_finalize();
    return 0;
}
