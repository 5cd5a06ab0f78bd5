/* The count of device data staged through host memory, for the tests that check
 * that collectives on device memory bounce nothing. */
#include <shmemx.h>

#include "api/api.h"
#include "device/device.h"

void shmemx_device_host_bounces(uint64_t *ops, uint64_t *bytes)
{
    if (ops)
        *ops = __atomic_load_n(&shoal_dev_bounced.ops, __ATOMIC_RELAXED);
    if (bytes)
        *bytes = __atomic_load_n(&shoal_dev_bounced.bytes, __ATOMIC_RELAXED);
}
SHOAL_PROFILED(shmemx_device_host_bounces)
