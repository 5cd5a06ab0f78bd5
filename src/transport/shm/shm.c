/* The same-node transport: mapping the peers' segments, and its operations table.
 * Each PE backs its segments with memfds (mem/segment.c) and publishes (pid, fd); a
 * peer opens /proc/<pid>/fd/<fd> to map the same pages. The memory is released by
 * the kernel when the last mapping goes, however the job ends, and nothing is ever
 * named in /dev/shm. PEs on other nodes are left unmapped (NULL): the network
 * reaches them.
 *
 * The table's entries are the out-of-line forms of shm.h's inline operations, for
 * callers that hold a resolved reference (transport.h) and no mapping of their own;
 * the API's hot paths use the inline forms through transport.h's dispatchers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "env/log.h"
#include "transport/transport.h"

char **shoal_shm_peer[SHOAL_NHOST_SEGS];

struct seg_card {
    int32_t pid;
    int32_t fd[SHOAL_NHOST_SEGS];
    uint64_t size[SHOAL_NHOST_SEGS];
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
    void *p =
            mmap(NULL, c->size[s], PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
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
    }
    struct seg_card *all = calloc((size_t)n, sizeof *all);
    if (!all)
        return -1;
    if (shoal_boot_allgather(shoal.boot, "shared-memory segments", &mine, all, sizeof mine)) {
        free(all);
        return -1;
    }
    for (int s = 0; s < SHOAL_NHOST_SEGS; s++) {
        const struct shoal_seg *seg = &shoal.seg[s];
        char **peer = calloc((size_t)n, sizeof *peer);
        if (!peer) {
            free(all);
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
    free(all);
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

static char *at(int seg, uint64_t off, int pe)
{
    return shoal_shm_peer[seg][pe] + off;
}

static int shm_init(void)
{
    return shoal_shm_map();
}
static void shm_fini(void)
{
    shoal_shm_unmap();
}
/* Same-node operations complete in the call: a context needs nothing of its own. */
static int shm_ctx_create(struct shoal_ctx *ctx)
{
    (void)ctx;
    return 0;
}
static void shm_ctx_destroy(struct shoal_ctx *ctx)
{
    (void)ctx;
}

static void shm_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                    int pe)
{
    (void)ctx;
    shoal_shm_copy(at(seg, off, pe), src, len);
}

static void shm_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len,
                    int pe)
{
    (void)ctx;
    shoal_shm_copy(dst, at(seg, off, pe), len);
}

static void shm_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    (void)ctx;
    char *p = at(a->seg, a->off, pe);
    uint64_t v = 0, cmp = 0;
    if (shoal_amo_width(a->type) == 4) {
        uint32_t v32 = 0, c32 = 0;
        if (a->operand)
            memcpy(&v32, a->operand, 4);
        if (a->compare)
            memcpy(&c32, a->compare, 4);
        uint32_t old =
                shoal_shm_amo32(p, a->op, v32, c32, a->fetch != NULL, __ATOMIC_SEQ_CST);
        if (a->fetch)
            memcpy(a->fetch, &old, 4);
        return;
    }
    if (a->operand)
        memcpy(&v, a->operand, 8);
    if (a->compare)
        memcpy(&cmp, a->compare, 8);
    uint64_t old = shoal_shm_amo64(p, a->op, v, cmp, a->fetch != NULL, __ATOMIC_SEQ_CST);
    if (a->fetch)
        memcpy(a->fetch, &old, 8);
}

static void shm_put_signal(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                           size_t len, int sig_seg, uint64_t sig_off, uint64_t signal,
                           enum shoal_amo_op sig_op, int nbi, int pe)
{
    (void)ctx, (void)nbi;
    shoal_shm_copy(at(seg, off, pe), src, len);
    shoal_shm_release_after(len);
    shoal_shm_amo64(at(sig_seg, sig_off, pe), sig_op, signal, 0, 0, __ATOMIC_RELEASE);
}

static void shm_order(struct shoal_ctx *ctx)
{
    (void)ctx;
    shoal_shm_fence();
}

static void shm_local_complete(struct shoal_ctx *ctx)
{
    (void)ctx;
}
static void shm_session_start(struct shoal_ctx *ctx, long options)
{
    (void)ctx, (void)options;
}
static void shm_progress(void) {}

const struct shoal_transport_ops shoal_transport_shm = {
    .name = "shm",
    .init = shm_init,
    .fini = shm_fini,
    .ctx_create = shm_ctx_create,
    .ctx_destroy = shm_ctx_destroy,
    .put = shm_put,
    .put_nbi = shm_put,
    .get = shm_get,
    .get_nbi = shm_get,
    .amo = shm_amo,
    .amo_nbi = shm_amo,
    .put_signal = shm_put_signal,
    .fence = shm_order,
    .quiet = shm_order,
    .local_complete = shm_local_complete,
    .session_start = shm_session_start,
    .session_stop = shm_local_complete,
    .progress = shm_progress,
};
