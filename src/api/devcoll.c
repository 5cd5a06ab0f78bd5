/* Host support of collectives on and from device code: the emu launcher's thread
 * indices and block barrier (what a GPU's threadIdx and __syncthreads give), and the
 * count of device data staged through host memory. */
#include <pthread.h>
#include <shmemx.h>
#include <shmemx_device.h>
#include <stdlib.h>

#include "api/api.h"
#include "api/devcoll.h"
#include "device/device.h"

struct shoal_devcoll_block {
    pthread_barrier_t bar;
    int n;
};

/* The launch this kernel thread belongs to, and its index; NULL outside a kernel. */
static __thread struct shoal_devcoll_block *lane_block;
static __thread int lane_index;

struct shoal_devcoll_block *shoal_devcoll_block_new(const char *fn, int nthreads)
{
    struct shoal_devcoll_block *b = malloc(sizeof *b);
    if (!b || pthread_barrier_init(&b->bar, NULL, (unsigned)nthreads))
        shoal_fatal(fn, "cannot make the barrier of %d kernel threads", nthreads);
    b->n = nthreads;
    return b;
}

void shoal_devcoll_block_free(struct shoal_devcoll_block *b)
{
    pthread_barrier_destroy(&b->bar);
    free(b);
}

void shoal_devcoll_lane(struct shoal_devcoll_block *b, int i)
{
    lane_block = b;
    lane_index = i;
}

static struct shoal_devcoll_block *block(const char *fn)
{
    if (!lane_block)
        shoal_fatal(fn,
                    "called outside a kernel: the block forms run in the threads "
                    "of shmemx_device_launch");
    return lane_block;
}

int shmemx_device_thread(void)
{
    block(__func__);
    return lane_index;
}
SHOAL_PROFILED(shmemx_device_thread)

int shmemx_device_nthreads(void)
{
    return block(__func__)->n;
}
SHOAL_PROFILED(shmemx_device_nthreads)

void shmemx_device_sync_threads(void)
{
    pthread_barrier_wait(&block(__func__)->bar);
}
SHOAL_PROFILED(shmemx_device_sync_threads)

void shmemx_device_host_bounces(uint64_t *ops, uint64_t *bytes)
{
    if (ops)
        *ops = __atomic_load_n(&shoal_dev_bounced.ops, __ATOMIC_RELAXED);
    if (bytes)
        *bytes = __atomic_load_n(&shoal_dev_bounced.bytes, __ATOMIC_RELAXED);
}
SHOAL_PROFILED(shmemx_device_host_bounces)
