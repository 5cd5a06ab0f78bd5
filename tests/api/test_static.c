/* Global and static variables are symmetric: a global int array, a static long, a
 * static struct, a function-local static, a large .bss array (zero at start) and an
 * initialised .data array (its initial values on every PE) serve as targets of put,
 * get, p, g, iput and iget; shmem_long_atomic_fetch_add works on a global counter;
 * shmem_ptr on a global is non-NULL for every PE and stores through it are seen by
 * that PE after a barrier; shmem_addr_accessible holds for globals and the heap and
 * not for a stack variable or a malloc()ed buffer. Each PE writes to (me+1)%n and reads
 * from (me+n-1)%n; the AMO and shmem_ptr parts go all-to-one and all-to-all. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define NG 64
#define BSS_N (128 * 1024) /* 1 MiB of longs in .bss */
#define MAXPE 1024

int g_int[NG];      /* global, .bss */
static long s_long; /* static, .bss */
struct rec {
    char c;
    int a;
    double d;
    long arr[5];
    short s;
};
static struct rec s_rec;                                                /* static struct */
static long s_bss[BSS_N];                                               /* large .bss, zero */
int g_data[12] = { 11, 22, 33, 44, 55, 66, 77, 88, 99, 110, 121, 132 }; /* .data */
static double s_data_d[4] = { 0.5, 1.5, 2.5, 3.5 };                     /* static, .data */
long g_counter;                                                         /* AMO target */
long g_counters[MAXPE]; /* all-to-all AMO targets */
int g_ptr_slots[MAXPE]; /* written through shmem_ptr */

static int *local_static(void)
{
    static int in_function[8]; /* function-local static */
    return in_function;
}

static void initial_values(void)
{
    /* Before anything is written: .data holds its initialisers, .bss is zero. */
    for (int i = 0; i < 12; i++)
        CHECK_EQ(g_data[i], 11 * (i + 1));
    for (int i = 0; i < 4; i++)
        CHECK(s_data_d[i] == 0.5 + i);
    for (size_t i = 0; i < BSS_N; i++)
        CHECK_EQ(s_bss[i], 0);
    for (int i = 0; i < NG; i++)
        CHECK_EQ(g_int[i], 0);
    CHECK_EQ(s_long, 0);
    CHECK_EQ(g_counter, 0);
    /* ... and so does every other PE's copy. */
    CHECK_EQ(shmem_int_g(&g_data[11], right), 132);
    CHECK(shmem_double_g(&s_data_d[3], left) == 3.5);
    CHECK_EQ(shmem_long_g(&s_bss[BSS_N - 1], right), 0);
    shmem_barrier_all();
}

static void accessibility(void)
{
    int on_stack = 0;
    int *heap = shmem_malloc(16 * sizeof(int));
    int *priv = malloc(16 * sizeof(int));
    CHECK(heap != NULL && priv != NULL);
    static const struct {
        const void *p;
        const char *name;
    } sym[] = {
        { g_int, "g_int" },
        { &g_int[NG - 1], "g_int[last]" },
        { &s_long, "s_long" },
        { &s_rec, "s_rec" },
        { &s_rec.s, "s_rec.s" },
        { s_bss, "s_bss" },
        { &s_bss[BSS_N - 1], "s_bss[last]" },
        { g_data, "g_data" },
        { s_data_d, "s_data_d" },
        { &g_counter, "g_counter" },
    };
    for (int pe = 0; pe < npes; pe++) {
        for (unsigned k = 0; k < sizeof sym / sizeof sym[0]; k++) {
            if (!shmem_addr_accessible(sym[k].p, pe))
                fprintf(stderr, "PE %d: %s not accessible on PE %d\n", me, sym[k].name, pe);
            CHECK(shmem_addr_accessible(sym[k].p, pe));
        }
        CHECK(shmem_addr_accessible(local_static(), pe));
        CHECK(shmem_addr_accessible(heap, pe));
        CHECK(shmem_addr_accessible(heap + 15, pe));
        CHECK(!shmem_addr_accessible(&on_stack, pe));
        CHECK(!shmem_addr_accessible(priv, pe));
        CHECK(shmem_ptr(&on_stack, pe) == NULL);
        CHECK(shmem_ptr(priv, pe) == NULL);
    }
    free(priv);
    shmem_free(heap);
}

