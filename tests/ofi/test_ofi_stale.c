/* A PE over libfabric's shm provider whose endpoint's region name ("PID:UID:0" in
 * /dev/shm) is taken (stale_region.sh). Without arguments: a ring of puts, each
 * PE's block checked against the values its left neighbour computes, then
 * "stale: PE n OK". With "keep KIND" each PE first puts at that name a file Shoal
 * must leave alone, printing "stale: making NAME" before and "stale: made NAME"
 * after: "newer" (a regular file of this user made now, after the program
 * started), "symlink" (to PID.target), "other_uid" (a file given to uid 65534, as
 * another user could plant it: root only); the endpoint must then take another
 * name and the ring run. With "keep_ctx" the file ("newer") takes the name of the
 * first endpoint after the default one's (PID:UID:1), which a private context of
 * a SHMEM_THREAD_MULTIPLE program opens: the context must open all the same and
 * carry a put ("stale: PE n ctx OK"). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define N 4096

static long block[N];

static long value(int pe, int i)
{
    return (long)pe * 1000003L + i * 7L + 1;
}

static void ring(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long src[N];
    for (int i = 0; i < N; i++)
        src[i] = value(me, i);
    shmem_long_put(block, src, N, (me + 1) % n);
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    for (int i = 0; i < N; i++)
        CHECK_EQ(block[i], value(left, i));
    shmem_barrier_all();
    printf("stale: PE %d OK\n", me);
    shmem_finalize();
}

static void say(const char *what, const char *name)
{
    printf("stale: %s %s\n", what, name);
    fflush(stdout);
}

/* A file at the region name of this process's endpoint number index; 0 or -1. */
static int make_decoy(const char *kind, int index)
{
    char name[64], path[96], target[96];
    int pid = (int)getpid(), rc = -1;
    snprintf(name, sizeof name, "%d:%d:%d", pid, (int)getuid(), index);
    snprintf(path, sizeof path, "/dev/shm/%s", name);
    say("making", name);
    if (!strcmp(kind, "newer") || !strcmp(kind, "other_uid")) {
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
        rc = fd < 0 || ftruncate(fd, 4096) ||
                        (!strcmp(kind, "other_uid") && fchown(fd, 65534, 65534))
                ? -1
                : 0;
        if (fd >= 0)
            close(fd);
    } else if (!strcmp(kind, "symlink")) {
        snprintf(target, sizeof target, "/dev/shm/%d.target", pid);
        int fd = open(target, O_CREAT | O_EXCL | O_WRONLY, 0600);
        rc = fd < 0 || symlink(target, path) ? -1 : 0;
        if (fd >= 0)
            close(fd);
    }
    if (rc) {
        perror("stale: making the decoy");
        return -1;
    }
    say("made", name);
    return 0;
}

/* The private context's endpoint opens under another name and carries a put. */
static void keep_ctx(void)
{
    int provided;
    CHECK_EQ(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
    int me = shmem_my_pe();
    if (make_decoy("newer", 1))
        shmem_global_exit(2);
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx), 0);
    int n = shmem_n_pes();
    shmem_ctx_long_p(ctx, &block[0], value(me, 0), (me + 1) % n);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK_EQ(block[0], value((me + n - 1) % n, 0));
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    printf("stale: PE %d ctx OK\n", me);
    shmem_finalize();
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "keep_ctx")) {
        keep_ctx();
        return 0;
    }
    if (argc > 2 && !strcmp(argv[1], "keep")) {
        if (make_decoy(argv[2], 0))
            return 2;
        ring();
        return 0;
    }
    ring();
    return 0;
}
