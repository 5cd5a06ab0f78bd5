/* Process-wide library state: who this PE is, the job's node layout, the symmetric
 * segments, the configuration and the paths in use. Data only: every layer may
 * read it, and this header calls nothing, so including it never reaches up. */
#ifndef SHOAL_STATE_H
#define SHOAL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "env/compiler.h"
#include "env/env.h"

struct shoal_boot_ops;
struct shoal_path;

/* The segments a symmetric address can live in. The host segments come first: the
 * device heap (SHMEM_SPACE_DEVICE, mem/device_heap.c) is never load/store memory, so
 * the shm transport does not map it; same-node peers reach it through the device
 * layer's IPC mappings (shoal_tp.dev_peer, transport/dev_route.c). */
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
    /* Huge pages (mem/segment.c): the page size its mappings must align to (0: the
     * system's), and whether they are transparent ones each mapping must ask for. */
    size_t page;
    int thp;
};

/* What every layer reads: who this PE is, its threads, the paths in use, the
 * segments, the configuration, the bootstrap and the node layout. The state each
 * layer keeps for itself is its own: the waiting policy (base/backoff.h), the network
 * transport and the device heap as the transports reach it (transport/transport.h:
 * shoal_tp), the heaps' allocators and staging (mem/segment.h, mem/device_heap.h),
 * the team pool (core/team.h) and the set box (coll/coll.h). */
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
    /* Node layout (core/topology.c): node[pe] numbers PE pe's node. A job on more
     * than one node reaches the other nodes, and routes every AMO, through the
     * network transport. */
    int *node;
    int n_nodes;
    int multi_node;
};
/* shoal.wrapped: gets alone (SHOAL_WRAP_GET) or every operation (both bits). */
#define SHOAL_WRAP_GET 1
#define SHOAL_WRAP_OPS 2

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
