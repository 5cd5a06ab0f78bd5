/* Symmetric segments: created by each PE, then mapped by its same-node peers. */
#ifndef SHOAL_SEGMENT_H
#define SHOAL_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "base/state.h"

/* The local heap starts on this boundary, which bounds what shmem_align can honour. */
#define SHOAL_HEAP_BASE_ALIGN ((size_t)1 << 30)

struct shoal_alloc;
/* The heap's allocator (shmem_malloc and the library's reserve at its start). */
extern struct shoal_alloc *shoal_heap_alloc;

/* An anonymous shared-memory file (never visible in /dev/shm) of this size. */
int shoal_memfd(const char *name, size_t size);
/* Fill *out (base, size rounded up to the page size, fd, page kind) for the shm
 * transport to share. */
int shoal_heap_create(struct shoal_seg *out, size_t size);
/* Warns that huge pages were asked for and not had: once a node (node_first: this
 * PE is its node's first), and on every PE the reserved pool ran short for. */
void shoal_heap_report(int node_first);
int shoal_static_setup(struct shoal_seg *out);
/* Unmaps the heap at the last finalize and forgets both segments. */
void shoal_heap_destroy(void);

#endif
