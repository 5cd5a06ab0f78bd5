/* Process-wide library state: who this PE is, the job's node layout, the symmetric
 * segments, the configuration and the transports in use. Data only: every layer may
 * read it, and this header calls nothing, so including it never reaches up. */
#ifndef SHOAL_STATE_H
#define SHOAL_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "core/compiler.h"
#include "core/env.h"

struct shoal_boot_ops;
struct shoal_transport_ops;
struct shoal_alloc;
struct shoal_team_slot;

/* The segments a symmetric address can live in. */
enum shoal_seg_id { SHOAL_SEG_HEAP, SHOAL_SEG_DATA, SHOAL_NSEGS };

/* This PE's copy of a segment (mem/ creates it); the shm transport maps the copies
 * of the PEs on this node, the network transport registers this one. */
struct shoal_seg {
    uintptr_t base;
    size_t size;
    int fd;           /* memfd backing it until the same-node peers mapped it; -1 after */
};

struct shoal_state {
    int my_pe;
    int n_pes;
    int init_count;            /* shmem_init calls not yet matched by shmem_finalize */
    int ever_initialized;
    int thread_level;
    struct shoal_seg seg[SHOAL_NSEGS];
    struct shoal_config cfg;
    const struct shoal_boot_ops *boot;
    struct shoal_alloc *heap_alloc;
    struct shoal_team_slot *team_pool;   /* SHOAL_TEAM_SLOTS slots, symmetric */
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
    unsigned spin_polls;
    const struct shoal_transport_ops *net;
    const char *net_provider;  /* what net runs over (ofi: the libfabric provider), for SHMEM_INFO */
};

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

/* Same node as this PE: reached by load/store. */
static inline int shoal_pe_local(int pe)
{
    return shoal.node[pe] == shoal.node[shoal.my_pe];
}

#endif
