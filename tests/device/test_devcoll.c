/* Collectives on device memory without host staging, and collectives from device code.
 *
 * Host-issued: every reduction of the type tables (and/or/xor, min/max, sum/prod),
 * broadcast, fcollect, collect (sizes differing by member) and alltoall of several
 * element sizes, a stream-ordered sum, on the world team, a team of the even PEs and
 * (broadcast to alltoall, a few reductions) a colour split's team that is not strided,
 * on device-space objects; each result read back and checked against a value computed
 * here. When every member's device heap is mapped on this node, the collectives must
 * stage nothing through host memory (shmemx_device_host_bounces unchanged), while a
 * scan, which the staging engine runs, must count what it stages.
 *
 * From device code (emu kernels of 4 threads): shmemx_dev_barrier_all orders puts
 * before a peer's reads; every shmemx_dev_TYPENAME_OP_reduce and its _block form on
 * both teams, sizes of one element and of several work chunks, one in place.
 * With the argument "explicit": device code's barrier on the colour split's team,
 * which device collectives refuse with a message. */
#include <shmem.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"
#include "test_stream.h"

#define BIG 5003 /* elements: past one work chunk of device reductions, odd */

static shmem_team_t evens, shuffled;

/* Every member's device heap is mapped here: the collectives must go device to device. */
static int all_mapped(shmem_team_t team, void *sym)
{
    for (int i = 0; i < shmem_team_n_pes(team); i++)
        if (!shmem_ptr(sym, shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD)))
            return 0;
    return 1;
}

static uint64_t bounces(void)
{
    uint64_t ops = 0, bytes = 0;
    shmemx_device_host_bounces(&ops, &bytes);
    CHECK((ops == 0) == (bytes == 0));
    return bytes;
}

/* Bounces across a collective on this node: none (a reduction: where the backend has a
 * device reduction; the others stage it). */
#define EXPECT_BOUNCES_IF(ok, team, sym, before, what)                                       \
    do {                                                                                     \
        uint64_t b_ = bounces() - (before);                                                  \
        if ((ok) && all_mapped(team, sym))                                                   \
            CHECK_WHILE(b_ == 0, "%s: %llu bytes staged through host memory", what,          \
                        (unsigned long long)b_);                                             \
    } while (0)
#define EXPECT_BOUNCES(team, sym, before, what) EXPECT_BOUNCES_IF(1, team, sym, before, what)

/* ---- host-issued reductions over every type of the tables ---------------------------- */

#define V_ARITH(pe, i) (((pe)*7 + (i)*3) % 23 + 1)
#define V_PROD(pe, i) (((pe) + (i)) % 3 ? 1 : 2)
#define V_BITS(pe, i) ((((pe) + 1) * 37 + (i)*11) & 0x7f)

#define X_and(a, b) ((a) & (b))
#define X_or(a, b) ((a) | (b))
#define X_xor(a, b) ((a) ^ (b))
#define X_max(a, b) ((a) > (b) ? (a) : (b))
#define X_min(a, b) ((a) < (b) ? (a) : (b))
#define X_sum(a, b) ((a) + (b))
#define X_prod(a, b) ((a) * (b))
#define V_and V_BITS
#define V_or V_BITS
#define V_xor V_BITS
#define V_max V_ARITH
#define V_min V_ARITH
#define V_sum V_ARITH
#define V_prod V_PROD

/* Fills source, reduces (in place when inplace), checks dest on this PE. PREFIX names
 * the host routine (shmem_) or is the device's form, run by a kernel. */
