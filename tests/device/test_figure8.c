/* The paper's Figure 8 program (GPU-aware OpenSHMEM, section 4.5), with the test helper
 * in place of hipMalloc/hipMemcpy/hipFree, and checks of what each put delivered. */
#include <shmem.h>
#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_device.h"

#define SIZE 1024
#define ES sizeof(int)

/* PE 1's ddst must hold want[] after each put; it reads it through a device copy. */
static void check_ddst(int *ddst, int want)
{
    shmem_barrier_all();
    if (shmem_my_pe() == 1) {
        int got[SIZE];
        tdev_d2h(got, ddst, SIZE * ES);
        for (int i = 0; i < SIZE; i++)
            CHECK_EQ(got[i], want);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    int np = shmem_n_pes();
    CHECK(np >= 2);

    int *ddst = shmem_space_malloc(SHMEM_SPACE_DEVICE, SIZE * ES);
    int *hdst = shmem_space_malloc(SHMEM_SPACE_DEFAULT, SIZE * ES);

    int *hsrc = malloc(SIZE * ES);
    int *dsrc = tdev_malloc(SIZE * ES); /* hipMalloc */

    for (int i = 0; i < SIZE; i++) {
        hdst[i] = np;
        hsrc[i] = me;
    }

    tdev_h2d(ddst, hdst, SIZE * ES); /* hipMemcpy(..., hipMemcpyHostToDevice) */
    tdev_h2d(dsrc, hsrc, SIZE * ES);

    /* The figure's four puts, each checked on its own: PE 0's objects first take
     * distinct values so every put's effect is visible. */
    int *mark = malloc(SIZE * ES);
    for (int k = 0; k < 4; k++) {
        if (me == 0) {
            for (int i = 0; i < SIZE; i++)
                mark[i] = 100 + 10 * k;
            tdev_h2d(ddst, mark, SIZE * ES);
            for (int i = 0; i < SIZE; i++)
                mark[i] = 101 + 10 * k;
            tdev_h2d(dsrc, mark, SIZE * ES);
            for (int i = 0; i < SIZE; i++)
                hdst[i] = 102 + 10 * k, hsrc[i] = 103 + 10 * k;
        }
        shmem_barrier_all();
        if (me == 0) {
            if (k == 0)
                shmem_int_put(ddst, ddst, SIZE, 1); /* device-to-device transfer */
            if (k == 1)
                shmem_int_put(ddst, dsrc, SIZE,
                              1); /* local device to remote device transfer */
            if (k == 2)
                shmem_int_put(ddst, hdst, SIZE, 1); /* host-to-device transfer */
            if (k == 3)
                shmem_int_put(ddst, hsrc, SIZE, 1); /* local host to remote device transfer */
        }
        check_ddst(ddst, 100 + 10 * k + k);
    }

    shmem_barrier_all();

    shmem_free(ddst);
    shmem_free(hdst);
    free(hsrc);
    free(mark);
    tdev_free(dsrc); /* hipFree */

    tdev_passed("figure8");
    return 0;
}
