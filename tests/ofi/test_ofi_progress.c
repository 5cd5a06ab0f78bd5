/* Progress under manual-progress providers (tcp): PE 0 waits in wait_until
 * while every other PE gets a large buffer from it and adds to its counter,
 * all of which need PE 0's endpoint to move; only then do they release it.
 * With argument "compute", PE 0 instead spins on plain loads without calling
 * Shoal: only the progress thread (on by default for manual-progress providers,
 * SHMEM_OFI_PROGRESS_THREAD=1 forces it) serves them. */
#include <stdint.h>
#include <string.h>

#include "check.h"

#define LEN (512 * 1024)

static long released, served;

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
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
