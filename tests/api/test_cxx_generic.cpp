// The C++ overloads of the generic names (shoal/cxx.h), called only by their generic
// names, for a spread of types including the fixed-width typedefs: RMA, AMOs, signals,
// wait/test, collectives and reductions, with and without a ctx, checked against
// values each PE computes independently. A wrong dispatch moves the wrong number of
// bytes or converts a value, and the data checks catch it.
#include <shmem.h>

#include <cstdint>
#include <cstdio>
#include <type_traits>

#include "check.h"
#include "ring.h"


static long long val(int pe, int i) { return pe * 100LL + i + 1; }

template <class T> static void test_rma()
{
    const int n = 8;
    static_assert(std::is_same<decltype(shmem_g((T *)0, 0)), T>::value, "shmem_g returns T");
    T *dst = (T *)shmem_calloc(4 * n, sizeof(T));
    T *src = (T *)shmem_malloc(n * sizeof(T));
    CHECK(dst != NULL && src != NULL);
    for (int i = 0; i < n; i++)
        src[i] = (T)val(me, i);
    shmem_barrier_all();
    shmem_put(dst, src, n, right);
    shmem_put(SHMEM_CTX_DEFAULT, dst + n, src, n, right);
    shmem_put_nbi(dst + 2 * n, src, n, right);
    shmem_p(dst + 3 * n, src[0], right);
    shmem_iput(dst + 3 * n + 1, src + 1, 2, 1, 3, right);   // dst+3n+1, +3n+3, +3n+5
    shmem_quiet();
    shmem_barrier_all();
    for (int i = 0; i < n; i++) {
        CHECK_EQ(dst[i], (T)val(left, i));
        CHECK_EQ(dst[n + i], (T)val(left, i));
        CHECK_EQ(dst[2 * n + i], (T)val(left, i));
    }
    CHECK_EQ(dst[3 * n], (T)val(left, 0));
    for (int k = 0; k < 3; k++)
        CHECK_EQ(dst[3 * n + 1 + 2 * k], (T)val(left, 1 + k));

    T got[n];
    shmem_get(got, src, n, left);
    for (int i = 0; i < n; i++)
        CHECK_EQ(got[i], (T)val(left, i));
    shmem_get_nbi(SHMEM_CTX_DEFAULT, got, src, n, right);
    shmem_quiet();
    for (int i = 0; i < n; i++)
        CHECK_EQ(got[i], (T)val(right, i));
    CHECK_EQ(shmem_g(src + 5, right), (T)val(right, 5));
    CHECK_EQ(shmem_g(SHMEM_CTX_DEFAULT, src + 6, left), (T)val(left, 6));
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

template <class T> static void test_amo()
{
    T *x = (T *)shmem_calloc(4, sizeof(T));
    CHECK(x != NULL);
    shmem_barrier_all();
    // Every PE adds me+1 to PE 0's x[0] by three different generic names.
    shmem_atomic_add(x, (T)(me + 1), 0);
    (void)shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, x + 1, (T)(me + 1), 0);
    shmem_atomic_inc(x + 2, 0);
    T old = shmem_atomic_fetch_inc(x + 3, 0);
    CHECK(old >= 0 && old < (T)npes);
    shmem_barrier_all();
    if (me == 0) {
        T want = (T)(npes * (npes + 1) / 2);
        CHECK_EQ(shmem_atomic_fetch(x, 0), want);
        CHECK_EQ(shmem_atomic_fetch(SHMEM_CTX_DEFAULT, x + 1, 0), want);
        CHECK_EQ(x[2], (T)npes);
        CHECK_EQ(x[3], (T)npes);
    }
    shmem_barrier_all();
    // Compare-and-swap and swap on my right neighbour's x[0].
    shmem_atomic_set(x, (T)7, right);
    shmem_barrier_all();
    CHECK_EQ(shmem_atomic_compare_swap(x, (T)7, (T)(me + 10), right), (T)7);
    CHECK_EQ(shmem_atomic_swap(SHMEM_CTX_DEFAULT, x, (T)3, right), (T)(me + 10));
    shmem_barrier_all();
    CHECK_EQ(x[0], (T)3);
    shmem_barrier_all();
    shmem_free(x);
}

