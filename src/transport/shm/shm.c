/* The same-node transport: mapping the peers' segments, and its operations table.
 * Each PE backs its segments with memfds (mem/segment.c) and publishes (pid, fd); a
 * peer opens /proc/<pid>/fd/<fd> to map the same pages. The memory is released by
 * the kernel when the last mapping goes, however the job ends, and nothing is ever
 * named in /dev/shm. PEs on other nodes are left unmapped (NULL): the network
 * reaches them.
 *
 * The operations themselves are shm.h's inline ones, which the paths (transport.h)
 * call on a mapped object; the table only starts and stops the mapping. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "base/mapping.h"
#include "env/log.h"
#include "transport/transport.h"

char **shoal_shm_peer[SHOAL_NHOST_SEGS];

struct seg_card {
    int32_t pid;
    int32_t fd[SHOAL_NHOST_SEGS];
    uint64_t size[SHOAL_NHOST_SEGS];
    uint64_t page[SHOAL_NHOST_SEGS];
    int32_t thp[SHOAL_NHOST_SEGS];
};

static char *map_peer(const struct seg_card *c, int s)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)c->pid, (int)c->fd[s]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        shoal_fatal("shmem_init",
                    "cannot open a peer's shared memory (%s): %s; Shoal needs "
                    "/proc of the same-node PEs (same user, /proc not mounted hidepid)",
                    path, strerror(errno));
    /* Huge pages map whole only on their boundary; transparent ones only where each
     * mapping asks for them (shmem_enabled=advise), so the peer's too. */
    void *p = c->page[s] ? shoal_map_aligned(fd, c->size[s], c->page[s], MAP_NORESERVE)
                         : mmap(NULL, c->size[s], PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p != MAP_FAILED && c->thp[s] && madvise(p, c->size[s], MADV_HUGEPAGE))
        SHOAL_LOG(SHM, INFO, "madvise(MADV_HUGEPAGE) on a peer's segment: %s",
                  strerror(errno));
    if (p == MAP_FAILED)
        shoal_fatal("shmem_init",
                    "cannot map a peer's %llu-byte segment: %s; lower "
                    "SHMEM_SYMMETRIC_SIZE",
                    (unsigned long long)c->size[s], strerror(errno));
    return p;
}

int shoal_shm_map(void)
{
    int n = shoal.n_pes;
    struct seg_card mine = { .pid = getpid() };
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        mine.fd[s] = shoal.seg[s].fd;
        mine.size[s] = shoal.seg[s].size;
        mine.page[s] = shoal.seg[s].page;
        mine.thp[s] = shoal.seg[s].thp;
    }
    struct shoal_boot_table t;
    if (shoal_boot_gather(shoal.boot, "shared-memory segments", &mine, sizeof mine, &t))
        return -1;
    const struct seg_card *all = t.data;
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        const struct shoal_seg *seg = &shoal.seg[s];
        char **peer = calloc((size_t)n, sizeof *peer);
        if (!peer) {
            shoal_boot_table_release(&t);
            return -1;
        }
        shoal_shm_peer[s] = peer;
        for (int pe = 0; pe < n; pe++) {
            if (pe == shoal.my_pe)
                peer[pe] = (char *)seg->base;
            else if (all[pe].size[s] != seg->size)
                shoal_fatal("shmem_init",
                            "PE %d's %s segment is %llu bytes, this PE's is %zu; "
                            "every PE must run the same program with the same "
                            "SHMEM_SYMMETRIC_SIZE",
                            pe, s == SHOAL_SEG_HEAP ? "heap" : "static data",
                            (unsigned long long)all[pe].size[s], seg->size);
            else if (seg->size && shoal_pe_local(pe)) {
                peer[pe] = map_peer(&all[pe], s);
                SHOAL_LOG(SHM, DEBUG, "PE %d's %s mapped at %p", pe,
                          s == SHOAL_SEG_HEAP ? "heap" : "static data", (void *)peer[pe]);
            }
        }
    }
    shoal_boot_table_release(&t);
    /* Every peer has opened our memfds once all have passed this point. */
    if (shoal_boot_barrier(shoal.boot, "peers mapped"))
        return -1;
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++)
        if (shoal.seg[s].fd >= 0) {
            close(shoal.seg[s].fd);
            shoal.seg[s].fd = -1;
        }
    return 0;
}

void shoal_shm_unmap(void)
{
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        char **peer = shoal_shm_peer[s];
        if (!peer)
            continue;
        for (int pe = 0; pe < shoal.n_pes; pe++)
            if (pe != shoal.my_pe && peer[pe])
                munmap(peer[pe], shoal.seg[s].size);
        free(peer);
        shoal_shm_peer[s] = NULL;
    }
}

/* ---- The operations table ------------------------------------------------------- */

static int shm_init(void)
{
    return shoal_shm_map();
}
static void shm_fini(void)
{
    shoal_shm_unmap();
}

/* Start-up and shutdown only: the paths (transport.h) copy a mapped object inline and
 * reach a same-node device heap through the device layer, so no operation comes here,
 * and its contexts need nothing of their own. */
const struct shoal_transport_ops shoal_transport_shm = {
    .name = "shm",
    .init = shm_init,
    .fini = shm_fini,
    SHOAL_TP_NO_OPERATIONS,
};
