/* Teams: strided and 2d splits checked against the specification's formulas,
 * nested splits, team_sync ordering, team_ptr, configs, slot recycling and slot
 * exhaustion. Every new team is checked by check_team; between blocks all PEs meet in
 * a world barrier, so the AMO counters of one block never see another's updates. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define FREE_SLOTS 62 /* the library's 64 team slots less WORLD and SHARED */

static int me, npes;
static long counter[2]; /* AMO targets of the sync check, one per concurrent phase */
static int probe;       /* team_ptr target */

/* A team in world numbering: member i is world PE start + i * stride. */
struct layout {
    int start, stride, size;
};

static int index_of(const struct layout *l, int pe)
{
    if (l->size == 1 || l->stride == 0)
        return pe == l->start ? 0 : -1;
    int d = pe - l->start;
    if (d % l->stride || d / l->stride < 0 || d / l->stride >= l->size)
        return -1;
    return d / l->stride;
}

/* The child (start, stride, size) of a parent given in world numbering. */
static struct layout compose(struct layout p, int start, int stride, int size)
{
    return (struct layout){ p.start + start * p.stride, stride * p.stride, size };
}

/* Checks membership, numbering, translation, team_ptr and config of t against l, and
 * that team_sync orders AMOs: every member adds 1 at member 0 between two syncs. */
static void check_team(shmem_team_t t, struct layout l, int num_contexts, int phase)
{
    int i = index_of(&l, me);
    if (i < 0) {
        CHECK(t == SHMEM_TEAM_INVALID);
        CHECK_EQ(shmem_team_my_pe(t), -1);
        CHECK_EQ(shmem_team_n_pes(t), -1);
        return;
    }
    CHECK(t != SHMEM_TEAM_INVALID);
    CHECK_EQ(shmem_team_my_pe(t), i);
    CHECK_EQ(shmem_team_n_pes(t), l.size);
    for (int k = 0; k < l.size; k++) {
        int w = l.start + k * l.stride;
        CHECK_EQ(shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD), w);
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t), k);
        CHECK(shmem_team_ptr(t, &probe, k) == shmem_ptr(&probe, w));
    }
    CHECK_EQ(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(t, l.size, SHMEM_TEAM_WORLD), -1);
    CHECK_EQ(shmem_team_translate_pe(t, 0, SHMEM_TEAM_INVALID), -1);
    CHECK(shmem_team_ptr(t, &probe, l.size) == NULL);
    CHECK(shmem_team_ptr(t, &probe, -1) == NULL);
    for (int w = 0; w < npes; w++)
        CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, w, t), index_of(&l, w));

    shmem_team_config_t cfg = { -7 };
    CHECK_EQ(shmem_team_get_config(t, 0, NULL), 0);
    CHECK_EQ(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_EQ(cfg.num_contexts, num_contexts);

    long base = i == 0 ? shmem_long_atomic_fetch(&counter[phase], me) : 0;
    CHECK_EQ(shmem_team_sync(t), 0);
    shmem_long_atomic_add(&counter[phase], 1, l.start);
    CHECK_EQ(shmem_team_sync(t), 0);
    if (i == 0)
        CHECK_EQ(shmem_long_atomic_fetch(&counter[phase], me), base + l.size);
    CHECK_EQ(shmem_team_sync(t), 0);
}

static int strided_valid(int n, int start, int stride, int size)
{
    long last = start + (long)(size - 1) * stride;
    return size >= 1 && (stride != 0 || size == 1) && start >= 0 && start < n && last >= 0 &&
            last < n;
}

/* The node map the test runs under: SHOAL_TRANSPORT=mpi-all makes each PE its own
 * node, whatever SHOAL_NODE_MAP says. */
static const char *node_map(void)
{
    const char *t = getenv("SHOAL_TRANSPORT");
    return t && strcmp(t, "mpi-all") == 0 ? "pe" : getenv("SHOAL_NODE_MAP");
}

