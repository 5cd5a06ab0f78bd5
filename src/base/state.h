/* Process-wide library state: who this PE is, the job's node layout, the symmetric
 * segments, the configuration and the transports in use. Data only: every layer may
 * read it, and this header calls nothing, so including it never reaches up. */
#ifndef SHOAL_STATE_H
#define SHOAL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "env/compiler.h"
#include "env/env.h"

struct shoal_boot_ops;
struct shoal_transport_ops;
struct shoal_path;
struct shoal_alloc;
struct shoal_team_slot;

/* The segments a symmetric address can live in. The host segments come first: the
 * device heap (SHMEM_SPACE_DEVICE, mem/device_heap.c) is never load/store memory, so
 * the shm transport does not map it; same-node peers reach it through the device
 * layer's IPC mappings (dev_peer below, transport/dev_route.c). */
enum shoal_seg_id {
    SHOAL_SEG_HEAP,
    SHOAL_SEG_DATA,
    SHOAL_NHOST_SEGS,
    SHOAL_SEG_DEVICE = SHOAL_NHOST_SEGS,
    SHOAL_NSEGS
};

/* This PE's copy of a segment (mem/ creates it); the shm transport maps the copies
 * of the PEs on this node, the network transport registers this one. */
struct shoal_seg {
    uintptr_t base;
    size_t size;
    int fd; /* memfd backing it until the same-node peers mapped it; -1 after */
};

struct shoal_state {
    int my_pe;
    int n_pes;
    int init_count; /* shmem_init calls not yet matched by shmem_finalize */
    int ever_initialized;
    int thread_level;
    /* A thread of the library's own (the stream proxy, api/stream.c) may call the
     * transports beside the program's threads, so they lock as under
     * SHMEM_THREAD_MULTIPLE: set when a device backend is asked for. */
    int threads_inside;
    /* Which operation families a wrapper of the paths took over (SHOAL_WRAP_*), set
     * once by transport start-up with path, the table the dispatchers then call
     * (transport/transport.h). One predictable branch when none; beside the segments,
     * on the cache line every RMA reads anyway. */
    int wrapped;
    const struct shoal_path *path;
    /* Device memory in play (a device heap, SHMEM_ENABLE_DEVICE_AWARENESS, or
     * SHMEM_DEBUG with a device runtime loaded; mem/device_heap.c): transport
     * start-up wraps the paths in the device-aware ones (transport/dev_route.c). */
    int dev_in_play;
    struct shoal_seg seg[SHOAL_NSEGS];
    struct shoal_config cfg;
    const struct shoal_boot_ops *boot;
    struct shoal_alloc *heap_alloc;
    struct shoal_team_slot *team_pool; /* SHOAL_TEAM_SLOTS slots, symmetric */
    unsigned char *set_box; /* symmetric, SHOAL_SET_BOX_BYTES: where strided active-set
                             * alltoalls pack blocks for the network (coll/alltoall.c) */
    /* Node layout (core/topology.c): node[pe] numbers PE pe's node. A job on more
     * than one node reaches the other nodes, and routes every AMO, through net. */
    int *node;
    int n_nodes;
    int multi_node;
    /* No other PE of this host can run on this PE's CPUs and the host was not
     * busy at start-up, or only the latter failed (topology.c); the polls a wait
     * spins before it gives the core away (backoff.c). */
    int own_core;
    int host_busy;
    /* The network moves data by itself, in a thread of its own on this PE's CPUs
     * (libfabric's sockets): a waiting PE must leave it the core (backoff.c). */
    int net_self_progress;
    unsigned spin_polls;
    const struct shoal_transport_ops *net;
    char **dev_peer;               /* dev_peer[pe]: device pointer to PE pe's device
                                            heap (IPC), NULL when on another node */
    int dev_nic_iface;             /* how the network reaches this PE's device heap, as
                                            the device layer says (device/device.h: an
                                            enum shoal_dev_iface, 0 when it cannot);
                                            mem/device_heap.c fills these three */
    int dev_nic_device;            /* the backend's device number for that interface */
    uintptr_t dev_nic_base;        /* what the network registers and names: the host
                                            alias (emu) or the device heap (cuda, rocm) */
    struct shoal_alloc *dev_alloc; /* the device heap's allocator */
    uint64_t *dev_amo_lock;        /* symmetric host word: device AMOs' lock */
    char *dev_stage;               /* symmetric host staging for collectives on
                                            device memory: SHOAL_DEV_STAGE_BYTES per team
                                            slot, and one for active sets
                                            (coll/coll_device.c) */
    const char *
            net_provider; /* what net runs over (ofi: the libfabric provider), for SHMEM_INFO */
};
/* shoal.wrapped: gets alone (SHOAL_WRAP_GET) or every operation (both bits). */
#define SHOAL_WRAP_GET 1
#define SHOAL_WRAP_OPS 2
#define SHOAL_DEV_STAGE_BYTES ((size_t)64 * 1024)
#define SHOAL_SET_BOX_BYTES ((size_t)64 * 1024)

extern struct shoal_state shoal;

/* Symmetric address -> its segment and offset, the same on every PE; -1 if not symmetric. */
static inline int shoal_seg_of(const void *addr, uint64_t *off)
{
    for (int s = 0; s < SHOAL_NSEGS; s++) {
        uintptr_t o = (uintptr_t)addr - shoal.seg[s].base;
        if (o < shoal.seg[s].size) {
            *off = o;
            return s;
        }
    }
    return -1;
}

/* What the network registers for segment s: its base, or for the device heap what
 * the device layer offers (0 when none: not registered). */
static inline uintptr_t shoal_seg_nic_base(int s)
{
    return s == SHOAL_SEG_DEVICE ? shoal.dev_nic_base : shoal.seg[s].base;
}

/* p lies in this PE's device heap. */
static inline int shoal_dev_sym(const void *p)
{
    return (uintptr_t)p - shoal.seg[SHOAL_SEG_DEVICE].base < shoal.seg[SHOAL_SEG_DEVICE].size;
}

/* Same node as this PE: reached by load/store. */
static inline int shoal_pe_local(int pe)
{
    return shoal.node[pe] == shoal.node[shoal.my_pe];
}

#endif