static long lval(int pe, int i)
{
    return pe * 100000L + i * 7 + 3;
}

static void rma_on_statics(void)
{
    /* Fill the sources: g_data gets new values, s_bss a pattern at both ends. */
    int src_int[NG];
    for (int i = 0; i < NG; i++)
        src_int[i] = me * 1000 + i;
    for (int i = 0; i < 12; i++)
        g_data[i] = me * 1000 + 500 + i;
    for (int i = 0; i < 1000; i++) {
        s_bss[i] = lval(me, i);
        s_bss[BSS_N - 1000 + i] = lval(me, BSS_N - 1000 + i);
    }
    struct rec r = { (char)('A' + me % 26),
                     me * 3,
                     me + 0.25,
                     { me, me + 1, me + 2, me + 3, me + 4 },
                     (short)(-me - 1) };
    shmem_barrier_all();

    /* Writes to the right. */
    shmem_int_put(g_int, src_int, NG, right);     /* global int array */
    shmem_long_p(&s_long, me * 1000L + 7, right); /* static long */
    shmem_putmem(&s_rec, &r, sizeof r, right);    /* static struct */
    shmem_ctx_double_p(SHMEM_CTX_DEFAULT, &s_data_d[1], me + 0.75, right);
    shmem_int_iput(local_static(), src_int, 1, 8, 8, right); /* function static */
    /* Reads from the left. */
    int got[12];
    shmem_int_get(got, g_data, 12, left);
    for (int i = 0; i < 12; i++)
        CHECK_EQ(got[i], left * 1000 + 500 + i);
    shmem_int_iget(got, g_data, 2, 3, 4, left); /* got[0,2,4,6] */
    for (int i = 0; i < 4; i++)
        CHECK_EQ(got[2 * i], left * 1000 + 500 + 3 * i);
    long lg[1000];
    shmem_long_get(lg, &s_bss[BSS_N - 1000], 1000, left); /* end of .bss */
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(lg[i], lval(left, BSS_N - 1000 + i));
    shmem_ctx_long_get_nbi(SHMEM_CTX_DEFAULT, lg, s_bss, 1000, left);
    shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ(lg[i], lval(left, i));
    CHECK_EQ(shmem_long_g(&s_bss[BSS_N / 2], left), 0); /* untouched middle */
    CHECK_EQ(shmem_long_g(&s_bss[BSS_N - 1], left), lval(left, BSS_N - 1));
    shmem_barrier_all();

    /* What the left neighbour wrote here, read locally and by g from the right. */
    for (int i = 0; i < NG; i++)
        CHECK_EQ(g_int[i], left * 1000 + i);
    CHECK_EQ(s_long, left * 1000L + 7);
    CHECK_EQ(s_rec.c, (char)('A' + left % 26));
    CHECK_EQ(s_rec.a, left * 3);
    CHECK(s_rec.d == left + 0.25);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(s_rec.arr[i], left + i);
    CHECK_EQ(s_rec.s, -left - 1);
    CHECK(s_data_d[1] == left + 0.75);
    CHECK(s_data_d[0] == 0.5 && s_data_d[2] == 2.5); /* neighbours intact */
    for (int i = 0; i < 8; i++)
        CHECK_EQ(local_static()[i], left * 1000 + 8 * i);
    /* g on the right neighbour's copies: what this PE wrote there. */
    CHECK_EQ(shmem_int_g(&g_int[NG - 1], right), me * 1000 + NG - 1);
    CHECK_EQ(shmem_long_g(&s_long, right), me * 1000L + 7);
    CHECK_EQ(shmem_int_g(&s_rec.a, right), me * 3);
    CHECK_EQ(shmem_short_g(&s_rec.s, right), -me - 1);
    CHECK_EQ(shmem_char_g(&s_rec.c, right), (char)('A' + me % 26));
    CHECK(shmem_double_g(&s_rec.d, right) == me + 0.25);
    CHECK_EQ(shmem_int_g(&local_static()[7], right), me * 1000 + 56);
    shmem_barrier_all();
}