template <class T> static void test_bitwise()
{
    T *x = (T *)shmem_malloc(sizeof(T));
    CHECK(x != NULL);
    *x = (T)0;
    shmem_barrier_all();
    shmem_atomic_or(x, (T)((T)1 << (me % 16)), 0);
    shmem_barrier_all();
    if (me == 0) {
        T want = 0;
        for (int pe = 0; pe < npes; pe++)
            want = (T)(want | (T)((T)1 << (pe % 16)));
        CHECK_EQ(shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, x, want, 0), want);
        CHECK_EQ(*x, (T)0);
    }
    shmem_barrier_all();
    shmem_free(x);
}

template <class T> static void test_sync()
{
    T *flag = (T *)shmem_calloc(2, sizeof(T));
    CHECK(flag != NULL);
    shmem_barrier_all();
    shmem_p(flag, (T)(me + 1), right);
    shmem_wait_until(flag, SHMEM_CMP_EQ, (T)(left + 1));
    CHECK(shmem_test(flag, SHMEM_CMP_GE, (T)1));
    CHECK(!shmem_test(flag + 1, SHMEM_CMP_NE, (T)0));
    size_t idx = shmem_wait_until_any(flag, 2, NULL, SHMEM_CMP_NE, (T)0);
    CHECK_EQ(idx, 0);
    shmem_barrier_all();
    shmem_free(flag);
}

template <class T> static void test_coll()
{
    const int n = 4;
    T *src = (T *)shmem_malloc(n * sizeof(T));
    T *dst = (T *)shmem_calloc((size_t)n * npes, sizeof(T));
    CHECK(src != NULL && dst != NULL);
    for (int i = 0; i < n; i++)
        src[i] = (T)val(me, i);
    shmem_barrier_all();
    CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, dst, src, n, 0), 0);
    for (int i = 0; i < n; i++)
        CHECK_EQ(dst[i], (T)val(0, i));
    CHECK_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, dst, src, n), 0);
    for (int pe = 0; pe < npes; pe++)
        for (int i = 0; i < n; i++)
            CHECK_EQ(dst[pe * n + i], (T)val(pe, i));
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, dst, src, n), 0);
    for (int i = 0; i < n; i++) {
        long long want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += val(pe, i);
        CHECK_EQ(dst[i], (T)want);
    }
    CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dst, src, n), 0);
    for (int i = 0; i < n; i++)
        CHECK_EQ(dst[i], (T)val(npes - 1, i));
    CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, dst, src, n), 0);
    for (int i = 0; i < n; i++) {
        long long want = 0;
        for (int pe = 0; pe <= me; pe++)
            want += val(pe, i);
        CHECK_EQ(dst[i], (T)want);
    }
    shmem_barrier_all();
    shmem_free(src);
    shmem_free(dst);
}

static void test_signal()
{
    static long data[4];
    static uint64_t sig;
    long src[4] = { me, me + 1, me + 2, me + 3 };
    shmem_barrier_all();
    shmem_put_signal(data, src, 4, &sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_add(SHMEM_CTX_DEFAULT, &sig, 2, right);
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 3);
    for (int i = 0; i < 4; i++)
        CHECK_EQ(data[i], left + i);
    CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
    shmem_signal_set(SHMEM_CTX_DEFAULT, &sig, 0, right);
    shmem_barrier_all();
    CHECK_EQ(sig, 0);
}

int main()
{
    ring_init();

    test_rma<int>();
    test_rma<double>();
    test_rma<char>();
    test_rma<unsigned long long>();
    test_rma<int16_t>();
    test_amo<long>();
    test_amo<unsigned int>();
    test_amo<int64_t>();
    test_bitwise<uint32_t>();
    test_bitwise<unsigned long>();
    test_sync<long>();   // the deprecated C shmem_wait_until(long *, int, long) serves this
    test_sync<int>();
    test_sync<uint64_t>();
    test_coll<long>();
    test_coll<float>();
    test_coll<int32_t>();
    test_signal();

    if (me == 0)
        printf("C++ generic names: all checks passed on %d PEs\n", npes);
    shmem_finalize();
    return 0;
}
