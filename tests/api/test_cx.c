/* A program written to HPE Cray OpenSHMEMX's documented interface compiles (with
 * -Werror=implicit-function-declaration) and works on Shoal: the _nb RMA and AMOs,
 * the short AMOs, pe_quiet, the pre-1.5 put-with-signal, session_start/stop,
 * init_thread/query_thread and the legacy team routines, split_2d, split_3d and
 * the colour/key split among them. Expected values are worked out here from the PE
 * numbers and, for the grid splits, from the documented layout (x fastest). */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"

static int me, npes, right, left;

static long v(int pe, int i)
{
    return pe * 1000L + i;
}

static void test_rma_nb(void)
{
    static long dst[8], src[8];
    static int idst[4];
    static char mdst[16];
    for (int i = 0; i < 8; i++) {
        src[i] = v(me, i);
        dst[i] = -1;
    }
    shmem_barrier_all();
    shmemx_long_put_nb(dst, src, 2, right);
    shmemx_ctx_long_put_nb(SHMEM_CTX_DEFAULT, dst + 2, src + 2, 2, right);
    shmemx_put64_nb(dst + 4, src + 4, 1, right);
    shmemx_putmem_nb(dst + 5, src + 5, sizeof(long), right);
    int isrc[4] = { me, me + 1, me + 2, me + 3 };
    shmemx_put_nb(idst, isrc, 4, right); /* C11 generic */
    char msrc[16];
    for (int i = 0; i < 16; i++)
        msrc[i] = (char)(me + i);
    shmemx_ctx_putmem_nb(SHMEM_CTX_DEFAULT, mdst, msrc, 16, right);
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < 6; i++)
        CHECK_EQ(dst[i], v(left, i));
    CHECK_EQ(dst[6], -1);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(idst[i], left + i);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(mdst[i], (char)(left + i));

    long got[8] = { 0 };
    shmemx_long_get_nb(got, src, 2, right);
    shmemx_ctx_long_get_nb(SHMEM_CTX_DEFAULT, got + 2, src + 2, 1, right);
    shmemx_get32_nb(got + 3, src + 3, 2, right); /* two 32-bit halves of one long */
    shmemx_getmem_nb(got + 4, src + 4, sizeof(long), right);
    shmemx_get_nb(SHMEM_CTX_DEFAULT, got + 5, src + 5, 1, right); /* generic, ctx */
    shmem_quiet();
    for (int i = 0; i < 6; i++)
        CHECK_EQ(got[i], v(right, i));
    shmem_barrier_all();
}

static void test_amo_nb(void)
{
    static long counter, ticket_ctr, swapped, cas;
    static int icount;
    counter = ticket_ctr = icount = 0;
    swapped = -1;
    cas = 0;
    shmem_barrier_all();
    shmemx_long_add_nb(&counter, me + 1, 0, NULL);
    shmemx_long_inc_nb(&counter, 0, NULL);
    shmemx_add_nb(&icount, 2, 0, NULL);
    shmemx_inc_nb(&icount, 0, NULL);
    long ticket = -1, second = -1, old_swap = -2, old_cas = -2;
    shmemx_long_fadd_nb(&ticket, &ticket_ctr, 1, 0, NULL);
    shmem_quiet();
    shmemx_long_finc_nb(&second, &ticket_ctr, 0, NULL);
    shmem_quiet();
    CHECK(ticket >= 0 && ticket < 2L * npes);
    CHECK(second > ticket && second < 2L * npes);
    shmem_barrier_all();
    /* Every PE swaps its number in on PE 0; the old values form a chain from -1. */
    shmemx_long_swap_nb(&old_swap, &swapped, me, 0, NULL);
    shmem_quiet();
    /* Only the PE whose compare matches (PE 0 first sees 0) writes. */
    shmemx_long_cswap_nb(&old_cas, &cas, 0, me + 100, 0, NULL);
    shmem_quiet();
    CHECK(old_swap >= -1 && old_swap < npes && old_swap != me);
    CHECK(old_cas == 0 || (old_cas >= 100 && old_cas < 100 + npes));
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(counter, (long)npes * (npes + 1) / 2 + npes);
        CHECK_EQ(icount, 3 * npes);
        CHECK_EQ(ticket_ctr, 2L * npes);
        CHECK(swapped >= 0 && swapped < npes);
        CHECK(cas >= 100 && cas < 100 + npes);
    }
    /* The generic fetching forms. */
    static int ival;
    ival = 7;
    shmem_barrier_all();
    int f1 = -1, f2 = -1, f3 = -1, f4 = -1;
    shmemx_fadd_nb(&f1, &ival, 0, right, NULL); /* fetch only: adds 0 */
    shmem_quiet();
    CHECK_EQ(f1, 7);
    shmem_barrier_all();
    if (me == 0) {
        shmemx_finc_nb(&f2, &ival, 0, NULL);
        shmem_quiet();
        shmemx_swap_nb(&f3, &ival, 20, 0, NULL);
        shmem_quiet();
        shmemx_cswap_nb(&f4, &ival, 20, 30, 0, NULL);
        shmem_quiet();
        CHECK_EQ(f2, 7);
        CHECK_EQ(f3, 8);
        CHECK_EQ(f4, 20);
        CHECK_EQ(ival, 30);
    }
    shmem_barrier_all();
}

