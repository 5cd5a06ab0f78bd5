/* The C11 type-generic AMO names (shmem_atomic_*), with and without a leading
 * context, for int, long, unsigned long long and double. Values are chosen wide
 * enough that dispatching to a narrower type's routine would change them, and each
 * call's result type is checked at compile time. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define NW 40
#define CTX SHMEM_CTX_DEFAULT

static const char *cur = "";

#define TCHECK(c) CHECK_WHILE(c, "testing %s", cur)

/* The generic call returns the table's TYPE, not some other row's. */
#define RETURNS(T, expr)                                                                     \
    _Static_assert(_Generic((expr), T : 1, default : 0), #expr " returns " #T)

/* Integer types: every standard, extended and bitwise generic name. B is a base value
 * that needs the type's full width. */
#define GEN_INT_TEST(T, NAME, B)                                                             \
    static T g_##NAME[NW];                                                                   \
    static void gen_##NAME(T *t, const char *where)                                          \
    {                                                                                        \
        cur = #T;                                                                            \
        (void)where;                                                                         \
        const T base = (T)(B);                                                               \
        const T hb = (T)((T)1 << (sizeof(T) * 8 - 10 + me % 8));                             \
        RETURNS(T, shmem_atomic_fetch_add(t, (T)1, 0));                                      \
        RETURNS(T, shmem_atomic_fetch_add(CTX, t, (T)1, 0));                                 \
        RETURNS(T, shmem_atomic_compare_swap(t, (T)1, (T)1, 0));                             \
        RETURNS(T, shmem_atomic_compare_swap(CTX, t, (T)1, (T)1, 0));                        \
        RETURNS(T, shmem_atomic_fetch(t, 0));                                                \
        RETURNS(T, shmem_atomic_fetch(CTX, (const T *)t, 0));                                \
        RETURNS(T, shmem_atomic_swap(t, (T)1, 0));                                           \
        RETURNS(T, shmem_atomic_fetch_inc(CTX, t, 0));                                       \
        RETURNS(T, shmem_atomic_fetch_and(t, (T)1, 0));                                      \
        RETURNS(T, shmem_atomic_fetch_or(CTX, t, (T)1, 0));                                  \
        RETURNS(T, shmem_atomic_fetch_xor(t, (T)1, 0));                                      \
        memset(t, 0, NW * sizeof(T));                                                        \
        for (int i = 0; i < 12; i++)                                                         \
            t[i] = base;                                                                     \
        t[21] = t[24] = t[27] = t[30] = t[33] = t[36] = (T) ~(T)0;                           \
        shmem_barrier_all();                                                                 \
        T naf[npes], nif[npes], cnaf[npes], cnif[npes];                                      \
        T f;                                                                                 \
        for (int k = 0; k < npes; k++) {                                                     \
            int p = (me + k) % npes;                                                         \
            f = shmem_atomic_fetch_add(&t[0], (T)(me + 1), p);                               \
            TCHECK(f >= base && f < base + (T)(npes * (npes + 1) / 2));                      \
            f = shmem_atomic_fetch_add(CTX, &t[1], (T)(me + 1), p);                          \
            TCHECK(f >= base && f < base + (T)(npes * (npes + 1) / 2));                      \
            shmem_atomic_add(&t[2], (T)(me + 1), p);                                         \
            shmem_atomic_add(CTX, &t[3], (T)(me + 1), p);                                    \
            f = shmem_atomic_fetch_inc(&t[4], p);                                            \
            TCHECK(f >= base && f < base + (T)npes);                                         \
            f = shmem_atomic_fetch_inc(CTX, &t[5], p);                                       \
            TCHECK(f >= base && f < base + (T)npes);                                         \
            shmem_atomic_inc(&t[6], p);                                                      \
            shmem_atomic_inc(CTX, &t[7], p);                                                 \
            shmem_atomic_fetch_add_nbi(&naf[p], &t[8], (T)(me + 1), p);                      \
            shmem_atomic_fetch_add_nbi(CTX, &cnaf[p], &t[9], (T)(me + 1), p);                \
            shmem_atomic_fetch_inc_nbi(&nif[p], &t[10], p);                                  \
            shmem_atomic_fetch_inc_nbi(CTX, &cnif[p], &t[11], p);                            \
            /* bitwise: each PE owns one high bit */                                         \
            f = shmem_atomic_fetch_or(&t[20], hb, p);                                        \
            TCHECK(npes > 8 || !(f & hb));                                                   \
            f = shmem_atomic_fetch_and(&t[21], (T)~hb, p);                                   \
            TCHECK(npes > 8 || f & hb);                                                      \
            f = shmem_atomic_fetch_xor(&t[22], hb, p);                                       \
            TCHECK(npes > 8 || !(f & hb));                                                   \
            shmem_atomic_or(&t[23], hb, p);                                                  \
            shmem_atomic_and(&t[24], (T)~hb, p);                                             \
            shmem_atomic_xor(&t[25], hb, p);                                                 \
            f = shmem_atomic_fetch_or(CTX, &t[26], hb, p);                                   \
            TCHECK(npes > 8 || !(f & hb));                                                   \
            f = shmem_atomic_fetch_and(CTX, &t[27], (T)~hb, p);                              \
            TCHECK(npes > 8 || f & hb);                                                      \
            f = shmem_atomic_fetch_xor(CTX, &t[28], hb, p);                                  \
            TCHECK(npes > 8 || !(f & hb));                                                   \
            shmem_atomic_or(CTX, &t[29], hb, p);                                             \
            shmem_atomic_and(CTX, &t[30], (T)~hb, p);                                        \
            shmem_atomic_xor(CTX, &t[31], hb, p);                                            \
        }                                                                                    \
        T nbo = 0, nba = 0, nbx = 0, cnbo = 0, cnba = 0, cnbx = 0;                           \
        shmem_atomic_fetch_or_nbi(&nbo, &t[32], hb, right);                                  \
        shmem_atomic_fetch_and_nbi(&nba, &t[33], (T)~hb, right);                             \
        shmem_atomic_fetch_xor_nbi(&nbx, &t[34], hb, right);                                 \
        shmem_atomic_fetch_or_nbi(CTX, &cnbo, &t[35], hb, right);                            \
        shmem_atomic_fetch_and_nbi(CTX, &cnba, &t[36], (T)~hb, right);                       \
        shmem_atomic_fetch_xor_nbi(CTX, &cnbx, &t[37], hb, right);                           \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        for (int p = 0; p < npes; p++) {                                                     \
            TCHECK(naf[p] >= base && naf[p] < base + (T)(npes * (npes + 1) / 2));            \
            TCHECK(cnaf[p] >= base && cnaf[p] < base + (T)(npes * (npes + 1) / 2));          \
            TCHECK(nif[p] >= base && nif[p] < base + (T)npes);                               \
            TCHECK(cnif[p] >= base && cnif[p] < base + (T)npes);                             \
        }                                                                                    \
        /* only this PE touches t[32..37] on its right neighbour */                          \
        TCHECK(nbo == 0 && nbx == 0 && cnbo == 0 && cnbx == 0);                              \
        TCHECK(nba == (T) ~(T)0 && cnba == (T) ~(T)0);                                       \
        shmem_barrier_all();                                                                 \
        const T tri = (T)(npes * (npes + 1) / 2);                                            \
        for (int i = 0; i < 4; i++)                                                          \
            TCHECK(t[i] == (T)(base + tri));                                                 \
        for (int i = 4; i < 8; i++)                                                          \
            TCHECK(t[i] == (T)(base + (T)npes));                                             \
        TCHECK(t[8] == (T)(base + tri) && t[9] == (T)(base + tri));                          \
        TCHECK(t[10] == (T)(base + (T)npes) && t[11] == (T)(base + (T)npes));                \
        T all = 0;                                                                           \
        for (int i = 0; i < npes && i < 8; i++)                                              \
            all |= (T)((T)1 << (sizeof(T) * 8 - 10 + i));                                    \
        T allx = 0;                                                                          \
        for (int i = 0; i < npes; i++)                                                       \
            allx ^= (T)((T)1 << (sizeof(T) * 8 - 10 + i % 8));                               \
        for (int i = 20; i < 32; i += 3) {                                                   \
            TCHECK(t[i] == all);                                                             \
            TCHECK(t[i + 1] == (T)~all);                                                     \
            TCHECK(t[i + 2] == allx);                                                        \
        }                                                                                    \
        TCHECK(t[32] == (T)((T)1 << (sizeof(T) * 8 - 10 + left % 8)));                       \
        TCHECK(t[33] == (T)~t[32] && t[36] == (T)~t[32]);                                    \
        TCHECK(t[35] == t[32] && t[34] == t[32] && t[37] == t[32]);                          \
        shmem_barrier_all();                                                                 \
        memset(t, 0, NW * sizeof(T));                                                        \
        shmem_barrier_all();                                                                 \
        /* compare_swap contention at PE 0, fetch, set, swap */                              \
        T old = shmem_atomic_compare_swap(&t[0], (T)0, (T)(base + (T)me + 1), 0);            \
        T cold = shmem_atomic_compare_swap(CTX, &t[1], (T)0, (T)(base + (T)me + 1), right);  \
        TCHECK(cold == 0);                                                                   \
        shmem_atomic_set(&t[2], (T)(base + (T)me), right);                                   \
        shmem_atomic_set(CTX, &t[3], (T)(base + (T)me + 7), right);                          \
        T s = shmem_atomic_swap(&t[4], (T)(base + (T)me), right);                            \
        TCHECK(s == 0);                                                                      \
        s = shmem_atomic_swap(CTX, &t[4], (T)(base + (T)me + 3), right);                     \
        TCHECK(s == (T)(base + (T)me));                                                      \
        T cf = (T)5, ccf = (T)5, sf = (T)5, csf = (T)5;                                      \
        shmem_atomic_compare_swap_nbi(&cf, &t[5], (T)0, (T)(base + (T)me), right);           \
        shmem_atomic_compare_swap_nbi(CTX, &ccf, &t[6], (T)0, (T)(base + (T)me), right);     \
        shmem_atomic_swap_nbi(&sf, &t[7], (T)(base + (T)me), right);                         \
        shmem_atomic_swap_nbi(CTX, &csf, &t[8], (T)(base + (T)me), right);                   \
        shmem_quiet();                                                                       \
        TCHECK(cf == 0 && ccf == 0 && sf == 0 && csf == 0);                                  \
        shmem_barrier_all();                                                                 \
        T w = shmem_atomic_fetch(&t[0], 0);                                                  \
        TCHECK(old == 0 ? w == (T)(base + (T)me + 1) : old == w);                            \
        T L = (T)(base + (T)left);                                                           \
        TCHECK(t[1] == (T)(L + 1) && t[2] == L && t[3] == (T)(L + 7) && t[4] == (T)(L + 3)); \
        TCHECK(t[5] == L && t[6] == L && t[7] == L && t[8] == L);                            \
        T R = (T)(base + (T)me);                                                             \
        TCHECK(shmem_atomic_fetch(&t[2], right) == R);                                       \
        TCHECK(shmem_atomic_fetch(CTX, &t[3], right) == (T)(R + 7));                         \
        T fnb = 0, cfnb = 0;                                                                 \
        shmem_atomic_fetch_nbi(&fnb, &t[2], right);                                          \
        shmem_atomic_fetch_nbi(CTX, &cfnb, &t[3], right);                                    \
        shmem_ctx_quiet(CTX);                                                                \
        TCHECK(fnb == R && cfnb == (T)(R + 7));                                              \
        shmem_barrier_all();                                                                 \
    }

GEN_INT_TEST(int, int, 0x10000)
GEN_INT_TEST(long, long, 1L << 40)
GEN_INT_TEST(unsigned long long, ulonglong, (1ULL << 63) + 0x100000000ULL)

static double g_double[NW];
static void gen_double(double *t, const char *where)
{
    (void)where;
    cur = "double";
    RETURNS(double, shmem_atomic_fetch(t, 0));
    RETURNS(double, shmem_atomic_fetch(CTX, t, 0));
    RETURNS(double, shmem_atomic_swap(t, 1.0, 0));
    RETURNS(double, shmem_atomic_swap(CTX, t, 1.0, 0));
    for (int i = 0; i < NW; i++)
        t[i] = 0.0;
    shmem_barrier_all();
    double v = 16777217.0 + 2.0 * me; /* 2^24 + 1 + 2*me: not representable as float */
    shmem_atomic_set(&t[0], v, right);
    shmem_atomic_set(CTX, &t[1], v + 0.5, right);
    double s = shmem_atomic_swap(&t[2], v, right);
    TCHECK(s == 0.0);
    s = shmem_atomic_swap(CTX, &t[2], v + 0.25, right);
    TCHECK(s == v);
    double sf = -1, csf = -1;
    shmem_atomic_swap_nbi(&sf, &t[3], v, right);
    shmem_atomic_swap_nbi(CTX, &csf, &t[4], v, right);
    shmem_quiet();
    TCHECK(sf == 0.0 && csf == 0.0);
    /* a swap chain at PE 0 */
    double c = shmem_atomic_swap(&t[5], (double)(me + 1) + 0.5, 0);
    TCHECK(c == 0.0 || (c >= 1.5 && c <= npes + 0.5 && c - (int)c == 0.5));
    shmem_barrier_all();
    double lv = 16777217.0 + 2.0 * left;
    TCHECK(t[0] == lv && t[1] == lv + 0.5 && t[2] == lv + 0.25 && t[3] == lv && t[4] == lv);
    TCHECK(shmem_atomic_fetch(&t[0], right) == v);
    TCHECK(shmem_atomic_fetch(CTX, &t[1], right) == v + 0.5);
    double f = 0, cf = 0;
    shmem_atomic_fetch_nbi(&f, &t[2], right);
    shmem_atomic_fetch_nbi(CTX, &cf, &t[3], right);
    shmem_ctx_quiet(CTX);
    TCHECK(f == v + 0.25 && cf == v);
    if (me == 0)
        TCHECK(t[5] >= 1.5 && t[5] <= npes + 0.5);
    shmem_barrier_all();
}

#define RUN(NAME, T)                                                                         \
    do {                                                                                     \
        T *h = shmem_malloc(NW * sizeof(T));                                                 \
        CHECK(h != NULL);                                                                    \
        gen_##NAME(h, "heap");                                                               \
        gen_##NAME(g_##NAME, "global");                                                      \
        shmem_free(h);                                                                       \
    } while (0)

int main(void)
{
    ring_init();
    RUN(int, int);
    RUN(long, long);
    RUN(ulonglong, unsigned long long);
    RUN(double, double);
    if (me == 0)
        printf("test_amo_generic: %d PEs OK\n", npes);
    shmem_finalize();
    return 0;
}