/* SHMEM_TEAM_SHARED, expected from how the test was launched rather than from the
 * library's own node detection: every test runs on one machine, so without
 * SHOAL_NODE_MAP all PEs share a node; "pe" makes each PE its own node; "block:K"
 * groups PEs K by K; a comma list names each PE's node, and this PE's node's PEs form
 * the team when they are evenly spaced (otherwise the team is this PE alone). */
static struct layout shared_layout(void)
{
    const char *map = node_map();
    if (!map || !*map)
        return (struct layout){ 0, 1, npes };
    if (strcmp(map, "pe") == 0)
        return (struct layout){ me, 1, 1 };
    if (strncmp(map, "block:", 6) == 0) {
        int k = atoi(map + 6), start = me - me % k;
        return (struct layout){ start, 1, start + k <= npes ? k : npes - start };
    }
    int node[64], n = 0;
    for (const char *p = map; *p && n < 64; p += strcspn(p, ","), p += *p == ',')
        node[n++] = atoi(p);
    CHECK_EQ(n, npes);
    int first = -1, last = -1, count = 0;
    for (int pe = 0; pe < npes; pe++)
        if (node[pe] == node[me]) {
            first = first < 0 ? pe : first;
            last = pe;
            count++;
        }
    int stride = count > 1 ? (last - first) / (count - 1) : 1;
    for (int i = 0; i < count; i++)
        if (node[first + i * stride] != node[me])
            return (struct layout){ me, 1, 1 };
    return (struct layout){ first, stride, count };
}

/* The expectation agrees with what load/store reaches: shmem_ptr works exactly for
 * the PEs of this node's team. (Not checked for comma lists, where a node of
 * unevenly spaced PEs reaches more PEs than its one-PE team.) */
static void check_shared_reach(struct layout shared)
{
    const char *map = node_map();
    if (map && *map && strcmp(map, "pe") != 0 && strncmp(map, "block:", 6) != 0)
        return;
    for (int pe = 0; pe < npes; pe++)
        CHECK((shmem_ptr(&probe, pe) != NULL) == (index_of(&shared, pe) >= 0));
}

static void test_predefined(void)
{
    struct layout shared = shared_layout();
    check_shared_reach(shared);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_SHARED), (me - shared.start) / shared.stride);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_SHARED), shared.size);
    CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED),
                                     SHMEM_TEAM_WORLD),
             me);
    CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
    shmem_team_config_t cfg = { -7 };
    CHECK_EQ(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK_EQ(cfg.num_contexts, 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, NULL) != 0);
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, &probe, 0) == NULL);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, &cfg, 0) == NULL); /* not symmetric */
    check_team(SHMEM_TEAM_WORLD, (struct layout){ 0, 1, npes }, 0, 0);
    check_team(SHMEM_TEAM_SHARED, shared, 0, 0);

    shmem_team_destroy(SHMEM_TEAM_INVALID);
    shmem_team_destroy(SHMEM_TEAM_WORLD); /* refused with a message */
    CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    CHECK_EQ(shmem_team_sync(SHMEM_TEAM_WORLD), 0);

    shmem_team_t t;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
}

/* Every start/stride/size around the valid range, valid or not, on a parent of all PEs. */
/* Every start/stride/size around the parent's size; p is the parent's layout in
 * world numbers, so the new team's is start p.start + start * p.stride, stride
 * stride * p.stride. */
static void test_strided(shmem_team_t parent, struct layout p)
{
    int n = p.size;
    for (int start = -1; start <= n; start++)
        for (int stride = -3; stride <= 3; stride++)
            for (int size = 0; size <= n + 1; size++) {
                shmem_team_config_t cfg = { start + 2 };
                long mask = size % 2 ? SHMEM_TEAM_NUM_CONTEXTS : 0;
                shmem_team_t t = (shmem_team_t)&cfg;
                int rc =
                        shmem_team_split_strided(parent, start, stride, size, &cfg, mask, &t);
                if (!strided_valid(n, start, stride, size)) {
                    CHECK(rc != 0);
                    CHECK(t == SHMEM_TEAM_INVALID);
                    continue;
                }
                CHECK_EQ(rc, 0);
                struct layout l = { p.start + start * p.stride, stride * p.stride, size };
                check_team(t, l, mask ? start + 2 : 0, 0);
                shmem_team_destroy(t);
            }
    shmem_barrier_all();
}

