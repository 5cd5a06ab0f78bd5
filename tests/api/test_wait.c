/* Point-to-point synchronization: wait_until, test and every _all/_any/_some and
 * _vector form, with every comparison, for every type of SHMEM_SYNC_TYPES (generated
 * from the table), plus the deprecated waits.
 *
 * PEs form a ring: each PE is the producer for its right neighbour's ivars and the
 * consumer of its own, which its left neighbour updates with AMOs in a known order.
 * A stage runs one comparison over all variants:
 *   producer: wait for the consumer's "ready" (ack), update its ivars, set "done";
 *   consumer: wait/test on every variant, then wait for "done" and check the final
 *             state exactly, reset its ivars, check every test form is false, ack.
 * At 1 PE the PE is its own neighbour. */
#include <sched.h>
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "ring.h"

#define NE 4 /* elements per multi-element variant */

enum {
    V_WAIT,
    V_TEST,
    V_WALL,
    V_WANY,
    V_WSOME,
    V_WALLV,
    V_WANYV,
    V_WSOMEV,
    V_TALL,
    V_TANY,
    V_TSOME,
    V_TALLV,
    V_TANYV,
    V_TSOMEV,
    NV
};
#define SCRATCH (NV * NE) /* local scratch elements after the variants */
#define NIV (SCRATCH + 4)

/* Per variant family: the status mask and the order the producer makes elements true.
 * _all: element 2 masked, stays false; _any: element 0 masked and set first, so the
 * answer is 2; _some: element 1 masked, then 3 and 0 are set, so the answer is {3} or
 * {0, 3}. */
static const int st_all[NE] = { 0, 0, 1, 0 }, st_any[NE] = { 1, 0, 0, 0 },
                 st_some[NE] = { 0, 1, 0, 0 };
static const int ord_all[] = { 3, 1, 0, -1 }, ord_any[] = { 0, 2, -1 },
                 ord_some[] = { 1, 3, 0, -1 }, ord_one[] = { 0, -1 };

/* Each comparison with a value that makes it false (f) and one that makes it true (t)
 * against cmp value v; element i of a _vector form adds 10 * i to all three. */
struct cmpcase {
    int cmp;
    const char *name;
    int v, f, t;
};
static const struct cmpcase cases[] = {
    { SHMEM_CMP_EQ, "EQ", 5, 4, 5 }, { SHMEM_CMP_NE, "NE", 5, 5, 6 },
    { SHMEM_CMP_GT, "GT", 5, 5, 6 }, { SHMEM_CMP_GE, "GE", 5, 4, 5 },
    { SHMEM_CMP_LT, "LT", 5, 5, 4 }, { SHMEM_CMP_LE, "LE", 5, 6, 5 },
};
#define NCASES 6

static long *ack, *done; /* ack: set by the right neighbour; done: by the left one */
static long stage_id;
static const char *cur_type = "";
static const char *cur_cmp = "";

#define TCHECK(c)                                                                            \
    CHECK_WHILE(c, "testing %s with SHMEM_CMP_%s (stage %ld)", cur_type, cur_cmp, stage_id)

static void poll_pause(void)
{
    sched_yield();
}

static int is_vector(int v)
{
    return v == V_WALLV || v == V_WANYV || v == V_WSOMEV || v == V_TALLV || v == V_TANYV ||
            v == V_TSOMEV;
}
static const int *status_of(int v)
{
    switch (v) {
    case V_WALL:
    case V_WALLV:
    case V_TALL:
    case V_TALLV: return st_all;
    case V_WANY:
    case V_WANYV:
    case V_TANY:
    case V_TANYV: return st_any;
    case V_WSOME:
    case V_WSOMEV:
    case V_TSOME:
    case V_TSOMEV: return st_some;
    default: return NULL;
    }
}
static const int *order_of(int v)
{
    const int *s = status_of(v);
    return s == st_all ? ord_all : s == st_any ? ord_any : s == st_some ? ord_some : ord_one;
}