#define HOST_RED(T, N, OP)                                                                   \
    static void host_##N##_##OP(shmem_team_t team, size_t n, int inplace)                    \
    {                                                                                        \
        int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);                        \
        /* every PE allocates (collective over the world); the members reduce */             \
        T *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, n * sizeof(T));                      \
        T *dst = inplace ? src : shmem_space_malloc(SHMEM_SPACE_DEVICE, n * sizeof(T));      \
        T *h = malloc(n * sizeof(T));                                                        \
        CHECK(src &&dst &&h);                                                                \
        if (me < 0)                                                                          \
            goto done;                                                                       \
        for (size_t i = 0; i < n; i++)                                                       \
            h[i] = (T)V_##OP(me, i);                                                         \
        tdev_h2d(src, h, n * sizeof(T));                                                     \
        uint64_t b0 = bounces();                                                             \
        CHECK(shmem_##N##_##OP##_reduce(team, dst, src, n) == 0);                            \
        EXPECT_BOUNCES_IF(shoal_dev->reduce, team, dst, b0, "shmem_" #N "_" #OP "_reduce");  \
        tdev_d2h(h, dst, n * sizeof(T));                                                     \
        for (size_t i = 0; i < n; i++) {                                                     \
            T want = (T)V_##OP(0, i);                                                        \
            for (int pe = 1; pe < np; pe++)                                                  \
                want = (T)X_##OP(want, (T)V_##OP(pe, i));                                    \
            CHECK_WHILE(h[i] == want, "shmem_" #N "_" #OP "_reduce of %zu, element %zu", n,  \
                        i);                                                                  \
        }                                                                                    \
    done:                                                                                    \
        free(h);                                                                             \
        if (!inplace)                                                                        \
            shmem_free(dst);                                                                 \
        shmem_free(src);                                                                     \
    }
#define HOST_BITWISE(T, N) HOST_RED(T, N, and) HOST_RED(T, N, or) HOST_RED(T, N, xor)
#define HOST_MINMAX(T, N) HOST_RED(T, N, max) HOST_RED(T, N, min)
#define HOST_ARITH(T, N) HOST_RED(T, N, sum) HOST_RED(T, N, prod)
SHMEM_REDUCE_BITWISE_TYPES(HOST_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(HOST_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(HOST_ARITH)

#define RUN_RED(T, N, OP) host_##N##_##OP(team, n, inplace);
#define RUN_BITWISE(T, N) RUN_RED(T, N, and) RUN_RED(T, N, or) RUN_RED(T, N, xor)
#define RUN_MINMAX(T, N) RUN_RED(T, N, max) RUN_RED(T, N, min)
#define RUN_ARITH(T, N) RUN_RED(T, N, sum) RUN_RED(T, N, prod)
static void host_reductions(shmem_team_t team, size_t n, int inplace)
{
    SHMEM_REDUCE_BITWISE_TYPES(RUN_BITWISE)
    SHMEM_REDUCE_MINMAX_TYPES(RUN_MINMAX)
    SHMEM_REDUCE_ARITH_TYPES(RUN_ARITH)
}

/* ---- host-issued data movement ------------------------------------------------------- */

/* Whether this emu kernel thread is the block's first. */
static int first_thread(void)
{
    int rank;
    shmemx_device_group(0, &rank, "test_devcoll");
    return rank == 0;
}

static unsigned char byte(int pe, size_t i)
{
    return (unsigned char)(pe * 31 + i * 7 + 1);
}

static void host_moves(shmem_team_t team, size_t esize, size_t nelems)
{
    int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);
    size_t len = esize * nelems, total = len * (size_t)shmem_n_pes();
    /* every PE allocates (collective over the world); the members move */
    unsigned char *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, total);
    unsigned char *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, total);
    unsigned char *h = malloc(total);
    CHECK(src && dst && h);
    if (me < 0)
        goto done;
    for (size_t i = 0; i < total; i++)
        h[i] = byte(me, i);
    tdev_h2d(src, h, total);
    uint64_t b0 = bounces();
    int root = np - 1;
    /* The typed forms by element size: the engine moves bytes, so one type per size. */
    switch (esize) {
    case 1:
        CHECK(shmem_uint8_broadcast(team, (uint8_t *)dst, (uint8_t *)src, nelems, root) == 0);
        break;
    case 4:
        CHECK(shmem_int_broadcast(team, (int *)dst, (int *)src, nelems, root) == 0);
        break;
    default:
        CHECK(shmem_double_broadcast(team, (double *)dst, (double *)src, nelems, root) == 0);
    }
    EXPECT_BOUNCES(team, dst, b0, "broadcast");
    tdev_d2h(h, dst, len);
    for (size_t i = 0; i < len; i++)
        CHECK_WHILE(h[i] == byte(root, i), "broadcast of %zu bytes, byte %zu", len, i);

    b0 = bounces();
    CHECK(shmem_fcollectmem(team, dst, src, len) == 0);
    EXPECT_BOUNCES(team, dst, b0, "fcollect");
    tdev_d2h(h, dst, total);
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < len; i++)
            CHECK_WHILE(h[(size_t)pe * len + i] == byte(pe, i),
                        "fcollect, member %d byte %zu", pe, i);

    /* collect: member i gives i + 1 elements' worth less than the longest */
    size_t mine = len > (size_t)me ? len - (size_t)me : 0, at = 0;
    b0 = bounces();
    CHECK(shmem_collectmem(team, dst, src, mine) == 0);
    EXPECT_BOUNCES(team, dst, b0, "collect");
    tdev_d2h(h, dst, total);
    for (int pe = 0; pe < np; pe++) {
        size_t l = len > (size_t)pe ? len - (size_t)pe : 0;
        for (size_t i = 0; i < l; i++)
            CHECK_WHILE(h[at + i] == byte(pe, i), "collect, member %d byte %zu", pe, i);
        at += l;
    }

    b0 = bounces();
    CHECK(shmem_alltoallmem(team, dst, src, len) == 0);
    EXPECT_BOUNCES(team, dst, b0, "alltoall");
    tdev_d2h(h, dst, total);
    for (int pe = 0; pe < np; pe++)
        for (size_t i = 0; i < len; i++)
            CHECK_WHILE(h[(size_t)pe * len + i] == byte(pe, (size_t)me * len + i),
                        "alltoall, from member %d byte %zu", pe, i);