/* Splits of the even PEs, and their splits: strides compose. */
static void test_nested(void)
{
    struct layout ev = { 0, 2, (npes + 1) / 2 };
    shmem_team_t evens;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, ev.size, NULL, 0, &evens), 0);
    check_team(evens, ev, 0, 0);
    shmem_barrier_all();
    if (evens != SHMEM_TEAM_INVALID) {
        int n = ev.size;
        for (int start = 0; start < n; start++)
            for (int stride = -2; stride <= 2; stride++)
                for (int size = 1; size <= n; size++) {
                    if (!strided_valid(n, start, stride, size))
                        continue;
                    struct layout cl = compose(ev, start, stride, size);
                    shmem_team_t c;
                    CHECK_EQ(shmem_team_split_strided(evens, start, stride, size, NULL, 0,
                                                      &c),
                             0);
                    check_team(c, cl, 0, 0);
                    if (c != SHMEM_TEAM_INVALID) {
                        /* The child reversed, as a grandchild. */
                        shmem_team_t g;
                        CHECK_EQ(shmem_team_split_strided(c, size - 1, -1, size, NULL, 0, &g),
                                 0);
                        check_team(g, compose(cl, size - 1, -1, size), 0, 1);
                        shmem_team_destroy(g);
                    }
                    shmem_team_destroy(c);
                }
    } else {
        shmem_team_t t = (shmem_team_t)&ev;
        CHECK(shmem_team_split_strided(evens, 0, 1, 1, NULL, 0, &t) != 0);
        CHECK(t == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
    shmem_team_destroy(evens);

    /* A chain: each team is its parent reversed, without the parent's PE 0. */
    shmem_team_t chain[64];
    struct layout l = { 0, 1, npes };
    int depth = 0;
    chain[0] = SHMEM_TEAM_WORLD;
    while (l.size > 1 && chain[depth] != SHMEM_TEAM_INVALID) {
        struct layout next = compose(l, l.size - 1, -1, l.size - 1);
        CHECK_EQ(shmem_team_split_strided(chain[depth], l.size - 1, -1, l.size - 1, NULL, 0,
                                          &chain[depth + 1]),
                 0);
        check_team(chain[depth + 1], next, 0, 0);
        depth++;
        l = next;
    }
    while (depth > 0)
        shmem_team_destroy(chain[depth--]);
    shmem_barrier_all();
}

/* 2d splits of a parent laid out as pl in the world, for every xrange. */
static void test_2d_on(shmem_team_t parent, struct layout pl)
{
    int n = pl.size, p = shmem_team_my_pe(parent);
    for (int xrange = 1; xrange <= n + 1; xrange++) {
        shmem_team_config_t xc = { 3 }, yc = { 4 };
        shmem_team_t xt, yt;
        CHECK_EQ(shmem_team_split_2d(parent, xrange, &xc, SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc,
                                     0, &yt),
                 0);
        int xr = xrange > n ? n : xrange, x = p % xr, y = p / xr;
        int row = n - y * xr < xr ? n - y * xr : xr;
        check_team(xt, compose(pl, y * xr, 1, row), 3, 0);
        check_team(yt, compose(pl, x, xr, (n - x + xr - 1) / xr), 0, 1);
        CHECK_EQ(shmem_team_my_pe(xt), x);
        CHECK_EQ(shmem_team_my_pe(yt), y);
        shmem_team_destroy(xt);
        shmem_team_destroy(yt);
    }
    shmem_team_t xt = (shmem_team_t)&pl, yt = (shmem_team_t)&pl;
    CHECK(shmem_team_split_2d(parent, 0, NULL, 0, &xt, NULL, 0, &yt) != 0);
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID);
}

