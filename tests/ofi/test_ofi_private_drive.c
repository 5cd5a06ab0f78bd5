/* Other threads drive a context its owner has left with operations in flight. In a
 * SHMEM_THREAD_MULTIPLE PE a second thread creates a context of its own (private, or
 * with argument "serialized" serialized), issues on it to the next PE a 1 MiB put,
 * a 64 KiB get, an add and a fetch-add, all but the add nonblocking, and then stays
 * away from Shoal (short bursts of
 * arithmetic between naps, leaving the cores to the other PEs) until the main
 * thread has seen everything land: the put and add from the previous PE, the get
 * and fetch-add of its own thread. With a provider whose progress is manual
 * (tcp;ofi_rxm) the get's data and the fetch-add's answer, at least, need the
 * issuing context's endpoint driven, which its owner never does meanwhile. The main thread waits:
 * by default (and "serialized") in shmem_wait_until and shmem_test; with "quiet"
 * in puts and shmem_ctx_quiet on a private context of its own, reading the data
 * with plain loads; with "compute" it reads them with plain loads only, calling
 * nothing, so that only the progress thread can drive. Run without the progress
 * thread (SHMEM_OFI_PROGRESS_THREAD=0) but for "compute", so that the waits named
 * are what drives. Every wait is bounded: a stall fails the job with a message. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define PUT_BYTES ((size_t)1 << 20)
#define GET_BYTES ((size_t)64 << 10)
#define CAP_S 60.0 /* only a failing run waits this long */

enum mode { WAIT, SERIALIZED, QUIET, COMPUTE };
static enum mode mode;
static int me, npes, next, prev;

static long *in;                      /* symmetric: the previous PE's put */
static long *served;                  /* symmetric: what the next PE's get reads here */
static long added;                    /* symmetric: the previous PE's add */
static long counter;                  /* symmetric: the previous PE's fetch-add */
static long poke;                     /* symmetric: the "quiet" waiter's puts */
static long *got;                     /* the owner's get from the next PE */
static long fetched;                  /* the owner's fetch-add result */
static long *out;                     /* the owner's put source */
static int created, go, issued, stop; /* between the two threads, atomically */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static long put_word(int from, size_t i)
{
    return ((long)from << 40) + (long)i;
}

static long get_word(int at, size_t i)
{
    return ((long)at << 40) + 0x5a5a0000L + (long)i;
}

static void flag_set(int *f)
{
    __atomic_store_n(f, 1, __ATOMIC_RELEASE);
}

static int flag(int *f)
{
    return __atomic_load_n(f, __ATOMIC_ACQUIRE);
}

static void nap_us(long us)
{
    struct timespec t = { 0, us * 1000 };
    nanosleep(&t, NULL);
}

/* Everything the main thread waits for has landed (acquire loads: the provider or
 * a driving thread wrote them). Peeking at the get and fetch-add results before the
 * owner's quiet is the point, and a data race by the book: with "compute" the
 * progress thread copies the fetch-add's result out, so TSan reports it (these tests
 * are not in CI's TSan set). */
static int all_landed(void)
{
    size_t n = PUT_BYTES / sizeof(long), g = GET_BYTES / sizeof(long);
    return __atomic_load_n(&in[n - 1], __ATOMIC_ACQUIRE) == put_word(prev, n - 1) &&
            __atomic_load_n(&in[0], __ATOMIC_ACQUIRE) == put_word(prev, 0) &&
            __atomic_load_n(&added, __ATOMIC_ACQUIRE) == prev + 1 &&
            __atomic_load_n(&got[g - 1], __ATOMIC_ACQUIRE) == get_word(next, g - 1) &&
            __atomic_load_n(&got[0], __ATOMIC_ACQUIRE) == get_word(next, 0) &&
            __atomic_load_n(&fetched, __ATOMIC_ACQUIRE) == 0;
}

