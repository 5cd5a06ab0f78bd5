/* Programs written for Sandia OpenSHMEM's shmemx.h names compile and work on Shoal:
 * shmemx_TYPENAME_ibput/ibget (and ctx, sized), shmemx_signal_add, the pre-1.6
 * shmemx_TYPENAME_sum_inscan/exscan, SHMEMX_TEAM_NODE and SHMEMX_MALLOC_NO_BARRIER.
 * Every result is checked against values computed here from the PE numbers. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "ring.h"

static long v(int pe, int i)
{
    return pe * 1000L + i;
}

static void test_ibrma(void)
{
    static long src[12], dst[12];
    for (int i = 0; i < 12; i++) {
        src[i] = v(me, i);
        dst[i] = -1;
    }
    shmem_barrier_all();
    /* 3 blocks of 2 elements: source blocks start every 4, dest blocks every 3. */
    shmemx_long_ibput(dst, src, 3, 4, 2, 3, right);
    shmem_barrier_all();
    for (int b = 0; b < 3; b++)
        for (int e = 0; e < 2; e++)
            CHECK_EQ(dst[3 * b + e], v(left, 4 * b + e));
    CHECK_EQ(dst[2], -1);

    long got[12];
    for (int i = 0; i < 12; i++)
        got[i] = -1;
    shmemx_ctx_long_ibget(SHMEM_CTX_DEFAULT, got, src, 4, 3, 2, 2, right);
    for (int b = 0; b < 2; b++)
        for (int e = 0; e < 2; e++)
            CHECK_EQ(got[4 * b + e], v(right, 3 * b + e));
    CHECK_EQ(got[2], -1);

    uint64_t g64[4] = { 0, 0, 0, 0 };
    shmemx_ibget64(g64, src, 2, 6, 1, 2, left);
    CHECK_EQ(g64[0], v(left, 0));
    CHECK_EQ(g64[2], v(left, 6));
    CHECK_EQ(g64[1], 0);
    shmem_barrier_all();
}

static void test_signal_add(void)
{
    static uint64_t sig;
    sig = 0;
    shmem_barrier_all();
    /* Every PE adds pe+1 to PE 0's signal, half through the ctx form. */
    if (me % 2)
        shmemx_ctx_signal_add(SHMEM_CTX_DEFAULT, &sig, (uint64_t)me + 1, 0);
    else
        shmemx_signal_add(&sig, (uint64_t)me + 1, 0);
    if (me == 0)
        shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)npes * (npes + 1) / 2);
    shmem_barrier_all();
}

static void test_scan(void)
{
    static int src[3], in[3], ex[3];
    for (int i = 0; i < 3; i++)
        src[i] = me + i;
    shmem_barrier_all();
    CHECK_EQ(shmemx_int_sum_inscan(SHMEM_TEAM_WORLD, in, src, 3), 0);
    CHECK_EQ(shmemx_int_sum_exscan(SHMEM_TEAM_WORLD, ex, src, 3), 0);
    for (int i = 0; i < 3; i++) {
        int want = 0;
        for (int pe = 0; pe < me; pe++)
            want += pe + i;
        if (me > 0)
            CHECK_EQ(ex[i], want);
        CHECK_EQ(in[i], want + me + i);
    }
}

static void test_team_node(void)
{
    static int x;
    int on_node = 0;
    for (int pe = 0; pe < npes; pe++)
        on_node += shmem_ptr(&x, pe) != NULL;
    CHECK_EQ(shmem_team_n_pes(SHMEMX_TEAM_NODE), on_node);
    CHECK(shmem_team_my_pe(SHMEMX_TEAM_NODE) >= 0);
}

/* Without the barrier, PEs 1..n-1 can return from the allocation and tell PE 0 so
 * before PE 0 has even called it; with a barrier this would never finish. */
static void test_no_barrier(void)
{
    static long arrived;
    arrived = 0;
    shmem_barrier_all();
    long *p;
    if (me == 0) {
        shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, npes - 1);
        p = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
    } else {
        p = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
        shmem_long_atomic_add(&arrived, 1, 0);
    }
    CHECK(p != NULL);
    shmem_barrier_all();
    p[0] = -1;
    shmem_barrier_all();
    shmem_long_p(p, v(me, 0), right);
    shmem_barrier_all();
    CHECK_EQ(p[0], v(left, 0));
    shmem_free(p);
}

int main(void)
{
    ring_init();
    test_ibrma();
    test_signal_add();
    test_scan();
    test_team_node();
    test_no_barrier();
    if (me == 0)
        printf("Sandia OpenSHMEM names: all checks passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
