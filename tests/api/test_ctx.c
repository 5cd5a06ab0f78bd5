/* Contexts: creation with every option, destruction, ctx_get_team, invalid handles,
 * and put/get/AMO on contexts of a reversed, strided subteam, where PE numbers are
 * the team's and the data must land on the matching world PEs. */
#include <shmem.h>
#include <stdio.h>

#include "check.h"

static int me, npes;
static int ring[3]; /* [0] world ring, [1] team ring by p, [2] team ring by put */
static int origin;  /* world PE of the team member that wrote ring[1] */
static long total;

static void test_world_contexts(void)
{
    shmem_team_t t = SHMEM_TEAM_INVALID;
    CHECK_EQ(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &t), 0);
    CHECK(t == SHMEM_TEAM_WORLD);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    shmem_ctx_t c = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &c) != 0);
    CHECK(c == SHMEM_CTX_INVALID);

    const long options[] = { 0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                             SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE };
    for (unsigned k = 0; k < sizeof options / sizeof options[0]; k++) {
        CHECK_EQ(shmem_ctx_create(options[k], &c), 0);
        CHECK(c != SHMEM_CTX_INVALID && c != SHMEM_CTX_DEFAULT);
        CHECK_EQ(shmem_ctx_get_team(c, &t), 0);
        CHECK(t == SHMEM_TEAM_WORLD);
        shmem_ctx_int_p(c, &ring[0], me * 10 + (int)k, (me + 1) % npes);
        shmem_ctx_quiet(c);
        shmem_barrier_all();
        CHECK_EQ(ring[0], (me + npes - 1) % npes * 10 + (int)k);
        shmem_barrier_all();
        shmem_ctx_destroy(c);
    }

    /* Many at once, destroyed out of creation order; a few left for finalize. */
    shmem_ctx_t many[100];
    for (int k = 0; k < 100; k++)
        CHECK_EQ(shmem_team_create_ctx(SHMEM_TEAM_SHARED, SHMEM_CTX_PRIVATE, &many[k]), 0);
    for (int k = 0; k < 100; k += 2)
        shmem_ctx_destroy(many[k]);
    for (int k = 97; k > 0; k -= 2)
        shmem_ctx_destroy(many[k]);
    CHECK_EQ(shmem_ctx_get_team(many[99], &t), 0);
    CHECK(t == SHMEM_TEAM_SHARED);

    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_DEFAULT); /* refused with a message */
    shmem_int_p(&ring[0], me, me);
    CHECK_EQ(ring[0], me);
    shmem_barrier_all();
}

/* Team: world PEs npes-1, npes-3, ... (stride -2), so team PE i is world npes-1-2i. */
static void test_team_contexts(void)
{
    int n = (npes + 1) / 2;
    shmem_team_config_t cfg = { 2 };
    shmem_team_t team;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -2, n, &cfg,
                                      SHMEM_TEAM_NUM_CONTEXTS, &team),
             0);
    if (team != SHMEM_TEAM_INVALID) {
        int i = shmem_team_my_pe(team), right = (i + 1) % n, left = (i + n - 1) % n;
        CHECK_EQ(me, npes - 1 - 2 * i);
        /* More contexts than num_contexts announced: allowed. */
        shmem_ctx_t c[3];
        for (int k = 0; k < 3; k++) {
            CHECK_EQ(shmem_team_create_ctx(team, k == 1 ? SHMEM_CTX_SERIALIZED : 0, &c[k]),
                     0);
            shmem_team_t t;
            CHECK_EQ(shmem_ctx_get_team(c[k], &t), 0);
            CHECK(t == team);
        }
        shmem_ctx_int_p(c[0], &ring[1], 100 + i, right);
        shmem_ctx_int_p(c[0], &origin, me, right);
        int v = 200 + i;
        shmem_ctx_int_put(c[1], &ring[2], &v, 1, right);
        shmem_ctx_long_atomic_add(c[2], &total, i + 1, 0);
        for (int k = 0; k < 3; k++)
            shmem_ctx_quiet(c[k]);
        CHECK_EQ(shmem_team_sync(team), 0);
        CHECK_EQ(ring[1], 100 + left);
        CHECK_EQ(ring[2], 200 + left);
        CHECK_EQ(origin, shmem_team_translate_pe(team, left, SHMEM_TEAM_WORLD));
        CHECK_EQ(shmem_ctx_int_g(c[1], &ring[1], right), 100 + i);
        int got = -1;
        shmem_ctx_getmem(c[2], &got, &ring[2], sizeof got, left);
        CHECK_EQ(got, 200 + (left + n - 1) % n);
        CHECK_EQ(shmem_ctx_long_atomic_fetch(c[0], &total, 0), (long)n * (n + 1) / 2);
        if (i == 0)
            CHECK_EQ(total, (long)n * (n + 1) / 2);
        shmem_ctx_destroy(c[0]);
        CHECK_EQ(shmem_team_sync(team), 0);
    }
    /* The team's remaining (shareable) contexts go with it. */
    shmem_team_destroy(team);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_world_contexts();
    test_team_contexts();
    shmem_finalize();
    if (me == 0)
        printf("test_ctx: OK on %d PEs\n", npes);
    return 0;
}
