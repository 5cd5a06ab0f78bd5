/* Test-only device buffers: the tests allocate and fill their own device memory
 * through the device backend Shoal selected (SHOAL_DEVICE), so the same tests run on
 * the emulated device and on a real GPU. In place of cudaMalloc/hipMalloc and
 * cudaMemcpy/hipMemcpy; usable after shmem_init. Tests using it link libshoal
 * statically, since the device layer is not exported. */
#ifndef SHOAL_TEST_DEVICE_H
#define SHOAL_TEST_DEVICE_H

#include "check.h"
#include "device/device.h"

static inline void *tdev_malloc(size_t n)
{
    CHECK(shoal_dev != NULL); /* SHOAL_DEVICE names no backend that loads */
    void *p = shoal_dev_alloc(n);
    CHECK(p != NULL);
    return p;
}

static inline void tdev_free(void *p)
{
    CHECK(shoal_dev_free(p) == 0);
}
static inline void tdev_h2d(void *d, const void *s, size_t n)
{
    CHECK(shoal_dev_h2d(d, s, n) == 0);
}
static inline void tdev_d2h(void *d, const void *s, size_t n)
{
    CHECK(shoal_dev_d2h(d, s, n) == 0);
}
static inline void tdev_d2d(void *d, const void *s, size_t n)
{
    CHECK(shoal_dev_d2d(d, s, n) == 0);
}
static inline const char *tdev_name(void)
{
    return shoal_dev ? shoal_dev->name : "none";
}

/* Ends a device test that passed: PE 0 says so, naming the backend, and Shoal ends. */
static inline void tdev_passed(const char *test)
{
    if (shmem_my_pe() == 0)
        printf("%s: passed on %s at %d PEs\n", test, tdev_name(), shmem_n_pes());
    shmem_finalize();
}

#endif
