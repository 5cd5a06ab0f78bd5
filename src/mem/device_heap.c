/* The device heap (SHMEM_SPACE_DEVICE): SHMEM_SYMMETRIC_SIZE_DEVICE bytes of device
 * memory per PE, one segment like the host heap. Each PE allocates its own through the
 * device layer and publishes an IPC handle; same-node peers open it, so seg.peer[pe]
 * is a device pointer to PE pe's heap, used by device copies, never by loads/stores.
 * PEs on other nodes reach it through the network, which registers what the device
 * layer offers (shoal_tp.dev_nic_*): a host alias (emu), or the device memory itself
 * through the network's device-memory registration (cuda, rocm: libfabric FI_HMEM). */
#include <stdio.h>
#include <stdlib.h>

#include "bootstrap/bootstrap.h"
#include "base/error.h"
#include "base/state.h"
#include "env/log.h"
#include "core/team.h"
#include "device/device.h"
#include "mem/alloc.h"
#include "mem/device_heap.h"
#include "mem/segment.h"
#include "transport/transport.h"

#include <shmemx_device.h>

struct shoal_dev_heap shoal_dev_heap;

struct dev_card {
    struct shoal_dev_ipc ipc;
    uint64_t size;
};

static void heap_create(const struct shoal_config *c, size_t size)
{
    struct shoal_seg *seg = &shoal.seg[SHOAL_SEG_DEVICE];
    void *base = shoal_dev_alloc(size);
    if (!base)
        shoal_fatal("shmem_init",
                    "the %s device has no room for a %zu-byte device heap; "
                    "lower SHMEM_SYMMETRIC_SIZE_DEVICE",
                    shoal_dev->name, size);
    struct dev_card mine = { .size = size };
    if (shoal_dev_ipc_get(base, &mine.ipc))
        shoal_fatal("shmem_init", "the %s backend gives no IPC handle for the device heap",
                    shoal_dev->name);
    shoal_tp.dev_peer = calloc((size_t)shoal.n_pes, sizeof *shoal_tp.dev_peer);
    if (!shoal_tp.dev_peer)
        shoal_fatal("shmem_init", "out of memory for the device heaps of %d PEs",
                    shoal.n_pes);
    struct shoal_boot_table t;
    if (shoal_boot_gather(shoal.boot, "device heap handles", &mine, sizeof mine, &t))
        shoal_fatal("shmem_init", "cannot exchange device heaps with the other PEs");
    const struct dev_card *all = t.data;
    for (int pe = 0; pe < shoal.n_pes; pe++) {
        if (all[pe].size != size)
            shoal_fatal("shmem_init",
                        "PE %d's device heap is %llu bytes, this PE's is %zu; "
                        "every PE must run with the same SHMEM_SYMMETRIC_SIZE_DEVICE",
                        pe, (unsigned long long)all[pe].size, size);
        if (pe == shoal.my_pe)
            shoal_tp.dev_peer[pe] = base;
        else if (shoal_pe_local(pe) &&
                 !(shoal_tp.dev_peer[pe] = shoal_dev_ipc_open(&all[pe].ipc)))
            shoal_fatal("shmem_init",
                        "cannot open PE %d's device heap through %s IPC; the "
                        "PEs of a node must share its devices",
                        pe, shoal_dev->name);
        else if (shoal_tp.dev_peer[pe])
            SHOAL_LOG(DEVICE, DEBUG, "PE %d's device heap opened through %s IPC at %p", pe,
                      shoal_dev->name, shoal_tp.dev_peer[pe]);
    }
    shoal_boot_table_release(&t);
    seg->base = (uintptr_t)base;
    seg->size = size;
    seg->fd = -1;
    /* How the network may reach it; whether the job's network transport can is
     * checked when that transport is chosen (transport/transport.c). */
    struct shoal_dev_nic nic;
    shoal_dev_nic(base, &nic);
    if (c->device_force_hmem && nic.iface == SHOAL_DEV_IFACE_ALIAS)
        nic.iface = SHOAL_DEV_IFACE_SYSTEM;
    shoal_tp.dev_nic_iface = nic.iface;
    shoal_tp.dev_nic_device = nic.device;
    shoal_tp.dev_nic_base = nic.iface ? (uintptr_t)nic.addr : 0;
    SHOAL_LOG(DEVICE, INFO, "device heap %zu bytes at %p; the network reaches it as %s", size,
              base, shoal_dev_iface_name(nic.iface));
    shoal_dev_heap.alloc = shoal_alloc_create(size);
    /* The state of collectives from device code (shoal/device_coll.h), at offset 0,
     * zeroed, with the world and node teams' shapes. */
    size_t area = shoal_dev_heap.alloc
            ? shoal_alloc_get(shoal_dev_heap.alloc, SHMEMX_DEV_COLL_BYTES, 4096)
            : SHOAL_ALLOC_FAIL;
    if (area != 0)
        shoal_fatal("shmem_init",
                    "the device heap of %zu bytes has no room for the %zu bytes that "
                    "collectives from device code keep in it; raise "
                    "SHMEM_SYMMETRIC_SIZE_DEVICE",
                    size, (size_t)SHMEMX_DEV_COLL_BYTES);
    char *zero = calloc(1, SHMEMX_DEV_COLL_BYTES);
    if (!zero || shoal_dev_h2d(base, zero, SHMEMX_DEV_COLL_BYTES))
        shoal_fatal("shmem_init", "cannot clear the device heap's collective state");
    free(zero);
    shoal_dev_heap_team(&shoal_team_world);
    shoal_dev_heap_team(&shoal_team_shared);
    /* In the host heap, at the same offset on every PE, before any user allocation:
     * the lock of the device AMO fallback (transport/dev_route.c) and the staging of
     * collectives on device memory (coll/coll_device.c), one part per team slot and
     * one for the active sets. */
    size_t stage = (SHOAL_TEAM_SLOTS + 1) * SHOAL_DEV_STAGE_BYTES;
    size_t off = shoal_dev_heap.alloc ? shoal_alloc_get(shoal_heap_alloc, 64 + stage, 64)
                                      : SHOAL_ALLOC_FAIL;
    if (off == SHOAL_ALLOC_FAIL)
        shoal_fatal("shmem_init",
                    "no room in the symmetric heap for the device heap's %zu "
                    "bytes of staging; raise SHMEM_SYMMETRIC_SIZE",
                    stage + 64);
    shoal_tp.dev_amo_lock = (uint64_t *)(shoal.seg[SHOAL_SEG_HEAP].base + off);
    shoal_dev_heap.stage = (char *)shoal_tp.dev_amo_lock + 64;
}

