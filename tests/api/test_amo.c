/* Atomic memory operations, every typed routine, generated from the specification's
 * tables in shoal/type_tables.h (SHMEM_AMO_STD_TYPES, _EXT_TYPES, _BIT_TYPES and the
 * deprecated tables), on targets in the symmetric heap and in global data.
 *
 * Each PE applies updates at every PE (or at PE 0, or at its right neighbour) and
 * the values it fetched are recorded at the target with an AMO. After a barrier each
 * target checks both the final word and that the fetched values are explained by
 * some serial order of the updates (check_chain / check_perm). */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define NW 48      /* words per type and target */
#define CASLOOP 16 /* CAS-loop increments per PE */

/* Record slots: rec[slot * npes + source PE] at the target PE. */
enum {
    S_FADD,
    S_FINC,
    S_CFADD,
    S_CFINC,
    S_NFADD,
    S_NFINC,
    S_CNFADD,
    S_CNFINC,
    S_CAS,
    S_SWAP,
    S_NSWAP,
    S_CNSWAP,
    S_OR,
    S_AND,
    S_XOR,
    S_COR,
    S_CAND,
    S_CXOR,
    S_NOR,
    S_NAND,
    S_NXOR,
    S_CNOR,
    S_CNAND,
    S_CNXOR,
    NSLOT
};

static long long *rec;
static const char *cur_type = "", *cur_where = "";

#define TCHECK(c) CHECK_WHILE(c, "testing %s on a %s target", cur_type, cur_where)
#define TCHECK_EQ(a, b) CHECK_EQ_WHILE(a, b, "testing %s on a %s target", cur_type, cur_where)

static void rec_set(int slot, long long v, int pe)
{
    shmem_longlong_atomic_set(&rec[slot * npes + me], v, pe);
}

enum { OP_ADD, OP_OR, OP_AND, OP_XOR };

static unsigned long long apply(int op, unsigned long long a, unsigned long long d)
{
    switch (op) {
    case OP_ADD: return a + d;
    case OP_OR: return a | d;
    case OP_AND: return a & d;
    default: return a ^ d;
    }
}

/* rec[slot][i] is what PE i fetched when it applied operand d[i] here, starting from
 * init and ending at final: exactly one PE saw init, and each PE's fetched value
 * with its own update applied is another PE's fetched value or the final one. */
static void check_chain(int slot, int op, const long long *d, long long init, long long final)
{
    const long long *f = &rec[slot * npes];
    int seen_init = 0;
    for (int i = 0; i < npes; i++) {
        if (f[i] == init)
            seen_init++;
        if (npes <= 16)
            for (int j = 0; j < i; j++)
                TCHECK(f[i] != f[j]);
        unsigned long long next =
                apply(op, (unsigned long long)f[i], (unsigned long long)d[i]);
        int ok = next == (unsigned long long) final;
        for (int j = 0; j < npes && !ok; j++)
            ok = next == (unsigned long long)f[j];
        if (!ok)
            fprintf(stderr,
                    "PE %d: slot %d: PE %d fetched %lld, op %d with %lld gives %llu\n", me,
                    slot, i, f[i], op, d[i], next);
        TCHECK(ok);
    }
    TCHECK_EQ(seen_init, 1);
}

/* Swap storms on PE 0: each PE swaps in SWAPR values of its own and counts, at PE 0,
 * each value it got back. Every value 0..SWAPR*npes is fetched once or is the last. */
#define SWAPR 8
static long long *seen;

static void seen_add(long long v)
{
    TCHECK(v >= 0 && v <= (long long)SWAPR * npes);
    shmem_longlong_atomic_inc(&seen[v], 0);
}

static void check_seen(long long final)
{
    for (long long v = 0; v <= (long long)SWAPR * npes; v++) {
        TCHECK_EQ(seen[v] + (final == v), 1);
        seen[v] = 0;
    }
}

/* Swap chains: the values fetched plus the final one are 0..npes, each once. */
static void check_perm(int slot, long long final)
{
    const long long *f = &rec[slot * npes];
    for (long long v = 0; v <= npes; v++) {
        int c = final == v;
        for (int i = 0; i < npes; i++)
            c += f[i] == v;
        TCHECK_EQ(c, 1);
    }
}