/* Two shorts in one 32-bit word, both updated by every PE: neither update may
 * lose the other's. */
static void test_short_amo(void)
{
    static short pair[2], slots[64];
    pair[0] = pair[1] = 0;
    for (int i = 0; i < 64; i++)
        slots[i] = -1;
    shmem_barrier_all();
    enum { REPS = 50 };
    for (int r = 0; r < REPS; r++) {
        shmemx_short_add(&pair[0], 2, 0);
        short old = shmemx_short_finc(&pair[1], 0);
        CHECK(old >= 0 && old < REPS * npes + npes); /* + the incs below */
    }
    short f = shmemx_short_fadd(&pair[0], 0, 0);
    CHECK(f >= 2 * REPS && f <= 2 * REPS * npes);
    shmemx_short_inc(&pair[1], 0);
    /* Each PE claims its own slot on its right neighbour with cswap, then swaps. */
    short was = shmemx_short_cswap(&slots[me % 64], -1, (short)(me + 1), right);
    CHECK_EQ(was, -1);
    was = shmemx_short_cswap(&slots[me % 64], -1, 99, right); /* no longer -1 */
    CHECK_EQ(was, (short)(me + 1));
    was = shmemx_short_swap(&slots[me % 64], (short)(-me - 2), right);
    CHECK_EQ(was, (short)(me + 1));
    shmem_barrier_all();
    if (me == 0) {
        CHECK_EQ(pair[0], (short)(2 * REPS * npes));
        CHECK_EQ(pair[1], (short)(REPS * npes + npes));
    }
    if (npes <= 64)
        CHECK_EQ(slots[left], (short)(-left - 2));
    shmem_barrier_all();
}

static void test_put_signal_legacy(void)
{
    static long dst[4];
    static int idst[2];
    static uint64_t sig, sig2;
    sig = sig2 = 0;
    shmem_barrier_all();
    long src[4] = { v(me, 0), v(me, 1), v(me, 2), v(me, 3) };
    shmemx_long_put_signal(dst, src, 2, &sig, (uint64_t)me + 1, right);
    shmemx_putmem_signal_nb(dst + 2, src + 2, 2 * sizeof(long), &sig2, (uint64_t)me + 5,
                            right);
    shmem_quiet();
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)left + 1);
    shmem_signal_wait_until(&sig2, SHMEM_CMP_EQ, (uint64_t)left + 5);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(dst[i], v(left, i));
    shmem_barrier_all();
    /* The signal is set, not added: a second put leaves exactly the new value. */
    int isrc[2] = { me, -me };
    shmemx_put32_signal(idst, isrc, 2, &sig, 77, right);
    shmemx_int_put_signal_nb(idst, isrc, 2, &sig2, 78, right);
    shmem_quiet();
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 77);
    shmem_signal_wait_until(&sig2, SHMEM_CMP_EQ, 78);
    CHECK_EQ(idst[0], left);
    CHECK_EQ(idst[1], -left);
    shmem_barrier_all();
}

static void test_completion_sessions(void)
{
    static long box[64];
    for (int i = 0; i < 64; i++)
        box[i] = 0;
    shmem_barrier_all();
    shmemx_session_start(SHMEM_CTX_DEFAULT, SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT);
    for (int i = 0; i < 32; i++)
        shmem_long_p(&box[i], v(me, i), right);
    shmemx_session_stop(SHMEM_CTX_DEFAULT);
    shmemx_pe_quiet(right);
    shmem_barrier_all();
    for (int i = 0; i < 32; i++)
        CHECK_EQ(box[i], v(left, i));
    shmem_barrier_all();
}

