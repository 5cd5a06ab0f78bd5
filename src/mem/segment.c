/* Creating the symmetric heap. Each PE backs its segments with memfds, which the shm
 * transport (transport/shm/shm.c) hands to the same-node peers to map; nothing is
 * ever named in /dev/shm. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "base/state.h"
#include "mem/segment.h"

struct shoal_alloc *shoal_heap_alloc;

struct seg_card {
    int32_t pid;
    int32_t fd[SHOAL_NHOST_SEGS];
    uint64_t size[SHOAL_NHOST_SEGS];
};

int shoal_memfd(const char *name, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        shoal_warn("shmem_init", "memfd_create failed: %s", strerror(errno));
        return -1;
    }
    if (size && ftruncate(fd, (off_t)size) != 0) {
        shoal_warn("shmem_init", "cannot size shared memory to %zu bytes: %s", size,
                   strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

int shoal_heap_create(struct shoal_seg *out, size_t size)
{
    out->size = size;
    out->fd = shoal_memfd("shoal-heap", size);
    if (out->fd < 0)
        return -1;
    /* shmem_align works on heap offsets, so the base must be aligned at least as
     * strictly as any alignment a program asks for: reserve extra address space,
     * then place the heap on a SHOAL_HEAP_BASE_ALIGN boundary inside it. */
    void *p = MAP_FAILED;
    void *span = mmap(NULL, size + SHOAL_HEAP_BASE_ALIGN, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (span != MAP_FAILED) {
        uintptr_t lo = (uintptr_t)span;
        uintptr_t at =
                (lo + SHOAL_HEAP_BASE_ALIGN - 1) & ~(uintptr_t)(SHOAL_HEAP_BASE_ALIGN - 1);
        if (at > lo)
            munmap(span, at - lo);
        uintptr_t tail = lo + size + SHOAL_HEAP_BASE_ALIGN - (at + size);
        if (tail)
            munmap((void *)(at + size), tail);
        p = mmap((void *)at, size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED, out->fd, 0);
    }
    if (p == MAP_FAILED) {
        shoal_warn("shmem_init",
                   "cannot map a %zu-byte symmetric heap: %s; lower "
                   "SHMEM_SYMMETRIC_SIZE",
                   size, strerror(errno));
        close(out->fd);
        return -1;
    }
    out->base = (uintptr_t)p;
    return 0;
}

void shoal_heap_destroy(void)
{
    /* The heap's own mapping goes; static data stays mapped (the program still uses it). */
    if (shoal.seg[SHOAL_SEG_HEAP].base)
        munmap((void *)shoal.seg[SHOAL_SEG_HEAP].base, shoal.seg[SHOAL_SEG_HEAP].size);
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++)
        shoal.seg[s] = (struct shoal_seg){ .fd = -1 };
}