static void operands_const(long long *d, long long v)
{
    for (int i = 0; i < npes; i++)
        d[i] = v;
}

static void operands_pe_plus_one(long long *d)
{
    for (int i = 0; i < npes; i++)
        d[i] = i + 1;
}

#define CTX SHMEM_CTX_DEFAULT

/* ---- Standard AMOs: fetch_add, add, inc, fetch_inc, compare_swap, their _nbi and ctx
 * forms. ---------------------------------------------------------------------------- */
#define STD_TEST(T, N)                                                                       \
    static void std_##N(T *t, const char *where)                                             \
    {                                                                                        \
        cur_type = #N " (standard)";                                                         \
        cur_where = where;                                                                   \
        const T big = (T)((T)1 << (8 * sizeof(T) - 2));                                      \
        memset(t, 0, NW * sizeof(T));                                                        \
        t[16] = big;                                                                         \
        shmem_barrier_all();                                                                 \
        T nf_add[npes], nf_inc[npes], cnf_add[npes], cnf_inc[npes];                          \
        for (int k = 0; k < npes; k++) {                                                     \
            int p = (me + k) % npes;                                                         \
            T f;                                                                             \
            f = shmem_##N##_atomic_fetch_add(&t[0], (T)(me + 1), p);                         \
            rec_set(S_FADD, (long long)f, p);                                                \
            shmem_##N##_atomic_add(&t[1], (T)(me + 1), p);                                   \
            shmem_##N##_atomic_inc(&t[2], p);                                                \
            f = shmem_##N##_atomic_fetch_inc(&t[3], p);                                      \
            rec_set(S_FINC, (long long)f, p);                                                \
            f = shmem_ctx_##N##_atomic_fetch_add(CTX, &t[4], (T)(me + 1), p);                \
            rec_set(S_CFADD, (long long)f, p);                                               \
            shmem_ctx_##N##_atomic_add(CTX, &t[5], (T)(me + 1), p);                          \
            shmem_ctx_##N##_atomic_inc(CTX, &t[6], p);                                       \
            f = shmem_ctx_##N##_atomic_fetch_inc(CTX, &t[7], p);                             \
            rec_set(S_CFINC, (long long)f, p);                                               \
            shmem_##N##_atomic_fetch_add_nbi(&nf_add[p], &t[13], (T)(me + 1), p);            \
            shmem_##N##_atomic_fetch_inc_nbi(&nf_inc[p], &t[14], p);                         \
            shmem_ctx_##N##_atomic_fetch_add_nbi(CTX, &cnf_add[p], &t[17], (T)(me + 1), p);  \
            shmem_ctx_##N##_atomic_fetch_inc_nbi(CTX, &cnf_inc[p], &t[18], p);               \
        }                                                                                    \
        /* The neighbour's wide value: the whole word takes part. */                         \
        T fb = shmem_##N##_atomic_fetch_add(&t[16], (T)1, right);                            \
        TCHECK(fb == big);                                                                   \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        for (int p = 0; p < npes; p++) {                                                     \
            rec_set(S_NFADD, (long long)nf_add[p], p);                                       \
            rec_set(S_NFINC, (long long)nf_inc[p], p);                                       \
            rec_set(S_CNFADD, (long long)cnf_add[p], p);                                     \
            rec_set(S_CNFINC, (long long)cnf_inc[p], p);                                     \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        long long tri = (long long)npes * (npes + 1) / 2;                                    \
        static const int sums[] = { 0, 1, 4, 5, 13, 17 }, counts[] = { 2, 3, 6, 7, 14, 18 }; \
        for (int i = 0; i < 6; i++) {                                                        \
            TCHECK_EQ(t[sums[i]], tri);                                                      \
            TCHECK_EQ(t[counts[i]], npes);                                                   \
        }                                                                                    \
        TCHECK(t[16] == (T)(big + 1));                                                       \
        long long d1[npes], dme[npes];                                                       \
        operands_const(d1, 1);                                                               \
        operands_pe_plus_one(dme);                                                           \
        check_chain(S_FADD, OP_ADD, dme, 0, tri);                                            \
        check_chain(S_CFADD, OP_ADD, dme, 0, tri);                                           \
        check_chain(S_NFADD, OP_ADD, dme, 0, tri);                                           \
        check_chain(S_CNFADD, OP_ADD, dme, 0, tri);                                          \
        check_chain(S_FINC, OP_ADD, d1, 0, npes);                                            \
        check_chain(S_CFINC, OP_ADD, d1, 0, npes);                                           \
        check_chain(S_NFINC, OP_ADD, d1, 0, npes);                                           \
        check_chain(S_CNFINC, OP_ADD, d1, 0, npes);                                          \
        shmem_barrier_all();                                                                 \
                                                                                             \
        /* Compare-and-swap contention on PE 0: exactly one PE wins. */                      \
        T old = shmem_##N##_atomic_compare_swap(&t[8], (T)0, (T)(me + 1), 0);                \
        rec_set(S_CAS, (long long)old, 0);                                                   \
        if (old == 0)                                                                        \
            shmem_##N##_atomic_inc(&t[9], 0);                                                \
        T cold = shmem_ctx_##N##_atomic_compare_swap(CTX, &t[10], (T)0, (T)(me + 1), right); \
        TCHECK_EQ(cold, 0);                                                                  \
        for (int r = 0; r < CASLOOP; r++) {                                                  \
            T cur = shmem_##N##_atomic_fetch(&t[11], 0);                                     \
            for (;;) {                                                                       \
                T o = shmem_##N##_atomic_compare_swap(&t[11], cur, (T)(cur + 1), 0);         \
                if (o == cur)                                                                \
                    break;                                                                   \
                cur = o;                                                                     \
            }                                                                                \
        }                                                                                    \
        T cf = (T)99, ccf = (T)99;                                                           \
        shmem_##N##_atomic_compare_swap_nbi(&cf, &t[12], (T)0, (T)(me + 1), right);          \
        shmem_ctx_##N##_atomic_compare_swap_nbi(CTX, &ccf, &t[15], (T)0, (T)(me + 1),        \
                                                right);                                      \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        TCHECK_EQ(cf, 0);                                                                    \
        TCHECK_EQ(ccf, 0);                                                                   \
        shmem_barrier_all();                                                                 \
        T w = shmem_##N##_atomic_fetch(&t[8], 0);                                            \
        TCHECK(w >= 1 && w <= (T)npes);                                                      \
        if (old == 0)                                                                        \
            TCHECK_EQ(w, me + 1);                                                            \
        else                                                                                 \
            TCHECK_EQ(old, w);                                                               \
        TCHECK_EQ(t[10], left + 1);                                                          \
        TCHECK_EQ(t[12], left + 1);                                                          \
        TCHECK_EQ(t[15], left + 1);                                                          \
        /* A failing compare leaves the word alone and returns it. */                        \
        T fail = shmem_##N##_atomic_compare_swap(&t[8], (T)(w + 1), (T)77, 0);               \
        TCHECK_EQ(fail, w);                                                                  \
        fail = shmem_ctx_##N##_atomic_compare_swap(CTX, &t[10], (T)(left + 2), (T)77, me);   \
        TCHECK_EQ(fail, left + 1);                                                           \
        if (me == 0) {                                                                       \
            TCHECK_EQ(t[9], 1);                                                              \
            TCHECK_EQ(t[11], npes *CASLOOP);                                                 \
            int zeros = 0;                                                                   \
            for (int i = 0; i < npes; i++) {                                                 \
                long long v = rec[S_CAS * npes + i];                                         \
                if (v == 0)                                                                  \
                    zeros++;                                                                 \
                else                                                                         \
                    TCHECK_EQ(v, w);                                                         \
            }                                                                                \
            TCHECK_EQ(zeros, 1);                                                             \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        TCHECK_EQ(t[10], left + 1);                                                          \
        if (me == 0)                                                                         \
            TCHECK_EQ(t[8], w);                                                              \
        shmem_barrier_all();                                                                 \
    }

/* ---- Extended AMOs: fetch, set, swap and their _nbi and ctx forms. -------------------- */
#define EXT_TEST(T, N)                                                                       \
    static void ext_##N(T *t, const char *where)                                             \
    {                                                                                        \
        cur_type = #N " (extended)";                                                         \
        cur_where = where;                                                                   \
        memset(t, 0, NW * sizeof(T));                                                        \
        shmem_barrier_all();                                                                 \
        shmem_##N##_atomic_set(&t[20], (T)(2 * me + 1), right);                              \
        shmem_ctx_##N##_atomic_set(CTX, &t[21], (T)(2 * me + 2), right);                     \
        for (int r = 0; r < SWAPR; r++) {                                                    \
            T s = shmem_##N##_atomic_swap(&t[22], (T)(me * SWAPR + r + 1), 0);               \
            seen_add((long long)s);                                                          \
        }                                                                                    \
        T cs = shmem_ctx_##N##_atomic_swap(CTX, &t[23], (T)(me + 1), right);                 \
        TCHECK_EQ(cs, 0);                                                                    \
        cs = shmem_ctx_##N##_atomic_swap(CTX, &t[23], (T)(me + 1 + npes), right);            \
        TCHECK_EQ(cs, me + 1);                                                               \
        T sf = (T)-5, csf = (T)-5;                                                           \
        shmem_##N##_atomic_swap_nbi(&sf, &t[24], (T)(me + 1), 0);                            \
        shmem_ctx_##N##_atomic_swap_nbi(CTX, &csf, &t[25], (T)(me + 1), 0);                  \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        rec_set(S_NSWAP, (long long)sf, 0);                                                  \
        rec_set(S_CNSWAP, (long long)csf, 0);                                                \
        shmem_barrier_all();                                                                 \
        TCHECK_EQ(t[20], 2 * left + 1);                                                      \
        TCHECK_EQ(t[21], 2 * left + 2);                                                      \
        TCHECK_EQ(t[23], left + 1 + npes);                                                   \
        for (int p = 0; p < npes; p++) {                                                     \
            T v = shmem_##N##_atomic_fetch(&t[20], p);                                       \
            TCHECK_EQ(v, 2 * ((p + npes - 1) % npes) + 1);                                   \
            v = shmem_ctx_##N##_atomic_fetch(CTX, &t[21], p);                                \
            TCHECK_EQ(v, 2 * ((p + npes - 1) % npes) + 2);                                   \
        }                                                                                    \
        T ff[2 * npes];                                                                      \
        for (int p = 0; p < npes; p++) {                                                     \
            ff[2 * p] = ff[2 * p + 1] = (T)-1;                                               \
            shmem_##N##_atomic_fetch_nbi(&ff[2 * p], &t[20], p);                             \
            shmem_ctx_##N##_atomic_fetch_nbi(CTX, &ff[2 * p + 1], &t[21], p);                \
        }                                                                                    \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        for (int p = 0; p < npes; p++) {                                                     \
            TCHECK_EQ(ff[2 * p], 2 * ((p + npes - 1) % npes) + 1);                           \
            TCHECK_EQ(ff[2 * p + 1], 2 * ((p + npes - 1) % npes) + 2);                       \
        }                                                                                    \
        if (me == 0) {                                                                       \
            check_seen((long long)t[22]);                                                    \
            check_perm(S_NSWAP, (long long)t[24]);                                           \
            check_perm(S_CNSWAP, (long long)t[25]);                                          \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
    }

/* ---- Bitwise AMOs: and, or, xor, fetching, _nbi and ctx forms. ------------------------- */
#define BIT_TEST(T, N)                                                                       \
    static T bit_##N(int i)                                                                  \
    {                                                                                        \
        return (T)((T)1 << (i % 16));                                                        \
    }                                                                                        \
    static T pat_##N(int i)                                                                  \
    {                                                                                        \
        return (T)(0x0001000100010001ULL << (i % 16));                                       \
    }                                                                                        \
    static void bits_##N(T *t, const char *where)                                            \
    {                                                                                        \
        cur_type = #N " (bitwise)";                                                          \
        cur_where = where;                                                                   \
        static const int ors[] = { 30, 33, 36, 39, 42, 45 },                                 \
                         ands[] = { 31, 34, 37, 40, 43, 46 },                                \
                         xors[] = { 32, 35, 38, 41, 44, 47 };                                \
        memset(t, 0, NW * sizeof(T));                                                        \
        for (int i = 0; i < 6; i++)                                                          \
            t[ands[i]] = (T) ~(T)0;                                                          \
        shmem_barrier_all();                                                                 \
        T b = bit_##N(me), nb = (T)~b, x = pat_##N(me);                                      \
        T no[npes], na[npes], nx[npes], cno[npes], cna[npes], cnx[npes];                     \
        for (int k = 0; k < npes; k++) {                                                     \
            int p = (me + k) % npes;                                                         \
            T f;                                                                             \
            f = shmem_##N##_atomic_fetch_or(&t[30], b, p);                                   \
            TCHECK(!(f & b));                                                                \
            rec_set(S_OR, (long long)f, p);                                                  \
            f = shmem_##N##_atomic_fetch_and(&t[31], nb, p);                                 \
            TCHECK(f &b);                                                                    \
            rec_set(S_AND, (long long)f, p);                                                 \
            f = shmem_##N##_atomic_fetch_xor(&t[32], x, p);                                  \
            rec_set(S_XOR, (long long)f, p);                                                 \
            shmem_##N##_atomic_or(&t[33], b, p);                                             \
            shmem_##N##_atomic_and(&t[34], nb, p);                                           \
            shmem_##N##_atomic_xor(&t[35], x, p);                                            \
            f = shmem_ctx_##N##_atomic_fetch_or(CTX, &t[36], b, p);                          \
            rec_set(S_COR, (long long)f, p);                                                 \
            f = shmem_ctx_##N##_atomic_fetch_and(CTX, &t[37], nb, p);                        \
            rec_set(S_CAND, (long long)f, p);                                                \
            f = shmem_ctx_##N##_atomic_fetch_xor(CTX, &t[38], x, p);                         \
            rec_set(S_CXOR, (long long)f, p);                                                \
            shmem_ctx_##N##_atomic_or(CTX, &t[39], b, p);                                    \
            shmem_ctx_##N##_atomic_and(CTX, &t[40], nb, p);                                  \
            shmem_ctx_##N##_atomic_xor(CTX, &t[41], x, p);                                   \
            shmem_##N##_atomic_fetch_or_nbi(&no[p], &t[42], b, p);                           \
            shmem_##N##_atomic_fetch_and_nbi(&na[p], &t[43], nb, p);                         \
            shmem_##N##_atomic_fetch_xor_nbi(&nx[p], &t[44], x, p);                          \
            shmem_ctx_##N##_atomic_fetch_or_nbi(CTX, &cno[p], &t[45], b, p);                 \
            shmem_ctx_##N##_atomic_fetch_and_nbi(CTX, &cna[p], &t[46], nb, p);               \
            shmem_ctx_##N##_atomic_fetch_xor_nbi(CTX, &cnx[p], &t[47], x, p);                \
        }                                                                                    \
        shmem_quiet();                                                                       \
        shmem_ctx_quiet(CTX);                                                                \
        for (int p = 0; p < npes; p++) {                                                     \
            TCHECK(!(no[p] & b) && !(cno[p] & b));                                           \
            TCHECK((na[p] & b) && (cna[p] & b));                                             \
            rec_set(S_NOR, (long long)no[p], p);                                             \
            rec_set(S_NAND, (long long)na[p], p);                                            \
            rec_set(S_NXOR, (long long)nx[p], p);                                            \
            rec_set(S_CNOR, (long long)cno[p], p);                                           \
            rec_set(S_CNAND, (long long)cna[p], p);                                          \
            rec_set(S_CNXOR, (long long)cnx[p], p);                                          \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
        T all_or = 0, all_xor = 0;                                                           \
        long long dor[npes], dand[npes], dxor[npes];                                         \
        for (int i = 0; i < npes; i++) {                                                     \
            all_or |= bit_##N(i);                                                            \
            all_xor ^= pat_##N(i);                                                           \
            dor[i] = (long long)bit_##N(i);                                                  \
            dand[i] = (long long)(T)~bit_##N(i);                                             \
            dxor[i] = (long long)pat_##N(i);                                                 \
        }                                                                                    \
        for (int i = 0; i < 6; i++) {                                                        \
            TCHECK(t[ors[i]] == all_or);                                                     \
            TCHECK(t[ands[i]] == (T)~all_or);                                                \
            TCHECK(t[xors[i]] == all_xor);                                                   \
        }                                                                                    \
        long long ones = (long long)(T) ~(T)0, fand = (long long)(T)~all_or;                 \
        check_chain(S_OR, OP_OR, dor, 0, (long long)all_or);                                 \
        check_chain(S_COR, OP_OR, dor, 0, (long long)all_or);                                \
        check_chain(S_NOR, OP_OR, dor, 0, (long long)all_or);                                \
        check_chain(S_CNOR, OP_OR, dor, 0, (long long)all_or);                               \
        check_chain(S_AND, OP_AND, dand, ones, fand);                                        \
        check_chain(S_CAND, OP_AND, dand, ones, fand);                                       \
        check_chain(S_NAND, OP_AND, dand, ones, fand);                                       \
        check_chain(S_CNAND, OP_AND, dand, ones, fand);                                      \
        check_chain(S_XOR, OP_XOR, dxor, 0, (long long)all_xor);                             \
        check_chain(S_CXOR, OP_XOR, dxor, 0, (long long)all_xor);                            \
        check_chain(S_NXOR, OP_XOR, dxor, 0, (long long)all_xor);                            \
        check_chain(S_CNXOR, OP_XOR, dxor, 0, (long long)all_xor);                           \
        shmem_barrier_all();                                                                 \
    }

/* ---- Deprecated (1.4) names: shmem_TYPENAME_fadd/add/inc/finc/cswap and
 * shmem_TYPENAME_fetch/set/swap. ------------------------------------------------------- */
#define DEPR_STD_TEST(T, N)                                                                  \
    static void depr_std_##N(T *t, const char *where)                                        \
    {                                                                                        \
        cur_type = "shmem_" #N "_fadd/add/inc/finc/cswap (deprecated)";                      \
        cur_where = where;                                                                   \
        memset(t, 0, NW * sizeof(T));                                                        \
        shmem_barrier_all();                                                                 \
        for (int k = 0; k < npes; k++) {                                                     \
            int p = (me + k) % npes;                                                         \
            T f = shmem_##N##_fadd(&t[0], (T)(me + 1), p);                                   \
            rec_set(S_FADD, (long long)f, p);                                                \
            shmem_##N##_add(&t[1], (T)(me + 1), p);                                          \
            shmem_##N##_inc(&t[2], p);                                                       \
            f = shmem_##N##_finc(&t[3], p);                                                  \
            rec_set(S_FINC, (long long)f, p);                                                \
        }                                                                                    \
        T old = shmem_##N##_cswap(&t[8], (T)0, (T)(me + 1), 0);                              \
        rec_set(S_CAS, (long long)old, 0);                                                   \
        shmem_barrier_all();                                                                 \
        long long tri = (long long)npes * (npes + 1) / 2;                                    \
        TCHECK_EQ(t[0], tri);                                                                \
        TCHECK_EQ(t[1], tri);                                                                \
        TCHECK_EQ(t[2], npes);                                                               \
        TCHECK_EQ(t[3], npes);                                                               \
        long long d1[npes], dme[npes];                                                       \
        operands_const(d1, 1);                                                               \
        operands_pe_plus_one(dme);                                                           \
        check_chain(S_FADD, OP_ADD, dme, 0, tri);                                            \
        check_chain(S_FINC, OP_ADD, d1, 0, npes);                                            \
        T w = shmem_##N##_atomic_fetch(&t[8], 0);                                            \
        TCHECK(old == 0 ? w == (T)(me + 1) : old == w);                                      \
        if (me == 0) {                                                                       \
            int zeros = 0;                                                                   \
            for (int i = 0; i < npes; i++)                                                   \
                zeros += rec[S_CAS * npes + i] == 0;                                         \
            TCHECK_EQ(zeros, 1);                                                             \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
    }

#define DEPR_EXT_TEST(T, N)                                                                  \
    static void depr_ext_##N(T *t, const char *where)                                        \
    {                                                                                        \
        cur_type = "shmem_" #N "_fetch/set/swap (deprecated)";                               \
        cur_where = where;                                                                   \
        memset(t, 0, NW * sizeof(T));                                                        \
        shmem_barrier_all();                                                                 \
        shmem_##N##_set(&t[20], (T)(2 * me + 1), right);                                     \
        T s = shmem_##N##_swap(&t[22], (T)(me + 1), 0);                                      \
        rec_set(S_SWAP, (long long)s, 0);                                                    \
        shmem_barrier_all();                                                                 \
        TCHECK_EQ(t[20], 2 * left + 1);                                                      \
        for (int p = 0; p < npes; p++) {                                                     \
            T v = shmem_##N##_fetch(&t[20], p);                                              \
            TCHECK_EQ(v, 2 * ((p + npes - 1) % npes) + 1);                                   \
        }                                                                                    \
        if (me == 0)                                                                         \
            check_perm(S_SWAP, (long long)t[22]);                                            \
        shmem_barrier_all();                                                                 \
    }

SHMEM_AMO_STD_TYPES(STD_TEST)
SHMEM_AMO_EXT_TYPES(EXT_TEST)
SHMEM_AMO_BIT_TYPES(BIT_TEST)
SHMEM_DEPR_AMO_STD_TYPES(DEPR_STD_TEST)
SHMEM_DEPR_AMO_EXT_TYPES(DEPR_EXT_TEST)

/* Global (static-data) targets, one array per type name; every AMO table is a subset
 * of the extended one. */
#define GLOBAL_TARGET(T, N) static T g_##N[NW];
SHMEM_AMO_EXT_TYPES(GLOBAL_TARGET)

/* Runs test PREFIX_N on a fresh heap block and on the global array. */
#define RUN(PREFIX, T, N)                                                                    \
    do {                                                                                     \
        T *h = shmem_malloc(NW * sizeof(T));                                                 \
        CHECK(h != NULL);                                                                    \
        PREFIX##_##N(h, "symmetric heap");                                                   \
        PREFIX##_##N(g_##N, "global variable");                                              \
        shmem_free(h);                                                                       \
        runs++;                                                                              \
    } while (0);
#define RUN_STD(T, N) RUN(std, T, N)
#define RUN_EXT(T, N) RUN(ext, T, N)
#define RUN_BIT(T, N) RUN(bits, T, N)
#define RUN_DEPR_STD(T, N) RUN(depr_std, T, N)
#define RUN_DEPR_EXT(T, N) RUN(depr_ext, T, N)

/* Counts each table's rows, to check that every row ran. */
#define COUNT_ROW(T, N) +1

int main(void)
{
    ring_init();
    rec = shmem_calloc((size_t)NSLOT * npes, sizeof(long long));
    seen = shmem_calloc((size_t)SWAPR * npes + 1, sizeof(long long));
    CHECK(rec != NULL && seen != NULL);

    int runs = 0;
    SHMEM_AMO_STD_TYPES(RUN_STD)
    CHECK_EQ(runs, 0 SHMEM_AMO_STD_TYPES(COUNT_ROW));
    runs = 0;
    SHMEM_AMO_EXT_TYPES(RUN_EXT)
    CHECK_EQ(runs, 0 SHMEM_AMO_EXT_TYPES(COUNT_ROW));
    runs = 0;
    SHMEM_AMO_BIT_TYPES(RUN_BIT)
    CHECK_EQ(runs, 0 SHMEM_AMO_BIT_TYPES(COUNT_ROW));
    runs = 0;
    SHMEM_DEPR_AMO_STD_TYPES(RUN_DEPR_STD)
    SHMEM_DEPR_AMO_EXT_TYPES(RUN_DEPR_EXT)
    CHECK_EQ(runs, 0 SHMEM_DEPR_AMO_STD_TYPES(COUNT_ROW) SHMEM_DEPR_AMO_EXT_TYPES(COUNT_ROW));

    shmem_free(seen);
    shmem_free(rec);
    if (me == 0)
        printf("test_amo: %d PEs OK\n", npes);
    shmem_finalize();
    return 0;
}
