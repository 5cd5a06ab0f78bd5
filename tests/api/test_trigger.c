/* Triggered put-with-signal (shmemx_putmem_signal_triggered): each PE posts K
 * operations to its right neighbour, thresholds 1..K on one trigger, and nothing
 * may arrive before the trigger moves; after it reaches K/2 exactly the first half
 * has arrived (payload before signal), after K all. Over the network with a
 * provider that has FI_TRIGGER (sockets) the NIC fires them; elsewhere the library.
 * With "default" on the default context rather than a created (shared) one; with
 * "quiet_early", quiet comes before the trigger: the job must end with a message. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

#define K 16
#define LEN 40

static char data[K][LEN];
static uint64_t arrived; /* signal ADD: one per operation */
static uint64_t last;    /* signal SET: the threshold of the latest */

static char byte(int src, int k, int b)
{
    return (char)(src * 31 + k * 7 + b + 1);
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    const char *mode = argc > 1 ? argv[1] : "";
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    if (strcmp(mode, "default"))
        CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
    shmemx_trigger_t trig;
    CHECK_EQ(shmemx_trigger_create(&trig), 0);
    static char src[K][LEN]; /* must stay unchanged until its operation fires */
    for (int k = 0; k < K; k++)
        for (int b = 0; b < LEN; b++)
            src[k][b] = byte(me, k, b);
    for (int k = 0; k < K; k++)
        shmemx_ctx_putmem_signal_triggered(ctx, data[k], src[k], LEN, &arrived, 1,
                                           SHMEM_SIGNAL_ADD, right, trig, (uint64_t)k + 1);
    /* Threshold already reached: an ordinary put-with-signal. */
    shmemx_ctx_putmem_signal_triggered(ctx, &last, NULL, 0, &last, 1000, SHMEM_SIGNAL_SET,
                                       right, trig, 0);
    shmem_signal_wait_until(&last, SHMEM_CMP_EQ, 1000);
    if (!strcmp(mode, "quiet_early")) /* a mistake that must end the job, not hang it */
        shmem_ctx_quiet(ctx);
    shmem_sync_all(); /* no quiet: the triggered ones still wait */
    CHECK_EQ(shmem_signal_fetch(&arrived), 0);
    CHECK_EQ(shmemx_trigger_read(trig), 0);
    shmem_sync_all();

    for (int k = 0; k < K / 2; k++)
        shmemx_trigger_increment(trig, 1);
    CHECK_EQ(shmemx_trigger_read(trig), K / 2);
    shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, K / 2);
    for (int k = 0; k < K / 2; k++)
        for (int b = 0; b < LEN; b++)
            CHECK_EQ(data[k][b], byte(left, k, b));
    shmem_sync_all();
    CHECK_EQ(shmem_signal_fetch(&arrived), K / 2); /* the second half still waits */
    for (int b = 0; b < LEN; b++)
        CHECK_EQ(data[K / 2][b], 0);
    shmem_sync_all();

    shmemx_trigger_increment(trig, K); /* past every threshold at once */
    shmem_signal_wait_until(&arrived, SHMEM_CMP_EQ, K);
    for (int k = 0; k < K; k++)
        for (int b = 0; b < LEN; b++)
            CHECK_EQ(data[k][b], byte(left, k, b));
    shmem_ctx_quiet(ctx); /* every operation fired: completes */
    shmemx_trigger_destroy(trig);
    if (ctx != SHMEM_CTX_DEFAULT)
        shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    if (me == 0)
        printf("triggered put-with-signal (%s context): ok at %d PEs\n",
               ctx == SHMEM_CTX_DEFAULT ? "default" : "created", npes);
    shmem_finalize();
    return 0;
}
