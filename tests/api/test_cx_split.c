/* shmemx_team_split with colourings whose teams are not evenly spaced world PEs (and
 * some that are): every team routine and collective, and put/get through a context
 * made on the team, on each team, on splits of those teams (strided, 2-D, 3-D, colour),
 * checked against the members worked out here from the colours and keys alone
 * (MPI_Comm_split's rule: ranked by key, ties by parent rank; negative colour: none).
 *
 * With an argument, one failure case: bad_pe (a team context's put to team PE n) or
 * null_team (no place for the new team). */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define MAXP 64
/* Longs: past the channels' slots, so the large broadcast and reduction paths run. */
#define BIG 1536

static int me, npes;
static const char *cur = "";

/* A team as this test expects it: member i is world PE pes[i]; me: this PE's index. */
struct expect {
    int n, me, pes[MAXP];
};

#define EXPECT(a, b)                                                                         \
    do {                                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                                  \
        if (a_ != b_)                                                                        \
            check_failed(__FILE__, __LINE__, "%s: %s == %s (%lld != %lld)", cur, #a, #b, a_, \
                         b_);                                                                \
    } while (0)

static unsigned hash(unsigned x)
{
    x ^= x >> 16;
    x *= 0x45d9f3bu;
    x ^= x >> 16;
    return x;
}

#define NCOLOURINGS 5
static const char *const colouring_name[NCOLOURINGS] = {
    "colour r%3==0, key r",     "colour r%3==0, key n-r",     "colour and key by hash",
    "one colour, permuted key", "last opts out, key by hash",
};

/* Colouring c of parent rank r of n. */
static void colouring(int c, int r, int n, int *colour, int *key)
{
    switch (c) {
    case 0:
        *colour = r % 3 == 0 ? 0 : 1;
        *key = r;
        break;
    case 1:
        *colour = r % 3 == 0 ? 0 : 1;
        *key = n - r;
        break;
    case 2: /* few keys, so some members tie and rank by parent rank */
        *colour = (int)(hash((unsigned)r + 11) % 3);
        *key = (int)(hash((unsigned)r * 7 + 3) % 4);
        break;
    case 3:
        *colour = 5;
        *key = (r * 2 + 1) % n;
        break;
    default:
        *colour = r == n - 1 && n > 1 ? -1 : r % 2;
        *key = (int)(hash((unsigned)r) % 5) - 2;
        break;
    }
}

/* The team colouring c of parent p makes for this PE; 0 when it gets none. */
static int expect_split(const struct expect *p, int c, struct expect *e)
{
    int col[MAXP] = { 0 }, key[MAXP] = { 0 };
    for (int r = 0; r < p->n; r++)
        colouring(c, r, p->n, &col[r], &key[r]);
    if (col[p->me] < 0)
        return 0;
    int ranks[MAXP], n = 0;
    for (int r = 0; r < p->n; r++) {
        if (col[r] != col[p->me])
            continue;
        int at = n++;
        while (at > 0 && key[ranks[at - 1]] > key[r]) { /* stable: ties keep rank order */
            ranks[at] = ranks[at - 1];
            at--;
        }
        ranks[at] = r;
    }
    e->n = n;
    for (int i = 0; i < n; i++) {
        e->pes[i] = p->pes[ranks[i]];
        if (ranks[i] == p->me)
            e->me = i;
    }
    return 1;
}

/* Each collective of one exercise writes a dest of its own: a member may enter the
 * next collective (and write into peers' dest) while another still checks the last. */
enum { O_BCAST, O_MAX, O_MIN, O_PROD, O_EX, O_IN, O_FCOL, O_COL, O_A2A, O_A2AS, O_N };
static long big_src[BIG], big_bcast[BIG], big_sum[BIG];
static long lsrc[4 * MAXP], out[O_N][4 * MAXP];
static unsigned long usrc[3], uand[3], uor[3], uxor[3];
static long ring, ident;
static unsigned char vsrc[8 * MAXP], vdst[8 * MAXP], vpacked[8 * MAXP];
static size_t s_off[MAXP], s_sz[MAXP], t_off[MAXP], t_sz[MAXP];

static void check_translate(shmem_team_t t, const struct expect *e)
{
    EXPECT(shmem_team_n_pes(t), e->n);
    EXPECT(shmem_team_my_pe(t), e->me);
    for (int i = 0; i < e->n; i++) {
        EXPECT(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD), e->pes[i]);
        EXPECT(shmem_team_translate_pe(t, i, t), i);
    }
    for (int p = 0; p < npes; p++) {
        int want = -1;
        for (int i = 0; i < e->n; i++)
            if (e->pes[i] == p)
                want = i;
        EXPECT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, t), want);
    }
    EXPECT(shmem_team_translate_pe(t, e->n, SHMEM_TEAM_WORLD), -1);
    EXPECT(shmem_team_translate_pe(t, -1, SHMEM_TEAM_WORLD), -1);
    CHECK(shmem_team_ptr(t, &ring, e->n) == NULL);
    EXPECT(shmem_team_sync(t), 0);
}

