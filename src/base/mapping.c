/* Shared mappings placed on a boundary (base/mapping.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>

#include "base/mapping.h"

void *shoal_map_aligned(int fd, size_t size, size_t align, int flags)
{
    /* Reserve extra address space, map on the boundary inside it, give back the rest. */
    void *span = mmap(NULL, size + align, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (span == MAP_FAILED)
        return span;
    uintptr_t lo = (uintptr_t)span;
    uintptr_t at = (lo + align - 1) & ~(uintptr_t)(align - 1);
    void *p = mmap((void *)at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | flags,
                   fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        munmap(span, size + align);
        errno = e;
        return p;
    }
    if (at > lo)
        munmap(span, at - lo);
    if (lo + align > at)
        munmap((void *)(at + size), lo + align - at);
    return p;
}
