/* Symmetric segments: created by each PE, then mapped by its same-node peers. */
#ifndef SHOAL_SEGMENT_H
#define SHOAL_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

/* The local heap starts on this boundary, which bounds what shmem_align can honour. */
#define SHOAL_HEAP_BASE_ALIGN ((size_t)1 << 30)

struct shoal_local_seg {
    uintptr_t base;
    size_t size;
    int fd;          /* memfd backing it until peers have mapped it; -1 if none */
};

/* An anonymous shared-memory file (never visible in /dev/shm) of this size. */
int shoal_memfd(const char *name, size_t size);
int shoal_heap_create(struct shoal_local_seg *out, size_t size);
int shoal_static_setup(struct shoal_local_seg *out);
/* Exchanges the local segments with every PE and maps theirs; fills shoal.seg. */
int shoal_segments_map(struct shoal_local_seg local[]);
void shoal_segments_unmap(void);

#endif