static void test_2d(void)
{
    test_2d_on(SHMEM_TEAM_WORLD, (struct layout){ 0, 1, npes });
    shmem_team_t rev;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &rev),
             0);
    test_2d_on(rev, (struct layout){ npes - 1, -1, npes });
    shmem_team_destroy(rev);
    shmem_team_t xt, yt;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &xt, NULL, 0, &yt) != 0);
    CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID);
    shmem_barrier_all();
}

/* Far more teams than slots, one at a time: slots are recycled. */
static void test_recycle(void)
{
    for (int k = 0; k < 100; k++) {
        int size = k % npes + 1;
        shmem_team_t t;
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, size, NULL, 0, &t), 0);
        if (k % 10 == 0)
            check_team(t, (struct layout){ 0, 1, size }, 0, 0);
        else if (t != SHMEM_TEAM_INVALID)
            CHECK_EQ(shmem_team_sync(t), 0);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
}

/* Splits (start, stride, size) of WORLD until one fails; returns how many succeeded. */
static int fill(shmem_team_t *teams, int start, int stride, int size)
{
    int n = 0;
    for (;;) {
        shmem_team_t t;
        int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t);
        if (rc) {
            CHECK(t == SHMEM_TEAM_INVALID);
            return n;
        }
        CHECK(n < 64);
        teams[n++] = t;
    }
}

static void destroy_all(shmem_team_t *teams, int n)
{
    for (int k = 0; k < n; k++)
        shmem_team_destroy(teams[k]);
}

/* Running out of slots fails cleanly on every PE and corrupts nothing. */
static void test_exhaustion(void)
{
    static shmem_team_t teams[64], odds[64];
    struct layout all = { 0, 1, npes };
    for (int round = 0; round < 2; round++) {
        CHECK_EQ(fill(teams, 0, 1, npes), FREE_SLOTS);
        shmem_team_t xt, yt;
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt) != 0);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID);
        check_team(teams[0], all, 0, 0);
        check_team(teams[FREE_SLOTS - 1], all, 0, 0);
        /* One slot left on every PE: the row takes it, the column fails, the row is undone. */
        shmem_team_destroy(teams[FREE_SLOTS - 1]);
        CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &xt, NULL, 0, &yt) != 0);
        CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID);
        CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0,
                                          &teams[FREE_SLOTS - 1]),
                 0);
        check_team(teams[FREE_SLOTS - 1], all, 0, 0);
        destroy_all(teams, FREE_SLOTS);
        shmem_barrier_all();
    }
    if (npes < 2)
        return;
    /* Slots are free per PE: the even PEs run out, the odd ones still have slots. */
    struct layout ev = { 0, 2, (npes + 1) / 2 }, od = { 1, 2, npes / 2 };
    CHECK_EQ(fill(teams, ev.start, ev.stride, ev.size), FREE_SLOTS);
    CHECK_EQ(fill(odds, od.start, od.stride, od.size), FREE_SLOTS);
    shmem_team_t t;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    check_team(teams[FREE_SLOTS - 1], ev, 0, 0);
    check_team(odds[FREE_SLOTS - 1], od, 0, 1);
    destroy_all(teams, FREE_SLOTS);
    destroy_all(odds, FREE_SLOTS);
    shmem_barrier_all();
    CHECK_EQ(fill(teams, 0, 1, npes), FREE_SLOTS);
    destroy_all(teams, FREE_SLOTS);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    test_predefined();
    test_strided(SHMEM_TEAM_WORLD, (struct layout){ 0, 1, npes });
    test_strided(SHMEM_TEAM_SHARED, shared_layout());
    test_nested();
    test_2d();
    test_recycle();
    test_exhaustion();
    shmem_finalize();
    if (me == 0)
        printf("test_team: OK on %d PEs\n", npes);
    return 0;
}