static void amo_on_globals(void)
{
    const int rounds = 50;
    long fetched_max = -1;
    /* All PEs add to PE 0's counter; each fetch sees a partial sum. */
    for (int k = 0; k < rounds; k++) {
        long old = shmem_long_atomic_fetch_add(&g_counter, me + 1, 0);
        CHECK(old >= 0 && old < (long)rounds * npes * (npes + 1) / 2);
        CHECK(old > fetched_max); /* this PE's own adds are ordered */
        fetched_max = old;
    }
    /* Each PE adds me+1 into slot me of every PE's g_counters (and so checks that slots
     * next to each other do not interfere). */
    for (int q = 0; q < npes; q++) {
        int pe = (me + q) % npes;
        CHECK_EQ(shmem_ctx_long_atomic_fetch_add(SHMEM_CTX_DEFAULT, &g_counters[me], me + 1,
                                                 pe),
                 0);
        shmem_long_atomic_add(&g_counters[me], 1000, pe);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK_EQ(g_counter, (long)rounds * npes * (npes + 1) / 2);
    CHECK_EQ(shmem_long_atomic_fetch(&g_counter, 0), (long)rounds * npes * (npes + 1) / 2);
    for (int q = 0; q < npes; q++)
        CHECK_EQ(g_counters[q], q + 1 + 1000);
    for (int q = npes; q < MAXPE; q++)
        CHECK_EQ(g_counters[q], 0);
    shmem_barrier_all();
}

/* shmem_ptr reaches exactly the PEs of SHMEM_TEAM_SHARED (this node); on a PE of
 * another node it is NULL. */
static int shares_node(int pe)
{
    return shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
}

static void ptr_on_globals(void)
{
    /* Every PE stores its number into slot me of every same-node PE's g_ptr_slots. */
    for (int q = 0; q < npes; q++) {
        int pe = (me + q) % npes;
        int *p = shmem_ptr(g_ptr_slots, pe);
        if (!shares_node(pe)) {
            CHECK(p == NULL);
            CHECK(shmem_ptr(&s_long, pe) == NULL);
            continue;
        }
        if (p == NULL)
            fprintf(stderr, "PE %d: shmem_ptr(g_ptr_slots, %d) is NULL\n", me, pe);
        CHECK(p != NULL);
        p[me] = 7 * me + pe + 1;
        long *lp = shmem_ptr(&s_long, pe);
        CHECK(lp != NULL);
        CHECK(shmem_ptr(&s_bss[BSS_N - 1], pe) != NULL);
        CHECK(shmem_ptr(local_static(), pe) != NULL);
    }
    /* shmem_ptr to oneself reaches one's own object. */
    int *mine = shmem_ptr(&g_int[5], me);
    CHECK(mine != NULL);
    CHECK_EQ(*mine, g_int[5]);
    shmem_barrier_all();
    for (int q = 0; q < npes; q++)
        CHECK_EQ(g_ptr_slots[q], shares_node(q) ? 7 * q + me + 1 : 0);
    /* Reads through shmem_ptr see the other PE's data (s_long from rma_on_statics). */
    if (shares_node(right)) {
        long *lp = shmem_ptr(&s_long, right);
        CHECK_EQ(*lp, me * 1000L + 7);
    }
    if (shares_node(left)) {
        const int *dp = shmem_ptr(&g_data[3], left);
        CHECK_EQ(*dp, left * 1000 + 503);
    }
    shmem_barrier_all();
}

int main(void)
{
    ring_init();
    CHECK(npes <= MAXPE);

    initial_values();
    accessibility();
    rma_on_statics();
    amo_on_globals();
    ptr_on_globals();

    if (me == 0)
        printf("test_static: .data/.bss globals and statics (array, long, struct, function "
               "static) via put/get/p/g/iput/iget, fetch_add, shmem_ptr, addr_accessible: "
               "OK on %d PEs\n",
               npes);
    shmem_finalize();
    return 0;
}