done:
    free(h);
    shmem_free(dst);
    shmem_free(src);
}

/* A stream-ordered sum (the proxy runs the host collective): direct as well. */
static void host_stream(void)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    uint64_t *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, BIG * sizeof *src);
    uint64_t *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, BIG * sizeof *dst);
    uint64_t *h = malloc(BIG * sizeof *h);
    CHECK(src && dst && h);
    for (size_t i = 0; i < BIG; i++)
        h[i] = (uint64_t)me * 100000 + i;
    tdev_h2d(src, h, BIG * sizeof *h);
    void *s = tstream_create();
    uint64_t b0 = bounces();
    CHECK(shmemx_uint64_sum_reduce_on_stream(SHMEM_TEAM_WORLD, dst, src, BIG, s) == 0);
    tstream_sync(s);
    EXPECT_BOUNCES_IF(shoal_dev->reduce, SHMEM_TEAM_WORLD, dst, b0,
                      "shmemx_uint64_sum_reduce_on_stream");
    tdev_d2h(h, dst, BIG * sizeof *h);
    for (size_t i = 0; i < BIG; i++)
        CHECK_EQ(h[i], (uint64_t)np * i + 100000ull * (uint64_t)np * (uint64_t)(np - 1) / 2);
    tstream_destroy(s);
    free(h);
    shmem_free(dst);
    shmem_free(src);
}

/* The staging engine (a scan) counts what it stages, so the zeros above are real. */
static void staged_counts(void)
{
    int me = shmem_my_pe();
    long *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64 * sizeof(long));
    long *dst = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64 * sizeof(long));
    long h[64];
    CHECK(src && dst);
    for (int i = 0; i < 64; i++)
        h[i] = i;
    tdev_h2d(src, h, sizeof h);
    uint64_t b0 = bounces();
    CHECK(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 64) == 0);
    CHECK_WHILE(bounces() - b0 >= 2 * sizeof h, "shmem_long_sum_inscan: %llu bytes staged",
                (unsigned long long)(bounces() - b0));
    tdev_d2h(h, dst, sizeof h);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(h[i], (long)(me + 1) * i);
    shmem_free(dst);
    shmem_free(src);
}

/* ---- from device code ---------------------------------------------------------------- */

struct karg {
    shmem_team_t team;
    void *dst, *src;
    size_t n;
    int which, block;
};

/* Barrier order: each PE's thread 0 puts its number into slot me of every PE's board,
 * then the barrier; afterwards every slot must be there (a barrier that returned
 * early, or did not complete the puts, leaves zeros). Run twice over fresh values. */