/* A put to the right and a get from the left, team PEs through a team context. */
static void check_ctx(shmem_team_t t, const struct expect *e)
{
    int n = e->n, right = (e->me + 1) % n, left = (e->me + n - 1) % n;
    shmem_ctx_t ctx;
    EXPECT(shmem_team_create_ctx(t, 0, &ctx), 0);
    ring = -1;
    ident = me;
    EXPECT(shmem_team_sync(t), 0);
    shmem_ctx_long_p(ctx, &ring, me * 1000L + 7, right);
    shmem_ctx_quiet(ctx);
    EXPECT(shmem_team_sync(t), 0);
    EXPECT(ring, e->pes[left] * 1000L + 7);
    EXPECT(shmem_ctx_long_g(ctx, &ident, left), e->pes[left]);
    long got = -1;
    shmem_ctx_long_get(ctx, &got, &ident, 1, right);
    EXPECT(got, e->pes[right]);
    shmem_ctx_destroy(ctx);
}

static void check_bcast_reduce(shmem_team_t t, const struct expect *e)
{
    int n = e->n, root = n - 1;
    for (int k = 0; k < BIG; k++) {
        big_src[k] = me * 100000L + k;
        big_bcast[k] = -1;
    }
    EXPECT(shmem_team_sync(t), 0);
    EXPECT(shmem_long_broadcast(t, big_bcast, big_src, BIG, root), 0);
    for (int k = 0; k < BIG; k++)
        EXPECT(big_bcast[k], e->pes[root] * 100000L + k);
    lsrc[0] = me + 5;
    EXPECT(shmem_long_broadcast(t, out[O_BCAST], lsrc, 1, n / 2), 0);
    EXPECT(out[O_BCAST][0], e->pes[n / 2] + 5);

    EXPECT(shmem_long_sum_reduce(t, big_sum, big_src, BIG), 0);
    long pes_sum = 0;
    for (int i = 0; i < n; i++)
        pes_sum += e->pes[i];
    for (int k = 0; k < BIG; k++)
        EXPECT(big_sum[k], pes_sum * 100000L + (long)n * k);

    unsigned long band = ~0ul, bor = 0, bxor = 0;
    long mx = -1, mn = 1L << 40, prod = 1;
    for (int i = 0; i < n; i++) {
        unsigned long b = 1ul << e->pes[i] | 1ul << 63;
        band &= b;
        bor |= b;
        bxor ^= b;
        mx = e->pes[i] > mx ? e->pes[i] : mx;
        mn = e->pes[i] < mn ? e->pes[i] : mn;
        prod *= e->pes[i] % 4 + 1;
    }
    usrc[0] = 1ul << me | 1ul << 63;
    EXPECT(shmem_ulong_and_reduce(t, uand, usrc, 1), 0);
    EXPECT(uand[0], band);
    EXPECT(shmem_ulong_or_reduce(t, uor, usrc, 1), 0);
    EXPECT(uor[0], bor);
    EXPECT(shmem_ulong_xor_reduce(t, uxor, usrc, 1), 0);
    EXPECT(uxor[0], bxor);
    lsrc[0] = me;
    lsrc[1] = me % 4 + 1;
    EXPECT(shmem_long_max_reduce(t, out[O_MAX], lsrc, 1), 0);
    EXPECT(out[O_MAX][0], mx);
    EXPECT(shmem_long_min_reduce(t, out[O_MIN], lsrc, 1), 0);
    EXPECT(out[O_MIN][0], mn);
    EXPECT(shmem_long_prod_reduce(t, out[O_PROD], lsrc + 1, 1), 0);
    EXPECT(out[O_PROD][0], prod);

    /* Scans, in team order. */
    lsrc[0] = me + 1;
    long in = 0;
    for (int i = 0; i < e->me; i++)
        in += e->pes[i] + 1;
    EXPECT(shmem_long_sum_exscan(t, out[O_EX], lsrc, 1), 0);
    if (e->me > 0)
        EXPECT(out[O_EX][0], in);
    EXPECT(shmem_long_sum_inscan(t, out[O_IN], lsrc, 1), 0);
    EXPECT(out[O_IN][0], in + me + 1);
}

