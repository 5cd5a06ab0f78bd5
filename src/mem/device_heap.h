/* The device heap segment (device_heap.c). */
#ifndef SHOAL_DEVICE_HEAP_H
#define SHOAL_DEVICE_HEAP_H

#include <stddef.h>

struct shoal_alloc;
struct shoal_team;
/* The device heap's own state (what the transports need of it is in shoal_tp,
 * transport/transport.h). */
struct shoal_dev_heap {
    struct shoal_alloc *alloc; /* its allocator */
    /* Symmetric host staging for collectives on device memory: SHOAL_DEV_STAGE_BYTES
     * per team slot, and one for active sets (coll/coll_device.c). */
    char *stage;
};
extern struct shoal_dev_heap shoal_dev_heap;
#define SHOAL_DEV_STAGE_BYTES ((size_t)64 * 1024)

/* After the host segments are mapped and before the network starts (which registers
 * the device heap where the NIC can reach it). local_index: this PE's index among the
 * PEs of its node, which picks its device. */
void shoal_device_init(int local_index);
/* Records team t's shape (a destroyed team: its slot freed) where device code finds
 * it, in this PE's device heap (shoal/device_coll.h); nothing without a device heap. */
void shoal_dev_heap_team(const struct shoal_team *t);
/* After the network has stopped. */
void shoal_device_fini(void);

#endif