static void k_barrier(int thread, int nthreads, void *a)
{
    (void)nthreads;
    struct karg *k = a;
    uint64_t *board = k->dst, v = (uint64_t)k->n;
    int me = shmemx_dev_my_pe(), np = shmemx_dev_n_pes();
    if (k->block) {
        if (thread == 0)
            for (int pe = 0; pe < np; pe++)
                shmemx_dev_putmem_nbi(&board[me], &((uint64_t *)k->src)[0], sizeof v, pe);
        shmemx_dev_barrier_all_block();
    } else if (thread == 0) {
        for (int pe = 0; pe < np; pe++)
            shmemx_dev_putmem_nbi(&board[me], &((uint64_t *)k->src)[0], sizeof v, pe);
        shmemx_dev_barrier_all();
    }
}

static void dev_barrier(int block)
{
    int me = shmem_my_pe(), np = shmem_n_pes();
    uint64_t *board = shmem_space_alloc(SHMEM_SPACE_DEVICE, (size_t)np, sizeof *board);
    uint64_t *val = shmem_space_malloc(SHMEM_SPACE_DEVICE, sizeof *val);
    uint64_t *h = malloc((size_t)np * sizeof *h);
    CHECK(board && val && h);
    for (uint64_t round = 1; round <= 2; round++) {
        uint64_t v = round * 1000 + (uint64_t)me;
        tdev_h2d(val, &v, sizeof v);
        shmem_barrier_all(); /* every board is cleared or read before the kernels */
        struct karg k = { SHMEM_TEAM_WORLD, board, val, (size_t)v, 0, block };
        shmemx_device_launch(k_barrier, 4, &k);
        tdev_d2h(h, board, (size_t)np * sizeof *h);
        for (int pe = 0; pe < np; pe++)
            CHECK_WHILE(h[pe] == round * 1000 + (uint64_t)pe,
                        "shmemx_dev_barrier_all%s round %llu, slot %d", block ? "_block" : "",
                        (unsigned long long)round, pe);
        shmem_barrier_all();
    }
    free(h);
    shmem_free(val);
    shmem_free(board);
}

/* Each device family as a kernel: thread 0 calls the thread form, or every thread the
 * block form. which: the family's index in the table below. */
typedef void (*dev_red_fn)(struct karg *k);
#define DEV_RED(T, N, OP)                                                                    \
    static void dev_##N##_##OP(struct karg *k)                                               \
    {                                                                                        \
        if (k->block)                                                                        \
            shmemx_dev_##N##_##OP##_reduce_block(k->team, (T *)k->dst, (const T *)k->src,    \
                                                 k->n);                                      \
        else if (first_thread())                                                             \
            shmemx_dev_##N##_##OP##_reduce(k->team, (T *)k->dst, (const T *)k->src, k->n);   \
    }                                                                                        \
    static void check_##N##_##OP(shmem_team_t team, size_t n, int block, int inplace)        \
    {                                                                                        \
        int me = shmem_team_my_pe(team), np = shmem_team_n_pes(team);                        \
        /* every PE allocates (collective over the world); the members reduce */             \
        T *src = shmem_space_malloc(SHMEM_SPACE_DEVICE, n * sizeof(T));                      \
        T *dst = inplace ? src : shmem_space_malloc(SHMEM_SPACE_DEVICE, n * sizeof(T));      \
        T *h = malloc(n * sizeof(T));                                                        \
        CHECK(src &&dst &&h);                                                                \
        if (me < 0)                                                                          \
            goto done;                                                                       \
        for (size_t i = 0; i < n; i++)                                                       \
            h[i] = (T)V_##OP(me, i);                                                         \
        tdev_h2d(src, h, n * sizeof(T));                                                     \
        struct karg k = { team, dst, src, n, 0, block };                                     \
        shmemx_device_launch(kernel, 4, &k);                                                 \
        tdev_d2h(h, dst, n * sizeof(T));                                                     \
        for (size_t i = 0; i < n; i++) {                                                     \
            T want = (T)V_##OP(0, i);                                                        \
            for (int pe = 1; pe < np; pe++)                                                  \
                want = (T)X_##OP(want, (T)V_##OP(pe, i));                                    \
            CHECK_WHILE(h[i] == want, "shmemx_dev_" #N "_" #OP "_reduce%s of %zu, elem %zu", \
                        block ? "_block" : "", n, i);                                        \
        }                                                                                    \
    done:                                                                                    \
        free(h);                                                                             \
        if (!inplace)                                                                        \
            shmem_free(dst);                                                                 \
        shmem_free(src);                                                                     \
    }

