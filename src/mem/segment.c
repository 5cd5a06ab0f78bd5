/* Creating the symmetric segments and mapping the peers' copies.
 * Each PE backs its segments with memfds and publishes (pid, fd); a peer opens
 * /proc/<pid>/fd/<fd> to map the same pages. The memory is released by the kernel
 * when the last mapping goes, however the job ends, and nothing is ever named in
 * /dev/shm. PEs on other nodes are left unmapped (peer NULL): the network reaches them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/state.h"
#include "mem/segment.h"

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

int shoal_heap_create(struct shoal_local_seg *out, size_t size)
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
        uintptr_t at = (lo + SHOAL_HEAP_BASE_ALIGN - 1) & ~(uintptr_t)(SHOAL_HEAP_BASE_ALIGN - 1);
        if (at > lo)
            munmap(span, at - lo);
        uintptr_t tail = lo + size + SHOAL_HEAP_BASE_ALIGN - (at + size);
        if (tail)
            munmap((void *)(at + size), tail);
        p = mmap((void *)at, size, PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_NORESERVE | MAP_FIXED, out->fd, 0);
    }
    if (p == MAP_FAILED) {
        shoal_warn("shmem_init", "cannot map a %zu-byte symmetric heap: %s; lower "
                   "SHMEM_SYMMETRIC_SIZE", size, strerror(errno));
        close(out->fd);
        return -1;
    }
    out->base = (uintptr_t)p;
    return 0;
}

static char *map_peer(const struct seg_card *c, int s)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c->pid, (int)c->fd[s]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        shoal_fatal("shmem_init", "cannot open a peer's shared memory (%s): %s; Shoal needs "
                    "/proc of the same-node PEs (same user, /proc not mounted hidepid)",
                    path, strerror(errno));
    void *p = mmap(NULL, c->size[s], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        shoal_fatal("shmem_init", "cannot map a peer's %llu-byte segment: %s; lower "
                    "SHMEM_SYMMETRIC_SIZE", (unsigned long long)c->size[s], strerror(errno));
    return p;
}

int shoal_segments_map(struct shoal_local_seg local[])
{
    int n = shoal.n_pes;
    struct seg_card mine = { .pid = getpid() };
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        mine.fd[s] = local[s].fd;
        mine.size[s] = local[s].size;
    }
    struct seg_card *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return -1;
    if (shoal.boot->allgather(&mine, all, sizeof mine)) {
        free(all);
        return -1;
    }
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        struct shoal_seg *seg = &shoal.seg[s];
        seg->base = local[s].base;
        seg->nic_base = local[s].base;
        seg->size = local[s].size;
        seg->peer = calloc((size_t)n, sizeof *seg->peer);
        if (!seg->peer) {
            free(all);
            return -1;
        }
        for (int pe = 0; pe < n; pe++) {
            if (pe == shoal.my_pe)
                seg->peer[pe] = (char *)local[s].base;
            else if (all[pe].size[s] != local[s].size)
                shoal_fatal("shmem_init", "PE %d's %s segment is %llu bytes, this PE's is %zu; "
                            "every PE must run the same program with the same "
                            "SHMEM_SYMMETRIC_SIZE", pe, s == SHOAL_SEG_HEAP ? "heap" : "static data",
                            (unsigned long long)all[pe].size[s], local[s].size);
            else if (local[s].size && shoal_pe_local(pe))
                seg->peer[pe] = map_peer(&all[pe], s);
        }
    }
    free(all);
    /* Every peer has opened our memfds once all have passed this point. */
    if (shoal.boot->barrier())
        return -1;
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++)
        if (local[s].fd >= 0)
            close(local[s].fd);
    return 0;
}

void shoal_segments_unmap(void)
{
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        struct shoal_seg *seg = &shoal.seg[s];
        if (!seg->peer)
            continue;
        for (int pe = 0; pe < shoal.n_pes; pe++)
            if (pe != shoal.my_pe && seg->peer[pe])
                munmap(seg->peer[pe], seg->size);
        free(seg->peer);
        seg->peer = NULL;
    }
    /* The heap's own mapping goes; static data stays mapped (the program still uses it). */
    if (shoal.seg[SHOAL_SEG_HEAP].base)
        munmap((void *)shoal.seg[SHOAL_SEG_HEAP].base, shoal.seg[SHOAL_SEG_HEAP].size);
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++)
        shoal.seg[s] = (struct shoal_seg){ 0 };
}