static void check_exchange(shmem_team_t t, const struct expect *e)
{
    int n = e->n;
    /* fcollect: two longs a member; collect: 1 to 3 by world PE, in team order. */
    lsrc[0] = me;
    lsrc[1] = me * 3L;
    EXPECT(shmem_long_fcollect(t, out[O_FCOL], lsrc, 2), 0);
    for (int i = 0; i < n; i++) {
        EXPECT(out[O_FCOL][2 * i], e->pes[i]);
        EXPECT(out[O_FCOL][2 * i + 1], e->pes[i] * 3L);
    }
    int mine = me % 3 + 1;
    for (int k = 0; k < mine; k++)
        lsrc[k] = me * 10L + k;
    EXPECT(shmem_long_collect(t, out[O_COL], lsrc, (size_t)mine), 0);
    for (int i = 0, at = 0; i < n; i++)
        for (int k = 0; k < e->pes[i] % 3 + 1; k++)
            EXPECT(out[O_COL][at++], e->pes[i] * 10L + k);

    /* alltoall: block j (2 longs) to member j; alltoalls: 1 long, strides 3 and 2. */
    for (int j = 0; j < n; j++)
        for (int x = 0; x < 2; x++)
            lsrc[2 * j + x] = me * 1000L + e->pes[j] * 10L + x;
    EXPECT(shmem_long_alltoall(t, out[O_A2A], lsrc, 2), 0);
    for (int i = 0; i < n; i++)
        for (int x = 0; x < 2; x++)
            EXPECT(out[O_A2A][2 * i + x], e->pes[i] * 1000L + me * 10L + x);
    for (int j = 0; j < n; j++)
        lsrc[3 * j] = me * 1000L + e->pes[j];
    EXPECT(shmem_long_alltoalls(t, out[O_A2AS], lsrc, 2, 3, 1), 0);
    for (int i = 0; i < n; i++)
        EXPECT(out[O_A2AS][2 * i], e->pes[i] * 1000L + me);

    /* alltoallv: 1 to 4 bytes from sender s to receiver d, by their world PEs. */
    for (int j = 0; j < n; j++) {
        s_off[j] = (size_t)j * 8;
        s_sz[j] = (size_t)((me + e->pes[j]) % 4 + 1);
        for (size_t b = 0; b < s_sz[j]; b++)
            vsrc[s_off[j] + b] = (unsigned char)(me * 16 + e->pes[j] + (int)b);
        t_off[j] = (size_t)(n - 1 - j) * 8;
    }
    memset(vdst, 0xee, sizeof vdst);
    EXPECT(shmemx_team_alltoallv(t, vdst, t_off, t_sz, vsrc, s_off, s_sz), 0);
    for (int i = 0; i < n; i++) {
        EXPECT(t_sz[i], (me + e->pes[i]) % 4 + 1);
        for (size_t b = 0; b < t_sz[i]; b++)
            EXPECT(vdst[t_off[i] + b], (unsigned char)(e->pes[i] * 16 + me + (int)b));
    }
    /* The packed form: the same blocks, one after another in team order. */
    size_t total = 0;
    EXPECT(shmemx_team_alltoallv_packed(t, vpacked, sizeof vpacked, &total, vsrc, s_off,
                                        s_sz),
           0);
    size_t at = 0;
    for (int i = 0; i < n; i++)
        for (int b = 0; b < (me + e->pes[i]) % 4 + 1; b++)
            EXPECT(vpacked[at++], (unsigned char)(e->pes[i] * 16 + me + b));
    EXPECT(total, at);
}

static void exercise(shmem_team_t t, const struct expect *e, const char *what)
{
    cur = what;
    CHECK(t != SHMEM_TEAM_INVALID);
    check_translate(t, e);
    check_ctx(t, e);
    check_bcast_reduce(t, e);
    check_exchange(t, e);
    EXPECT(shmem_team_sync(t), 0);
}

