/* Progress under manual-progress providers (tcp): PE 0 waits in wait_until
 * while every other PE gets a large buffer from it and adds to its counter,
 * all of which need PE 0's endpoint to move; only then do they release it.
 * With argument "compute", PE 0 instead spins on plain loads without calling
 * Shoal: only the progress thread (on by default for manual-progress providers,
 * SHMEM_OFI_PROGRESS_THREAD=1 forces it) serves them. With "busy_gets", PE 0
 * computes (floating-point work between plain loads of the release counter)
 * while every other PE makes many small blocking gets from it, each of a value
 * it can predict: the round trips a progress thread that shares PE 0's core
 * must be woken for, one by one. */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define LEN (512 * 1024)
#define WORDS 64
#define GETS 300

static long released, served;
static long words[WORDS];

/* What PE 0 holds in words[i]. */
static long word_value(int i)
{
    return 1000003L * (i + 1) ^ 0x5a5a;
}

/* PE 0 computes until every peer has released it; returns its result so the
 * work cannot be dropped. */
static double compute_until_released(int npes)
{
    volatile double x = 1.0;
    while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) < npes - 1)
        for (int k = 0; k < 1000; k++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

static void busy_gets(int me, int npes)
{
    if (me == 0) {
        for (int i = 0; i < WORDS; i++)
            words[i] = word_value(i);
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK(compute_until_released(npes) > 1.0);
    } else {
        for (int k = 0; k < GETS; k++) {
            int i = (k * 7 + me) % WORDS;
            CHECK_EQ(shmem_long_g(&words[i], 0), word_value(i));
        }
        shmem_long_atomic_inc(&released, 0);
    }
    shmem_barrier_all();
    if (me == 0)
        printf("test_ofi_progress (busy_gets): %d gets by each of %d PEs from a computing "
               "PE 0 OK on %d PEs\n",
               GETS, npes - 1, npes);
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "busy_gets") == 0) {
        busy_gets(me, npes);
        shmem_finalize();
        return 0;
    }
    int compute = argc > 1 && strcmp(argv[1], "compute") == 0;
    unsigned char *data = shmem_malloc(LEN);
    CHECK(data != NULL);
    memset(data, 0x5a + me, LEN);
    shmem_barrier_all();
    if (me == 0) {
        if (compute) {
            while (__atomic_load_n(&released, __ATOMIC_ACQUIRE) < npes - 1)
                ; /* no Shoal call: the progress thread serves the peers */
        } else {
            shmem_long_wait_until(&released, SHMEM_CMP_EQ, npes - 1);
        }
        CHECK_EQ(served, npes - 1);
    } else {
        unsigned char *buf = malloc(LEN);
        CHECK(buf != NULL);
        shmem_getmem(buf, data, LEN, 0);
        for (size_t i = 0; i < LEN; i++)
            CHECK_EQ(buf[i], 0x5a);
        shmem_long_atomic_inc(&served, 0);
        shmem_quiet();
        shmem_long_atomic_inc(&released, 0);
        free(buf);
    }
    shmem_barrier_all();
    shmem_free(data);
    if (me == 0)
        printf("test_ofi_progress (%s): peers served while PE 0 %s OK on %d PEs\n",
               compute ? "compute" : "wait", compute ? "computes" : "waits", npes);
    shmem_finalize();
    return 0;
}
