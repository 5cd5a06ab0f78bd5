/* Shared mappings placed on a boundary: the symmetric heap on its alignment, and a
 * same-node peer's huge-page heap on its page size (which it needs to map whole). */
#ifndef SHOAL_MAPPING_H
#define SHOAL_MAPPING_H

#include <stddef.h>

/* Maps fd's first size bytes shared, read-write, at a multiple of align (a power of
 * two) with the extra mmap flags; MAP_FAILED with errno set on failure. */
void *shoal_map_aligned(int fd, size_t size, size_t align, int flags);

#endif