/* pe_quiet completes the puts to its PE: a large put (in flight over the network
 * when pe_quiet is called) and small ones to every other PE, then pe_quiet(right)
 * and a flag that right waits for; right checks the data without a barrier, so only
 * pe_quiet made it visible. The flag goes on a private context, which has network
 * resources of its own, so that the transport's ordering of one endpoint cannot
 * make up for a pe_quiet that completed nothing. Rounds use fresh values. */
static void test_pe_quiet(void)
{
    shmem_ctx_t fctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &fctx), 0);
    enum { N = 1 << 15, ROUNDS = 3 }; /* 256 KiB */
    long *big = test_malloc(N * sizeof(long)), *src = test_malloc(N * sizeof(long));
    static long small[64], flag;
    flag = 0;
    shmem_barrier_all();
    for (int r = 1; r <= ROUNDS; r++) {
        for (int i = 0; i < N; i++)
            src[i] = v(me, i) * r;
        shmemx_putmem_nb(big, src, N * sizeof(long), right);
        for (int pe = 0; pe < npes && pe < 64; pe++)
            if (pe != right)
                shmem_long_put_nbi(&small[me % 64], &src[pe], 1, pe);
        shmemx_pe_quiet(right);
        shmem_ctx_long_atomic_set(fctx, &flag, r, right);
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, r);
        for (int i = 0; i < N; i++)
            if (big[i] != v(left, i) * r) {
                check_note("checking round %d: what PE %d put before shmemx_pe_quiet(%d)", r,
                           left, me);
                CHECK_EQ(big[i], v(left, i) * r);
            }
        shmem_barrier_all(); /* src and big are rewritten next round */
    }
    shmem_ctx_destroy(fctx);
    shmem_free(src);
    shmem_free(big);
}

/* Team member 0's world PE, the team's size and this PE's rank, against the
 * expectation; the members' world numbers summed over the team. */
static void check_team(shmem_team_t t, int want_size, int want_rank, int want_first,
                       int stride)
{
    static long mine, sum;
    CHECK(t != SHMEM_TEAM_INVALID);
    CHECK_EQ(shmemx_team_n_pes(t), want_size);
    CHECK_EQ(shmemx_team_npes(t), want_size);
    CHECK_EQ(shmemx_team_my_pe(t), want_rank);
    CHECK_EQ(shmemx_team_mype(t), want_rank);
    CHECK_EQ(shmemx_team_translate_pe(t, 0, SHMEM_TEAM_WORLD), want_first);
    mine = me;
    CHECK_EQ(shmem_long_sum_reduce(t, &sum, &mine, 1), 0);
    long want = 0;
    for (int i = 0; i < want_size; i++)
        want += want_first + (long)i * stride;
    CHECK_EQ(sum, want);
    CHECK_EQ(shmemx_team_barrier(t), 0);
}

static void test_grid3(int X, int Y, int Z)
{
    shmem_team_t xt, yt, zt;
    shmemx_team_split_3d(SHMEM_TEAM_WORLD, X, Y, Z, &xt, &yt, &zt);
    if (me >= X * Y * Z) {
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID &&
              zt == SHMEM_TEAM_INVALID);
    } else {
        int x = me % X, y = (me / X) % Y, z = me / (X * Y);
        check_team(xt, X, x, me - x, 1);
        check_team(yt, Y, y, me - X * y, X);
        check_team(zt, Z, z, me - X * Y * z, X * Y);
        shmemx_team_destroy(&xt);
        shmemx_team_destroy(&yt);
        shmemx_team_destroy(&zt);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID &&
              zt == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
}