void shoal_dev_heap_team(const struct shoal_team *t)
{
    if (!shoal.seg[SHOAL_SEG_DEVICE].size)
        return;
    struct shmemx_dev_team_desc d = { .handle = t->destroyed ? 0 : (uint64_t)(uintptr_t)t,
                                      .start = t->start,
                                      .stride = t->stride,
                                      .size = t->size,
                                      .me = t->my_pe };
    struct shmemx_dev_coll_sync y = { 0 };
    struct shmemx_dev_coll_area *a = (void *)shoal.seg[SHOAL_SEG_DEVICE].base;
    if (shoal_dev_h2d(&a->team[t->slot], &d, sizeof d) ||
        shoal_dev_h2d(&a->sync[t->slot], &y, sizeof y))
        shoal_fatal("shoal", "the %s device failed to record a team for device code",
                    shoal_dev->name);
}

void shoal_device_init(int local_index)
{
    const struct shoal_config *c = &shoal.cfg;
    size_t size = c->symmetric_size_device;
    int asked = size || c->enable_device_awareness;
    if (!asked && !c->debug && !c->device[0])
        return;
    char err[512] = "";
    /* SHMEM_DEBUG alone looks for device buffers only with a runtime the program loaded. */
    if (shoal_dev_select(c->device, local_index, !asked && !c->device[0], err, sizeof err))
        shoal_fatal("shmem_init", "device backend: %s", err);
    const char *what = size ? "SHMEM_SYMMETRIC_SIZE_DEVICE" : "SHMEM_ENABLE_DEVICE_AWARENESS";
    if (!shoal_dev && asked && c->device[0])
        shoal_fatal("shmem_init", "%s is set, but SHOAL_DEVICE=none", what);
    if (!shoal_dev && asked)
        shoal_fatal("shmem_init",
                    "%s is set, but no GPU backend started (%s); fix the GPU setup, set "
                    "SHOAL_DEVICE=emu for the emulated device (tests, machines without a "
                    "GPU), or unset %s",
                    what, err[0] ? err : "no CUDA or ROCm runtime found", what);
    if (shoal_dev && (asked || c->debug))
        shoal.dev_in_play = 1;
    SHOAL_LOG(DEVICE, INFO, "backend %s; device-aware routing %s (%s)",
              shoal_dev ? shoal_dev->name : "none", shoal.dev_in_play ? "on" : "off",
              size                                 ? "SHMEM_SYMMETRIC_SIZE_DEVICE"
                      : c->enable_device_awareness ? "SHMEM_ENABLE_DEVICE_AWARENESS"
                      : c->debug                   ? "SHMEM_DEBUG"
                                                   : "SHOAL_DEVICE");
    shoal.threads_inside = shoal_dev && asked;
    if (size)
        heap_create(c, size);
}

void shoal_device_fini(void)
{
    struct shoal_seg *seg = &shoal.seg[SHOAL_SEG_DEVICE];
    if (shoal_tp.dev_peer) {
        for (int pe = 0; pe < shoal.n_pes; pe++)
            if (pe != shoal.my_pe && shoal_tp.dev_peer[pe])
                shoal_dev_ipc_close(shoal_tp.dev_peer[pe]);
        /* Freeing memory that a peer still has open is undefined on every GPU: each
         * PE frees its heap only once every peer has closed its mapping. */
        if (shoal_boot_barrier(shoal.boot, "device heap"))
            shoal_fatal("shmem_finalize",
                        "cannot synchronise with the other PEs before freeing the device "
                        "heap");
        if (shoal_dev_free((void *)seg->base))
            shoal_fatal("shmem_finalize", "the %s device could not free the device heap",
                        shoal_dev->name);
        free(shoal_tp.dev_peer);
        shoal_tp.dev_peer = NULL;
    }
    *seg = (struct shoal_seg){ .fd = -1 };
    shoal_tp.dev_nic_iface = SHOAL_DEV_IFACE_NONE;
    shoal_tp.dev_nic_device = 0;
    shoal_tp.dev_nic_base = 0;
    shoal_alloc_destroy(shoal_dev_heap.alloc);
    shoal_dev_heap.alloc = NULL;
    shoal_tp.dev_amo_lock = NULL;
    shoal_dev_heap.stage = NULL;
    shoal.dev_in_play = 0;
    shoal.threads_inside = 0;
    shoal_dev_shutdown();
}