/* Splits of team t (members e): strided both ways, 2-D, and by colour. */
static void split_again(shmem_team_t t, const struct expect *e)
{
    int n = e->n;
    struct expect s;
    shmem_team_t sub;
    /* Every other member, then all of them backwards. */
    EXPECT(shmem_team_split_strided(t, 0, 2, (n + 1) / 2, NULL, 0, &sub), 0);
    if (e->me % 2 == 0) {
        s.n = (n + 1) / 2;
        s.me = e->me / 2;
        for (int i = 0; i < s.n; i++)
            s.pes[i] = e->pes[2 * i];
        exercise(sub, &s, "strided split (stride 2) of a colour's team");
        shmem_team_destroy(sub);
    } else
        CHECK(sub == SHMEM_TEAM_INVALID);
    EXPECT(shmem_team_split_strided(t, n - 1, -1, n, NULL, 0, &sub), 0);
    s.n = n;
    s.me = n - 1 - e->me;
    for (int i = 0; i < n; i++)
        s.pes[i] = e->pes[n - 1 - i];
    exercise(sub, &s, "strided split (stride -1) of a colour's team");
    shmem_team_destroy(sub);

    /* Rows of 2 (x) and columns (y). */
    shmem_team_t xt, yt;
    EXPECT(shmem_team_split_2d(t, 2, NULL, 0, &xt, NULL, 0, &yt), 0);
    int x = e->me % 2, y = e->me / 2;
    s.n = n - 2 * y < 2 ? 1 : 2;
    s.me = x;
    for (int i = 0; i < s.n; i++)
        s.pes[i] = e->pes[2 * y + i];
    exercise(xt, &s, "split_2d row of a colour's team");
    s.n = (n - x + 1) / 2;
    s.me = y;
    for (int i = 0; i < s.n; i++)
        s.pes[i] = e->pes[x + 2 * i];
    exercise(yt, &s, "split_2d column of a colour's team");
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);

    /* A 2 x 1 x n/2 grid: rows of 2 (x), lines of 1 (y), pillars of n/2 (z). */
    if (n >= 2) {
        shmem_team_t zt;
        int cells = 2 * (n / 2), z = e->me / 2;
        shmemx_team_split_3d(t, 2, 1, n / 2, &xt, &yt, &zt);
        if (e->me < cells) {
            s.n = 2;
            s.me = x;
            s.pes[0] = e->pes[2 * z];
            s.pes[1] = e->pes[2 * z + 1];
            exercise(xt, &s, "split_3d x line of a colour's team");
            s.n = 1;
            s.me = 0;
            s.pes[0] = e->pes[e->me];
            exercise(yt, &s, "split_3d y line of a colour's team");
            s.n = n / 2;
            s.me = z;
            for (int i = 0; i < s.n; i++)
                s.pes[i] = e->pes[x + 2 * i];
            exercise(zt, &s, "split_3d z line of a colour's team");
            shmem_team_destroy(xt);
            shmem_team_destroy(yt);
            shmem_team_destroy(zt);
        } else
            CHECK(xt == SHMEM_TEAM_INVALID && yt == SHMEM_TEAM_INVALID &&
                  zt == SHMEM_TEAM_INVALID);
    }

    for (int c = 2; c < 4; c++) {
        int colour, key;
        colouring(c, e->me, n, &colour, &key);
        shmemx_team_split(t, colour, key, &sub);
        if (expect_split(e, c, &s)) {
            exercise(sub, &s,
                     c == 2 ? "colour split (hash) of a colour's team"
                            : "colour split (permuted) of a colour's team");
            shmem_team_destroy(sub);
        } else
            CHECK(sub == SHMEM_TEAM_INVALID);
    }
}

static void failure(const char *which)
{
    shmem_team_t t;
    if (!strcmp(which, "null_team")) {
        shmemx_team_split(SHMEM_TEAM_WORLD, 0, me, NULL);
        return;
    }
    /* One colour in a permuted order: not evenly spaced from 3 PEs on. */
    int colour, key;
    colouring(3, me, npes, &colour, &key);
    shmemx_team_split(SHMEM_TEAM_WORLD, colour, key, &t);
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_team_create_ctx(t, 0, &ctx), 0);
    shmem_ctx_long_p(ctx, &ring, 1, shmem_team_n_pes(t));
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (npes > MAXP) {
        if (me == 0)
            printf("cx_split: skipped: more than %d PEs\n", MAXP);
        shmem_finalize();
        return 0;
    }
    if (argc > 1) {
        failure(argv[1]);
        shmem_finalize();
        fprintf(stderr, "FAIL PE %d: the failure case %s did not end the job\n", me, argv[1]);
        return 1;
    }
    struct expect world = { npes, me, { 0 } };
    for (int i = 0; i < npes; i++)
        world.pes[i] = i;
    for (int c = 0; c < NCOLOURINGS; c++) {
        int colour, key;
        colouring(c, me, npes, &colour, &key);
        shmem_team_t t;
        shmemx_team_split(SHMEM_TEAM_WORLD, colour, key, &t);
        struct expect e;
        if (!expect_split(&world, c, &e)) {
            CHECK(t == SHMEM_TEAM_INVALID);
            continue;
        }
        exercise(t, &e, colouring_name[c]);
        if (c == 0 || c == 3)
            split_again(t, &e);
        shmem_team_destroy(t);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("cx_split: all checks passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