static void test_teams(void)
{
    CHECK_EQ(shmemx_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmemx_team_n_pes(SHMEM_TEAM_WORLD), npes);

    shmem_team_t evens;
    shmemx_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &evens);
    if (me % 2 == 0) {
        check_team(evens, (npes + 1) / 2, me / 2, 0, 2);
        shmem_team_config_t cfg;
        CHECK_EQ(shmemx_team_get_config(evens, 0, &cfg), 0);
        shmem_ctx_t ctx;
        if (shmemx_team_ctx_create(evens, 0, &ctx) == 0) {
            shmem_team_t back;
            CHECK_EQ(shmemx_ctx_get_team(ctx, &back), 0);
            CHECK(back == evens);
            shmem_ctx_destroy(ctx);
        }
        shmemx_team_destroy(&evens);
        CHECK(evens == SHMEM_TEAM_INVALID);
    } else {
        CHECK(evens == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();

    /* A 2-D grid covering every PE (1.5's split, a short last row included). */
    int X = npes >= 2 ? 2 : 1, Y = (npes + X - 1) / X;
    shmem_team_t xt, yt;
    shmemx_team_split_2d(SHMEM_TEAM_WORLD, X, Y, &xt, &yt);
    int x = me % X, y = me / X;
    int row = npes - y * X < X ? npes - y * X : X, col = (npes - x + X - 1) / X;
    check_team(xt, row, x, y * X, 1);
    check_team(yt, col, y, x, X);
    shmemx_team_destroy(&xt);
    shmemx_team_destroy(&yt);
    shmem_barrier_all();
    /* A grid of one row of (npes / 2 rounded up): the PEs past it are left out. */
    int half = (npes + 1) / 2;
    shmemx_team_split_2d(SHMEM_TEAM_WORLD, half, 1, &xt, &yt);
    if (me < half) {
        check_team(xt, half, me, 0, 1);
        check_team(yt, 1, 0, me, 1);
        shmemx_team_destroy(&xt);
        shmemx_team_destroy(&yt);
    } else {
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();

    /* 3-D grids: the whole job, and grids smaller than the job. */
    int gx = npes >= 2 ? 2 : 1, gy = npes >= 4 ? 2 : 1, gz = npes / (gx * gy);
    test_grid3(gx, gy, gz);
    test_grid3(1, npes >= 2 ? 2 : 1, 1);
    if (npes >= 3)
        test_grid3(3, 1, 1);
    /* A grid larger than the parent makes no teams (a warning on PE 0). */
    shmem_team_t a, b, c;
    shmemx_team_split_3d(SHMEM_TEAM_WORLD, npes, 2, 1, &a, &b, &c);
    CHECK(a == SHMEM_TEAM_INVALID && b == SHMEM_TEAM_INVALID && c == SHMEM_TEAM_INVALID);
    shmem_barrier_all();
}

/* The colour/key split against MPI_Comm_split's rule, worked out here: members of a
 * colour ranked by key, then parent rank; a negative colour gets no team
 * (test_cx_split.c: splits whose teams are not evenly spaced PEs). */
static void test_color_split(void)
{
    shmem_team_t t;
    /* Evens and odds, ranked by world rank. */
    shmemx_team_split(SHMEM_TEAM_WORLD, me % 2, me, &t);
    int odd = me % 2, nodd = npes / 2, neven = npes - nodd;
    check_team(t, odd ? nodd : neven, me / 2, odd, 2);
    shmemx_team_destroy(&t);
    /* One colour, keys reversed: rank npes - 1 - me, member 0 the last world PE. */
    shmemx_team_split(SHMEM_TEAM_WORLD, 7, -me, &t);
    check_team(t, npes, npes - 1 - me, npes - 1, -1);
    /* A split of a split: the reversed team's first half by rank, equal keys. */
    shmem_team_t half;
    int r = npes - 1 - me, h = (npes + 1) / 2;
    shmemx_team_split(t, r < h ? 0 : -1, 0, &half);
    if (r < h)
        check_team(half, h, r, npes - 1, -1);
    else
        CHECK(half == SHMEM_TEAM_INVALID);
    shmemx_team_destroy(&half);
    shmemx_team_destroy(&t);
    /* PE 0 opts out (negative colour); the rest form one team. */
    shmemx_team_split(SHMEM_TEAM_WORLD, me == 0 ? -1 : 3, me, &t);
    if (me == 0)
        CHECK(t == SHMEM_TEAM_INVALID);
    else
        check_team(t, npes - 1, me - 1, 1, 1);
    shmemx_team_destroy(&t);
    shmem_barrier_all();
}

int main(void)
{
    int provided = -1;
    CHECK_EQ(shmemx_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    int queried = -2;
    shmemx_query_thread(&queried);
    CHECK_EQ(queried, provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    test_rma_nb();
    test_amo_nb();
    test_short_amo();
    test_put_signal_legacy();
    test_completion_sessions();
    test_pe_quiet();
    test_teams();
    test_color_split();
    if (me == 0)
        printf("cx: all checks passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