static void *owner(void *arg)
{
    (void)arg;
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(mode == SERIALIZED ? SHMEM_CTX_SERIALIZED : SHMEM_CTX_PRIVATE,
                              &ctx),
             0);
    flag_set(&created);
    while (!flag(&go))
        nap_us(50);
    shmem_ctx_putmem_nbi(ctx, in, out, PUT_BYTES, next);
    shmem_ctx_getmem_nbi(ctx, got, served, GET_BYTES, next);
    shmem_ctx_long_atomic_add(ctx, &added, me + 1, next);
    shmem_ctx_long_atomic_fetch_add_nbi(ctx, &fetched, &counter, 7, next);
    flag_set(&issued);
    /* Away from Shoal until the main thread has seen it all. */
    double t0 = now();
    volatile double x = 1.0; /* work the compiler keeps */
    while (!flag(&stop)) {
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
        nap_us(200);
        if (now() - t0 > CAP_S) {
            fprintf(stderr, "FAIL PE %d: the owner's operations did not land in %.0f s\n", me,
                    CAP_S);
            shmem_global_exit(1);
        }
    }
    shmem_ctx_quiet(ctx);
    shmem_ctx_destroy(ctx);
    return NULL;
}

/* The main thread's wait, by mode. */
static void wait_landed(void)
{
    size_t n = PUT_BYTES / sizeof(long);
    shmem_ctx_t mine = SHMEM_CTX_INVALID;
    if (mode == QUIET)
        CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &mine), 0);
    double t0 = now();
    long i = 0;
    if (mode == WAIT || mode == SERIALIZED) {
        shmem_long_wait_until(&in[n - 1], SHMEM_CMP_EQ, put_word(prev, n - 1));
        shmem_long_wait_until(&added, SHMEM_CMP_EQ, prev + 1);
    }
    while (!all_landed()) {
        if (mode == QUIET) {
            shmem_ctx_long_p(mine, &poke, ++i, next);
            shmem_ctx_quiet(mine);
        } else if (mode == COMPUTE) {
            nap_us(100);
        } else {
            shmem_long_test(&added, SHMEM_CMP_EQ, prev + 1);
        }
        if (now() - t0 > CAP_S) {
            fprintf(stderr,
                    "FAIL PE %d: not everything landed in %.0f s (put end %d, add %d, "
                    "get %d, fetch-add %d)\n",
                    me, CAP_S, in[n - 1] == put_word(prev, n - 1), added == prev + 1,
                    got[GET_BYTES / sizeof(long) - 1] ==
                            get_word(next, GET_BYTES / sizeof(long) - 1),
                    fetched == 0);
            shmem_global_exit(1);
        }
    }
    if (mine != SHMEM_CTX_INVALID)
        shmem_ctx_destroy(mine);
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "";
    mode = !strcmp(arg, "serialized") ? SERIALIZED
            : !strcmp(arg, "quiet")   ? QUIET
            : !strcmp(arg, "compute") ? COMPUTE
                                      : WAIT;
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    next = (me + 1) % npes;
    prev = (me + npes - 1) % npes;
    size_t n = PUT_BYTES / sizeof(long), g = GET_BYTES / sizeof(long);
    in = shmem_calloc(n, sizeof(long));
    served = shmem_malloc(GET_BYTES);
    out = malloc(PUT_BYTES);
    got = malloc(GET_BYTES);
    CHECK(in && served && out && got);
    for (size_t i = 0; i < n; i++)
        out[i] = put_word(me, i);
    for (size_t i = 0; i < g; i++) {
        served[i] = get_word(me, i);
        got[i] = -1;
    }
    fetched = -1;

    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, owner, NULL), 0);
    while (!flag(&created))
        nap_us(50);
    shmem_barrier_all(); /* every PE's memory is ready */
    flag_set(&go);
    while (!flag(&issued))
        nap_us(50);
    wait_landed();
    for (size_t i = 0; i < n; i++)
        if (in[i] != put_word(prev, i)) {
            fprintf(stderr, "FAIL PE %d: word %zu from PE %d: %ld, not %ld\n", me, i, prev,
                    in[i], put_word(prev, i));
            shmem_global_exit(1);
        }
    for (size_t i = 0; i < g; i++)
        CHECK_EQ(got[i], get_word(next, i));
    flag_set(&stop);
    CHECK_EQ(pthread_join(t, NULL), 0);
    shmem_barrier_all(); /* every fetch-add has landed: counter is final */
    CHECK_EQ(counter, 7);
    CHECK_EQ(fetched, 0);
    CHECK_EQ(added, prev + 1);
    shmem_free(in);
    shmem_free(served);
    free(out);
    free(got);
    if (me == 0)
        printf("test_ofi_private_drive (%s): a %s context's put, get and AMOs landed while "
               "its owner stayed away from Shoal, on %d PEs, OK\n",
               arg[0] ? arg : "wait", mode == SERIALIZED ? "serialized" : "private", npes);
    shmem_finalize();
    return 0;
}