static dev_red_fn current;
static void kernel(int thread, int nthreads, void *a)
{
    (void)thread;
    (void)nthreads;
    current(a);
}

#define DEV_BITWISE(T, N) DEV_RED(T, N, and) DEV_RED(T, N, or) DEV_RED(T, N, xor)
#define DEV_MINMAX(T, N) DEV_RED(T, N, max) DEV_RED(T, N, min)
#define DEV_ARITH(T, N) DEV_RED(T, N, sum) DEV_RED(T, N, prod)
SHMEMX_DEV_REDUCE_BITWISE_TYPES(DEV_BITWISE)
SHMEMX_DEV_REDUCE_MINMAX_TYPES(DEV_MINMAX)
SHMEMX_DEV_REDUCE_ARITH_TYPES(DEV_ARITH)

#define DRUN_RED(T, N, OP)                                                                   \
    current = dev_##N##_##OP;                                                                \
    check_##N##_##OP(team, n, block, inplace);
#define DRUN_BITWISE(T, N) DRUN_RED(T, N, and) DRUN_RED(T, N, or) DRUN_RED(T, N, xor)
#define DRUN_MINMAX(T, N) DRUN_RED(T, N, max) DRUN_RED(T, N, min)
#define DRUN_ARITH(T, N) DRUN_RED(T, N, sum) DRUN_RED(T, N, prod)
static void dev_reductions(shmem_team_t team, size_t n, int block, int inplace)
{
    SHMEMX_DEV_REDUCE_BITWISE_TYPES(DRUN_BITWISE)
    SHMEMX_DEV_REDUCE_MINMAX_TYPES(DRUN_MINMAX)
    SHMEMX_DEV_REDUCE_ARITH_TYPES(DRUN_ARITH)
}

/* One large family, both forms, on the team: several work chunks, one in place. */
static void dev_big(shmem_team_t team)
{
    current = dev_long_sum;
    check_long_sum(team, BIG, 0, 0);
    check_long_sum(team, BIG, 1, 1);
    current = dev_uint8_xor;
    check_uint8_xor(team, 40000, 1, 0);
    current = dev_double_max;
    check_double_max(team, BIG, 0, 1);
}

static void k_team_barrier(int thread, int nthreads, void *a)
{
    (void)nthreads;
    if (thread == 0)
        shmemx_dev_team_barrier(((struct karg *)a)->team);
}

int main(int argc, char **argv)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    int np = shmem_n_pes(), me = shmem_my_pe();
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (np + 1) / 2, NULL, 0, &evens);
    /* One colour, keys (2 r + 1) mod np: world PEs 0, 2, 1, 3 at 4 PEs, not strided. */
    shmemx_team_split(SHMEM_TEAM_WORLD, 0, (2 * me + 1) % np, &shuffled);
    if (argc > 1 && !strcmp(argv[1], "explicit")) {
        struct karg k = { shuffled, NULL, NULL, 0, 0, 0 };
        shmemx_device_launch(k_team_barrier, 1, &k);
        fprintf(stderr, "FAIL PE %d: shmemx_dev_team_barrier took an explicit team\n", me);
        return 1;
    }

    host_reductions(SHMEM_TEAM_WORLD, 1, 0);
    host_reductions(SHMEM_TEAM_WORLD, 37, 1);
    host_long_sum(SHMEM_TEAM_WORLD, BIG, 0);
    static const size_t esizes[] = { 1, 4, 8 };
    for (int e = 0; e < 3; e++) {
        host_moves(SHMEM_TEAM_WORLD, esizes[e], e ? 17 : 3001);
        host_moves(evens, esizes[e], 5);
    }
    host_reductions(evens, 5, 0);
    host_moves(shuffled, 8, 5);
    host_reductions(shuffled, 3, 0);
    host_stream();
    staged_counts();

    dev_barrier(0);
    dev_barrier(1);
    dev_reductions(SHMEM_TEAM_WORLD, 3, 0, 0);
    dev_reductions(SHMEM_TEAM_WORLD, 1, 1, 1);
    dev_big(SHMEM_TEAM_WORLD);
    /* on a team: its members reduce, every PE allocates */
    dev_reductions(evens, 2, 1, 0);
    dev_big(evens);
    shmem_barrier_all();
    tdev_passed("device.devcoll");
    return 0;
}
