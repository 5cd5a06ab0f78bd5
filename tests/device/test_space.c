/* Memory spaces: shmem_space_malloc/alloc/align/realloc/free on both spaces, shmem_free
 * and shmem_realloc on device pointers, zero sizes, exhaustion, the awareness query,
 * and shmem_ptr to device-space objects of same-node peers. */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_device.h"

#define N 4096

/* Reads n ints of a device object (own or a peer's IPC pointer) into host memory. */
static void read_dev(int *dst, const void *src, size_t n)
{
    tdev_d2h(dst, src, n * sizeof(int));
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();
    CHECK(shmem_query_device_awareness() == 1); /* the test environment turns it on */

    /* Zeroed allocation in the device space; the host copy sees zeros. */
    int *z = shmem_space_alloc(SHMEM_SPACE_DEVICE, N, sizeof(int));
    CHECK(z != NULL);
    CHECK(((uintptr_t)z & 15) == 0);
    int *h = malloc(N * sizeof(int));
    memset(h, 0xff, N * sizeof(int));
    read_dev(h, z, N);
    for (int i = 0; i < N; i++)
        CHECK_EQ(h[i], 0);

    /* Device and default spaces give distinct, symmetric objects. */
    int *d = shmem_space_malloc(SHMEM_SPACE_DEVICE, N * sizeof(int));
    int *hd = shmem_space_malloc(SHMEM_SPACE_DEFAULT, N * sizeof(int));
    CHECK(d && hd && (void *)d != (void *)hd);
    CHECK(shmem_addr_accessible(d, (me + 1) % np));
    for (int i = 0; i < N; i++)
        h[i] = me * 100000 + i;
    tdev_h2d(d, h, N * sizeof(int));
    shmem_barrier_all();

    /* shmem_ptr: itself for this PE; a device pointer to the peer's copy on this node
     * (readable through device copies), NULL for a peer on another node. */
    CHECK(shmem_ptr(d, me) == d);
    for (int pe = 0; pe < np; pe++) {
        int *p = shmem_ptr(d, pe);
        int local = shmem_ptr(hd, pe) != NULL; /* host heap mapped: same node */
        if (!local) {
            CHECK(p == NULL);
            continue;
        }
        CHECK(p != NULL);
        read_dev(h, p, N);
        for (int i = 0; i < N; i += 97)
            CHECK_EQ(h[i], pe * 100000 + i);
    }

    /* Alignment in the device space. */
    void *a = shmem_space_align(SHMEM_SPACE_DEVICE, 4096, 100);
    CHECK(a != NULL && ((uintptr_t)a & 4095) == 0);
    CHECK(shmem_space_align(SHMEM_SPACE_DEVICE, 24, 100) == NULL); /* not a power of two */

    /* Zero sizes are NULL without error; exhaustion is NULL with a message. */
    CHECK(shmem_space_malloc(SHMEM_SPACE_DEVICE, 0) == NULL);
    CHECK(shmem_space_alloc(SHMEM_SPACE_DEVICE, 0, 4) == NULL);
    CHECK(shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)1 << 40) == NULL);

    /* realloc in the device space keeps the contents, growing past a neighbour. */
    int *r = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64 * sizeof(int));
    int *blocker = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64);
    for (int i = 0; i < 64; i++)
        h[i] = 7 * i + me;
    tdev_h2d(r, h, 64 * sizeof(int));
    int *r2 = shmem_space_realloc(SHMEM_SPACE_DEVICE, r, N * sizeof(int));
    CHECK(r2 != NULL && r2 != r);
    read_dev(h, r2, 64);
    for (int i = 0; i < 64; i++)
        CHECK_EQ(h[i], 7 * i + me);
    /* shmem_realloc on a device pointer stays in the device space. */
    int *r3 = shmem_realloc(r2, 32 * sizeof(int));
    CHECK(r3 != NULL);
    read_dev(h, r3, 32);
    for (int i = 0; i < 32; i++)
        CHECK_EQ(h[i], 7 * i + me);
    CHECK(shmem_space_realloc(SHMEM_SPACE_DEVICE, NULL, 0) == NULL);

    /* The default space is the ordinary heap. */
    int *hr = shmem_space_realloc(SHMEM_SPACE_DEFAULT, hd, 2 * N * sizeof(int));
    CHECK(hr != NULL);

    /* Frees: the space's own routine, and shmem_free on a device pointer (Figure 8). */
    shmem_space_free(SHMEM_SPACE_DEVICE, blocker);
    shmem_space_free(SHMEM_SPACE_DEVICE, a);
    shmem_free(r3);
    shmem_free(z);
    shmem_space_free(SHMEM_SPACE_DEVICE, d);
    shmem_space_free(SHMEM_SPACE_DEFAULT, hr);

    /* After every free the whole device heap is one block again. */
    void *all = shmem_space_malloc(SHMEM_SPACE_DEVICE, (size_t)60 << 20);
    CHECK(all != NULL);
    shmem_free(all);

    free(h);
    tdev_passed("device.space");
    return 0;
}