/* A _some answer: {3} or {0, 3}. */
static void check_some(size_t k, const size_t *idx)
{
    TCHECK(k == 1 || k == 2);
    if (k == 1)
        TCHECK(idx[0] == 3);
    else
        TCHECK(idx[0] == 0 && idx[1] == 3);
}

/* Producer: wait until the right neighbour is ready for this stage. */
static void stage_begin(void)
{
    shmem_long_wait_until(ack, SHMEM_CMP_GE, stage_id);
}
static void stage_produced(void)
{
    shmem_long_atomic_set(done, stage_id + 1, right);
}
static void stage_wait_done(void)
{
    shmem_long_wait_until(done, SHMEM_CMP_GE, stage_id + 1);
}
static void stage_end(void)
{
    stage_id++;
    shmem_long_atomic_set(ack, stage_id, left);
}

#define SYNC_TEST(T, N)                                                                      \
    /* Value of element i for case c: kind 0 = cmp value, 1 = false, 2 = true. */            \
    static T val_##N(const struct cmpcase *c, int v, int i, int kind)                        \
    {                                                                                        \
        int off = is_vector(v) ? 10 * i : 0;                                                 \
        return (T)((kind == 0 ? c->v : kind == 1 ? c->f : c->t) + off);                      \
    }                                                                                        \
    static void reset_##N(T *iv, const struct cmpcase *c)                                    \
    {                                                                                        \
        for (int v = 0; v < NV; v++)                                                         \
            for (int i = 0; i < NE; i++)                                                     \
                iv[v * NE + i] = val_##N(c, v, i, 1);                                        \
    }                                                                                        \
    /* Every test form on every variant says "not yet". */                                   \
    static void check_none_##N(T *iv, const struct cmpcase *c)                               \
    {                                                                                        \
        size_t idx[NE];                                                                      \
        T cv[NE];                                                                            \
        for (int v = 0; v < NV; v++) {                                                       \
            T *x = &iv[v * NE];                                                              \
            const int *st = status_of(v);                                                    \
            for (int i = 0; i < NE; i++)                                                     \
                cv[i] = val_##N(c, V_WALLV, i, 0);                                           \
            T s = val_##N(c, V_WALL, 0, 0);                                                  \
            if (is_vector(v)) {                                                              \
                TCHECK(shmem_##N##_test_all_vector(x, NE, st, c->cmp, cv) == 0);             \
                TCHECK(shmem_##N##_test_any_vector(x, NE, st, c->cmp, cv) == SIZE_MAX);      \
                TCHECK(shmem_##N##_test_some_vector(x, NE, idx, st, c->cmp, cv) == 0);       \
                TCHECK(shmem_##N##_test_all_vector(x, NE, NULL, c->cmp, cv) == 0);           \
            } else {                                                                         \
                TCHECK(shmem_##N##_test(&x[0], c->cmp, s) == 0);                             \
                TCHECK(shmem_##N##_test_all(x, NE, st, c->cmp, s) == 0);                     \
                TCHECK(shmem_##N##_test_any(x, NE, st, c->cmp, s) == SIZE_MAX);              \
                TCHECK(shmem_##N##_test_some(x, NE, idx, st, c->cmp, s) == 0);               \
                TCHECK(shmem_##N##_test_any(x, NE, NULL, c->cmp, s) == SIZE_MAX);            \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    /* Producer: make the right neighbour's conditions true, in the known order, half by  */ \
    /* atomic set and half by atomic add. */                                                 \
    static void produce_##N(T *iv, const struct cmpcase *c)                                  \
    {                                                                                        \
        for (int v = 0; v < NV; v++) {                                                       \
            const int *ord = order_of(v);                                                    \
            for (int j = 0; ord[j] >= 0; j++) {                                              \
                int i = ord[j];                                                              \
                T *e = &iv[v * NE + i];                                                      \
                if ((v + j) % 2)                                                             \
                    shmem_##N##_atomic_add(e,                                                \
                                           (T)(val_##N(c, v, i, 2) - val_##N(c, v, i, 1)),   \
                                           right);                                           \
                else                                                                         \
                    shmem_##N##_atomic_set(e, val_##N(c, v, i, 2), right);                   \
            }                                                                                \
        }                                                                                    \
    }                                                                                        \
    /* Consumer: every wait and test form until its condition holds. */                      \
    static void consume_##N(T *iv, const struct cmpcase *c)                                  \
    {                                                                                        \
        size_t idx[NE], k, r;                                                                \
        T cv[NE];                                                                            \
        for (int i = 0; i < NE; i++)                                                         \
            cv[i] = val_##N(c, V_WALLV, i, 0);                                               \
        const T s = val_##N(c, V_WALL, 0, 0);                                                \
        const int cmp = c->cmp;                                                              \
        shmem_##N##_wait_until(&iv[V_WAIT * NE], cmp, s);                                    \
        TCHECK(iv[V_WAIT * NE] == val_##N(c, V_WAIT, 0, 2));                                 \
        while (!shmem_##N##_test(&iv[V_TEST * NE], cmp, s))                                  \
            poll_pause();                                                                    \
        TCHECK(iv[V_TEST * NE] == val_##N(c, V_TEST, 0, 2));                                 \
        shmem_##N##_wait_until_all(&iv[V_WALL * NE], NE, st_all, cmp, s);                    \
        r = shmem_##N##_wait_until_any(&iv[V_WANY * NE], NE, st_any, cmp, s);                \
        TCHECK(r == 2);                                                                      \
        k = shmem_##N##_wait_until_some(&iv[V_WSOME * NE], NE, idx, st_some, cmp, s);        \
        check_some(k, idx);                                                                  \
        shmem_##N##_wait_until_all_vector(&iv[V_WALLV * NE], NE, st_all, cmp, cv);           \
        r = shmem_##N##_wait_until_any_vector(&iv[V_WANYV * NE], NE, st_any, cmp, cv);       \
        TCHECK(r == 2);                                                                      \
        k = shmem_##N##_wait_until_some_vector(&iv[V_WSOMEV * NE], NE, idx, st_some, cmp,    \
                                               cv);                                          \
        check_some(k, idx);                                                                  \
        while (!shmem_##N##_test_all(&iv[V_TALL * NE], NE, st_all, cmp, s))                  \
            poll_pause();                                                                    \
        while ((r = shmem_##N##_test_any(&iv[V_TANY * NE], NE, st_any, cmp, s)) == SIZE_MAX) \
            poll_pause();                                                                    \
        TCHECK(r == 2);                                                                      \
        while ((k = shmem_##N##_test_some(&iv[V_TSOME * NE], NE, idx, st_some, cmp, s)) ==   \
               0)                                                                            \
            poll_pause();                                                                    \
        check_some(k, idx);                                                                  \
        while (!shmem_##N##_test_all_vector(&iv[V_TALLV * NE], NE, st_all, cmp, cv))         \
            poll_pause();                                                                    \
        while ((r = shmem_##N##_test_any_vector(&iv[V_TANYV * NE], NE, st_any, cmp, cv)) ==  \
               SIZE_MAX)                                                                     \
            poll_pause();                                                                    \
        TCHECK(r == 2);                                                                      \
        while ((k = shmem_##N##_test_some_vector(&iv[V_TSOMEV * NE], NE, idx, st_some, cmp,  \
                                                 cv)) == 0)                                  \
            poll_pause();                                                                    \
        check_some(k, idx);                                                                  \
    }                                                                                        \
    /* After the producer is done: the exact final state and the exact answers. */           \
    static void check_final_##N(T *iv, const struct cmpcase *c)                              \
    {                                                                                        \
        size_t idx[NE];                                                                      \
        T cv[NE];                                                                            \
        for (int i = 0; i < NE; i++)                                                         \
            cv[i] = val_##N(c, V_WALLV, i, 0);                                               \
        const T s = val_##N(c, V_WALL, 0, 0);                                                \
        for (int v = 0; v < NV; v++) {                                                       \
            const int *ord = order_of(v);                                                    \
            T *x = &iv[v * NE];                                                              \
            for (int i = 0; i < NE; i++) {                                                   \
                int set = 0;                                                                 \
                for (int j = 0; ord[j] >= 0; j++)                                            \
                    set |= ord[j] == i;                                                      \
                TCHECK(x[i] == val_##N(c, v, i, set ? 2 : 1));                               \
            }                                                                                \
            const int *st = status_of(v);                                                    \
            if (!st)                                                                         \
                continue;                                                                    \
            size_t k, any;                                                                   \
            if (is_vector(v)) {                                                              \
                TCHECK(shmem_##N##_test_all_vector(x, NE, st, c->cmp, cv) ==                 \
                       (st == st_all));                                                      \
                TCHECK(shmem_##N##_test_all_vector(x, NE, NULL, c->cmp, cv) == 0);           \
                any = shmem_##N##_test_any_vector(x, NE, NULL, c->cmp, cv);                  \
                k = shmem_##N##_test_some_vector(x, NE, idx, NULL, c->cmp, cv);              \
            } else {                                                                         \
                TCHECK(shmem_##N##_test_all(x, NE, st, c->cmp, s) == (st == st_all));        \
                TCHECK(shmem_##N##_test_all(x, NE, NULL, c->cmp, s) == 0);                   \
                any = shmem_##N##_test_any(x, NE, NULL, c->cmp, s);                          \
                k = shmem_##N##_test_some(x, NE, idx, NULL, c->cmp, s);                      \
            }                                                                                \
            /* _any answers some satisfied index (which one rotates between calls). */       \
            TCHECK(k > 0 &&                                                                  \
                   (any == idx[0] || (k > 1 && any == idx[1]) || (k > 2 && any == idx[2]))); \
            /* Unmasked, every set element answers, in ascending order. */                   \
            if (st == st_all) {                                                              \
                TCHECK(k == 3 && idx[0] == 0 && idx[1] == 1 && idx[2] == 3);                 \
            } else if (st == st_any) {                                                       \
                TCHECK(k == 2 && idx[0] == 0 && idx[1] == 2);                                \
            } else {                                                                         \
                TCHECK(k == 3 && idx[0] == 0 && idx[1] == 1 && idx[2] == 3);                 \
            }                                                                                \
            k = is_vector(v) ? shmem_##N##_test_some_vector(x, NE, idx, st, c->cmp, cv)      \
                             : shmem_##N##_test_some(x, NE, idx, st, c->cmp, s);             \
            if (st == st_all)                                                                \
                TCHECK(k == 3 && idx[0] == 0 && idx[1] == 1 && idx[2] == 3);                 \
            else if (st == st_any)                                                           \
                TCHECK(k == 1 && idx[0] == 2);                                               \
            else                                                                             \
                TCHECK(k == 2 && idx[0] == 0 && idx[1] == 3);                                \
        }                                                                                    \
    }                                                                                        \
    /* Local checks: edge cases and the comparison truth table, on scratch elements. */      \
    static void local_##N(T *iv)                                                             \
    {                                                                                        \
        T *x = &iv[SCRATCH];                                                                 \
        size_t idx[4];                                                                       \
        static const int masked[4] = { 1, 1, 1, 1 };                                         \
        const T probe[] = {                                                                  \
            (T)0, (T)1, (T)2, (T)-1, (T)-2, (T)((T)1 << (8 * sizeof(T) - 2))                 \
        };                                                                                   \
        const int np = (int)(sizeof probe / sizeof probe[0]);                                \
        for (int ci = 0; ci < NCASES; ci++) {                                                \
            const int cmp = cases[ci].cmp;                                                   \
            cur_cmp = cases[ci].name;                                                        \
            for (int a = 0; a < np; a++)                                                     \
                for (int b = 0; b < np; b++) {                                               \
                    T xa = probe[a], xb = probe[b];                                          \
                    int want = cmp == SHMEM_CMP_EQ ? xa == xb                                \
                            : cmp == SHMEM_CMP_NE  ? xa != xb                                \
                            : cmp == SHMEM_CMP_GT  ? xa > xb                                 \
                            : cmp == SHMEM_CMP_GE  ? xa >= xb                                \
                            : cmp == SHMEM_CMP_LT  ? xa < xb                                 \
                                                   : xa <= xb;                                \
                    x[0] = x[1] = x[2] = x[3] = xa;                                          \
                    T cv[4] = { xb, xb, xb, xb };                                            \
                    TCHECK(shmem_##N##_test(&x[0], cmp, xb) == want);                        \
                    TCHECK(shmem_##N##_test_all(x, 4, NULL, cmp, xb) == want);               \
                    TCHECK(shmem_##N##_test_all_vector(x, 4, NULL, cmp, cv) == want);        \
                    size_t any = shmem_##N##_test_any(x, 4, NULL, cmp, xb);                  \
                    TCHECK(want ? any < 4 : any == SIZE_MAX);                                \
                    any = shmem_##N##_test_any_vector(x, 4, NULL, cmp, cv);                  \
                    TCHECK(want ? any < 4 : any == SIZE_MAX);                                \
                    TCHECK(shmem_##N##_test_some(x, 4, idx, NULL, cmp, xb) ==                \
                           (size_t)(want ? 4 : 0));                                          \
                    TCHECK(shmem_##N##_test_some_vector(x, 4, idx, NULL, cmp, cv) ==         \
                           (size_t)(want ? 4 : 0));                                          \
                    if (want) {                                                              \
                        /* satisfied now: the waits return at once */                        \
                        shmem_##N##_wait_until(&x[0], cmp, xb);                              \
                        shmem_##N##_wait_until_all(x, 4, NULL, cmp, xb);                     \
                        shmem_##N##_wait_until_all_vector(x, 4, NULL, cmp, cv);              \
                        TCHECK(shmem_##N##_wait_until_any(x, 4, NULL, cmp, xb) < 4);         \
                        TCHECK(shmem_##N##_wait_until_any_vector(x, 4, NULL, cmp, cv) < 4);  \
                        TCHECK(shmem_##N##_wait_until_some(x, 4, idx, NULL, cmp, xb) == 4);  \
                        TCHECK(shmem_##N##_wait_until_some_vector(x, 4, idx, NULL, cmp,      \
                                                                  cv) == 4);                 \
                        TCHECK(idx[0] == 0 && idx[3] == 3);                                  \
                    }                                                                        \
                }                                                                            \
            /* All masked, and nelems 0: the waits return at once even though nothing */     \
            /* could ever satisfy them. */                                                   \
            x[0] = x[1] = x[2] = x[3] = (T)7;                                                \
            T never = (T)(cmp == SHMEM_CMP_EQ           ? 8                                  \
                                  : cmp == SHMEM_CMP_NE ? 7                                  \
                                  : cmp == SHMEM_CMP_GT ? 100                                \
                                  : cmp == SHMEM_CMP_GE ? 100                                \
                                  : cmp == SHMEM_CMP_LT ? 3                                  \
                                                        : 3);                                \
            T nv[4] = { never, never, never, never };                                        \
            TCHECK(shmem_##N##_test(&x[0], cmp, never) == 0);                                \
            shmem_##N##_wait_until_all(x, 4, masked, cmp, never);                            \
            shmem_##N##_wait_until_all(x, 0, NULL, cmp, never);                              \
            shmem_##N##_wait_until_all_vector(x, 4, masked, cmp, nv);                        \
            shmem_##N##_wait_until_all_vector(x, 0, NULL, cmp, nv);                          \
            TCHECK(shmem_##N##_wait_until_any(x, 4, masked, cmp, never) == SIZE_MAX);        \
            TCHECK(shmem_##N##_wait_until_any(x, 0, NULL, cmp, never) == SIZE_MAX);          \
            TCHECK(shmem_##N##_wait_until_any_vector(x, 4, masked, cmp, nv) == SIZE_MAX);    \
            TCHECK(shmem_##N##_wait_until_any_vector(x, 0, NULL, cmp, nv) == SIZE_MAX);      \
            TCHECK(shmem_##N##_wait_until_some(x, 4, idx, masked, cmp, never) == 0);         \
            TCHECK(shmem_##N##_wait_until_some(x, 0, idx, NULL, cmp, never) == 0);           \
            TCHECK(shmem_##N##_wait_until_some_vector(x, 4, idx, masked, cmp, nv) == 0);     \
            TCHECK(shmem_##N##_wait_until_some_vector(x, 0, idx, NULL, cmp, nv) == 0);       \
            TCHECK(shmem_##N##_test_all(x, 4, masked, cmp, never) == 1);                     \
            TCHECK(shmem_##N##_test_all(x, 0, NULL, cmp, never) == 1);                       \
            TCHECK(shmem_##N##_test_all_vector(x, 4, masked, cmp, nv) == 1);                 \
            TCHECK(shmem_##N##_test_all_vector(x, 0, NULL, cmp, nv) == 1);                   \
            TCHECK(shmem_##N##_test_any(x, 4, masked, cmp, never) == SIZE_MAX);              \
            TCHECK(shmem_##N##_test_any(x, 0, NULL, cmp, never) == SIZE_MAX);                \
            TCHECK(shmem_##N##_test_any_vector(x, 4, masked, cmp, nv) == SIZE_MAX);          \
            TCHECK(shmem_##N##_test_any_vector(x, 0, NULL, cmp, nv) == SIZE_MAX);            \
            TCHECK(shmem_##N##_test_some(x, 4, idx, masked, cmp, never) == 0);               \
            TCHECK(shmem_##N##_test_some(x, 0, idx, NULL, cmp, never) == 0);                 \
            TCHECK(shmem_##N##_test_some_vector(x, 4, idx, masked, cmp, nv) == 0);           \
            TCHECK(shmem_##N##_test_some_vector(x, 0, idx, NULL, cmp, nv) == 0);             \
        }                                                                                    \
    }                                                                                        \
    static void sync_##N(T *iv)                                                              \
    {                                                                                        \
        cur_type = #N;                                                                       \
        local_##N(iv);                                                                       \
        reset_##N(iv, &cases[0]);                                                            \
        shmem_barrier_all();                                                                 \
        for (int ci = 0; ci < NCASES; ci++) {                                                \
            const struct cmpcase *c = &cases[ci];                                            \
            cur_cmp = c->name;                                                               \
            stage_begin();                                                                   \
            produce_##N(iv, c);                                                              \
            stage_produced();                                                                \
            consume_##N(iv, c);                                                              \
            stage_wait_done();                                                               \
            check_final_##N(iv, c);                                                          \
            if (ci + 1 < NCASES) {                                                           \
                reset_##N(iv, &cases[ci + 1]);                                               \
                check_none_##N(iv, &cases[ci + 1]);                                          \
            }                                                                                \
            stage_end();                                                                     \
        }                                                                                    \
        shmem_barrier_all();                                                                 \
    }

SHMEM_SYNC_TYPES(SYNC_TEST)

/* Half the types wait on heap ivars, half on global ones. */
#define GLOBAL_IVARS(T, N) static T g_##N[NIV];
SHMEM_SYNC_TYPES(GLOBAL_IVARS)

/* ---- Deprecated waits ----------------------------------------------------------------
 * shmem_TYPENAME_wait (short, int, long, long long), shmem_short/ushort_wait_until and
 * _test, shmem_wait_until(long *) and shmem_wait(long *). The producer uses
 * shmem_TYPENAME_p (there are no short AMOs) and a quiet. */
#define DW(T, N) static T dw_##N[2];
SHMEM_DEPR_WAIT_TYPES(DW)
#define DS(T, N) static T ds_##N[2 * NCASES];
SHMEM_SYNC_DEPR_TYPES(DS)
static long
        dl[2 + NCASES]; /* [0] shmem_wait, [1] generic wait_until, [2..] shmem_wait_until */

static void depr_reset(void)
{
#define DW_RESET(T, N) dw_##N[0] = (T)4;
    SHMEM_DEPR_WAIT_TYPES(DW_RESET)
#define DS_RESET(T, N)                                                                       \
    for (int c = 0; c < NCASES; c++)                                                         \
        ds_##N[c] = ds_##N[NCASES + c] = (T)cases[c].f;
    SHMEM_SYNC_DEPR_TYPES(DS_RESET)
    dl[0] = 4;
    dl[1] = 4;
    for (int c = 0; c < NCASES; c++)
        dl[2 + c] = cases[c].f;
}

static void depr_produce(void)
{
#define DW_PRODUCE(T, N) shmem_##N##_p(&dw_##N[0], (T)9, right);
    SHMEM_DEPR_WAIT_TYPES(DW_PRODUCE)
#define DS_PRODUCE(T, N)                                                                     \
    for (int c = 0; c < NCASES; c++) {                                                       \
        shmem_##N##_p(&ds_##N[c], (T)cases[c].t, right);                                     \
        shmem_##N##_p(&ds_##N[NCASES + c], (T)cases[c].t, right);                            \
    }
    SHMEM_SYNC_DEPR_TYPES(DS_PRODUCE)
    shmem_long_atomic_set(&dl[0], 9, right);
    shmem_long_atomic_set(&dl[1], 9, right);
    for (int c = 0; c < NCASES; c++)
        shmem_long_atomic_set(&dl[2 + c], cases[c].t, right);
    shmem_quiet();
}

static void depr_consume(void)
{
    cur_type = "deprecated waits";
#define DW_CONSUME(T, N)                                                                     \
    shmem_##N##_wait(&dw_##N[0], (T)4);                                                      \
    TCHECK(dw_##N[0] == (T)9);
    SHMEM_DEPR_WAIT_TYPES(DW_CONSUME)
#define DS_CONSUME(T, N)                                                                     \
    for (int c = 0; c < NCASES; c++) {                                                       \
        cur_cmp = cases[c].name;                                                             \
        shmem_##N##_wait_until(&ds_##N[c], cases[c].cmp, (T)cases[c].v);                     \
        TCHECK(ds_##N[c] == (T)cases[c].t);                                                  \
        while (!shmem_##N##_test(&ds_##N[NCASES + c], cases[c].cmp, (T)cases[c].v))          \
            poll_pause();                                                                    \
        TCHECK(ds_##N[NCASES + c] == (T)cases[c].t);                                         \
    }
    SHMEM_SYNC_DEPR_TYPES(DS_CONSUME)
    /* The parenthesised names are the real functions, not the C11 generic macros. */
    (shmem_wait)(&dl[0], 4);
    TCHECK(dl[0] == 9);
    shmem_wait_until(&dl[1], SHMEM_CMP_EQ, 9L); /* generic: shmem_long_wait_until */
    for (int c = 0; c < NCASES; c++) {
        cur_cmp = cases[c].name;
        (shmem_wait_until)(&dl[2 + c], cases[c].cmp, cases[c].v);
        TCHECK(dl[2 + c] == cases[c].t);
    }
    /* The generic short forms pick shmem_short_test. */
    TCHECK(shmem_test(&ds_short[0], SHMEM_CMP_EQ, (short)cases[0].t) == 1);
    TCHECK(shmem_test(&ds_ushort[0], SHMEM_CMP_NE, (unsigned short)cases[0].t) == 0);
}

/* Local checks of the deprecated short forms' comparisons, including negatives. */
static void depr_local(void)
{
    static short s;
    static unsigned short us;
    cur_type = "short/ushort (deprecated)";
    s = -3;
    us = (unsigned short)-3;
    TCHECK(shmem_short_test(&s, SHMEM_CMP_LT, 0) == 1);
    TCHECK(shmem_short_test(&s, SHMEM_CMP_GT, -4) == 1);
    TCHECK(shmem_short_test(&s, SHMEM_CMP_LE, -3) == 1);
    TCHECK(shmem_short_test(&s, SHMEM_CMP_GE, -2) == 0);
    TCHECK(shmem_ushort_test(&us, SHMEM_CMP_GT, 0) == 1);
    TCHECK(shmem_ushort_test(&us, SHMEM_CMP_EQ, 65533) == 1);
    TCHECK(shmem_ushort_test(&us, SHMEM_CMP_NE, 65533) == 0);
    shmem_short_wait_until(&s, SHMEM_CMP_EQ, -3);
    shmem_ushort_wait_until(&us, SHMEM_CMP_GE, 65533);
}

static void depr_stage(void)
{
    depr_local();
    depr_reset();
    shmem_barrier_all();
    stage_begin();
    depr_produce();
    stage_produced();
    depr_consume();
    stage_wait_done();
    stage_end();
    shmem_barrier_all();
}

/* The C11 generic names of the multi-element forms, locally. */
static void generic_local(void)
{
    static int gi[3];
    static unsigned long gu[3];
    int st[3] = { 0, 1, 0 };
    size_t idx[3];
    int cvi[3] = { 1, 2, 3 };
    cur_type = "C11 generic sync names";
    cur_cmp = "mixed";
    gi[0] = 1;
    gi[1] = 0;
    gi[2] = 3;
    gu[0] = 0;
    gu[1] = 5;
    gu[2] = 5;
    TCHECK(shmem_test(&gi[0], SHMEM_CMP_EQ, 1) == 1);
    shmem_wait_until(&gi[2], SHMEM_CMP_GT, 2);
    TCHECK(shmem_test_all(gi, 3, st, SHMEM_CMP_GE, 1) == 1);
    TCHECK(shmem_test_all(gi, 3, NULL, SHMEM_CMP_GE, 1) == 0);
    TCHECK(shmem_test_any(gu, 3, st, SHMEM_CMP_EQ, 5UL) == 2);
    TCHECK(shmem_test_some(gu, 3, idx, NULL, SHMEM_CMP_EQ, 5UL) == 2);
    TCHECK(idx[0] == 1 && idx[1] == 2);
    TCHECK(shmem_test_all_vector(gi, 3, st, SHMEM_CMP_EQ, cvi) == 1);
    size_t any = shmem_test_any_vector(gi, 3, NULL, SHMEM_CMP_EQ, cvi);
    TCHECK(any < 3 && gi[any] == cvi[any]);
    TCHECK(shmem_test_some_vector(gi, 3, idx, NULL, SHMEM_CMP_EQ, cvi) == 2);
    shmem_wait_until_all(gi, 3, st, SHMEM_CMP_NE, 0);
    any = shmem_wait_until_any(gu, 3, NULL, SHMEM_CMP_GT, 1UL);
    TCHECK(any == 1 || any == 2);
    TCHECK(shmem_wait_until_some(gu, 3, idx, NULL, SHMEM_CMP_GT, 1UL) == 2);
    shmem_wait_until_all_vector(gi, 3, st, SHMEM_CMP_EQ, cvi);
    any = shmem_wait_until_any_vector(gi, 3, NULL, SHMEM_CMP_EQ, cvi);
    TCHECK(any < 3 && gi[any] == cvi[any]);
    TCHECK(shmem_wait_until_some_vector(gi, 3, idx, st, SHMEM_CMP_EQ, cvi) == 2);
}

#define COUNT_ROW(T, N) +1

int main(void)
{
    ring_init();
    ack = shmem_calloc(2, sizeof(long));
    CHECK(ack != NULL);
    done = &ack[1];
    shmem_barrier_all();

    int row = 0, runs = 0;
#define RUN(T, N)                                                                            \
    if (row++ % 2 == 0) {                                                                    \
        T *iv = shmem_malloc(NIV * sizeof(T));                                               \
        CHECK(iv != NULL);                                                                   \
        sync_##N(iv);                                                                        \
        shmem_free(iv);                                                                      \
    } else {                                                                                 \
        sync_##N(g_##N);                                                                     \
    }                                                                                        \
    runs++;
    SHMEM_SYNC_TYPES(RUN)
    CHECK_EQ(runs, 0 SHMEM_SYNC_TYPES(COUNT_ROW));
    depr_stage();
    generic_local();
    CHECK_EQ(stage_id, 6 * runs + 1);

    shmem_free(ack);
    if (me == 0)
        printf("test_wait: %d PEs OK\n", npes);
    shmem_finalize();
    return 0;
}
