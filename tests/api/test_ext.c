/* 1.6 sessions and pe_quiet, and the shmemx_ extensions: local completion, Cray-style
 * sessions, shmemx_signal_set. Each PE writes to its right neighbour and checks what
 * its left neighbour wrote. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>

#include "check.h"

#define N 512

static long landed[N];
static long bundled[N];
static uint64_t sig;
static long quieted;

static void local_completion(int me, int right)
{
    long src[N]; /* a stack buffer: the network must copy or finish with it */
    for (int i = 0; i < N; i++)
        src[i] = me * 1000L + i;
    shmem_long_put_nbi(landed, src, N, right);
    shmemx_local_complete();
    for (int i = 0; i < N; i++)
        src[i] = -1;
    shmem_barrier_all();
    int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    for (int i = 0; i < N; i++)
        CHECK_EQ(landed[i], left * 1000L + i);
}

static void sessions(int me, int right)
{
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    shmemx_ctx_session_start(ctx, SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT);
    for (int i = 0; i < N / 2; i++)
        shmem_ctx_long_p(ctx, &bundled[i], me + i, right);
    shmemx_ctx_session_stop(ctx);

    shmem_ctx_session_config_t cfg = { .total_ops = N / 2 };
    shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, &cfg, SHMEM_CTX_SESSION_TOTAL_OPS);
    shmem_ctx_session_start(ctx, 0, NULL, 0); /* again: ORs in nothing */
    for (int i = N / 2; i < N; i++)
        shmem_ctx_long_put_nbi(ctx, &bundled[i], &(long){ me + i }, 1, right);
    shmem_ctx_session_stop(ctx);
    shmem_ctx_session_stop(ctx); /* stopping a stopped session is harmless */
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    for (int i = 0; i < N; i++)
        CHECK_EQ(bundled[i], left + i);
}

static void signal_set(int me, int right)
{
    shmemx_signal_set(&sig, 100 + (uint64_t)me, right);
    int left = (me + shmem_n_pes() - 1) % shmem_n_pes();
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 100 + (uint64_t)left);
    CHECK_EQ(shmem_signal_fetch(&sig), 100 + left);
    shmem_barrier_all();
    shmemx_ctx_signal_set(SHMEM_CTX_DEFAULT, &sig, 7, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 7);
    shmem_barrier_all();
}

static void pe_quiet(int me, int right)
{
    shmem_long_p(&quieted, me + 1, right);
    shmem_pe_quiet(&right, 1);
    CHECK_EQ(shmem_long_g(&quieted, right), me + 1);
    shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, NULL, 0); /* no PEs: returns at once */
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), right = (me + 1) % shmem_n_pes();
    local_completion(me, right);
    sessions(me, right);
    signal_set(me, right);
    pe_quiet(me, right);
    if (me == 0)
        printf("extensions, sessions and pe_quiet: ok at %d PEs\n", shmem_n_pes());
    shmem_finalize();
    return 0;
}
