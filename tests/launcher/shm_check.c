/* A job that touches its symmetric heap and static data, then ends as argv[1] says:
 * "ok" (finalize), "kill" (PE 1 kills itself with SIGKILL), "segv" (PE 1 crashes),
 * "exit" (PE 1 exits without finalize), "kill_decoys" (PE 1 first puts in /dev/shm
 * names of its pid that oshrun must not remove, then kills itself: shm_regions.sh).
 * Used to prove nothing is left behind; each PE prints its pid, by which
 * no_leftovers.sh knows the job's files. */
#include <fcntl.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char stat_buf[1 << 16];

/* What only looks like libfabric's regions of this pid ("PID:UID:N"): a wrong
 * suffix, a symlink to a file, and as root another user's file. */
static void make_decoys(void)
{
    char name[64], target[64];
    int pid = (int)getpid();
    snprintf(name, sizeof name, "/dev/shm/%d:0:x", pid);
    close(open(name, O_CREAT | O_WRONLY, 0600));
    snprintf(target, sizeof target, "/dev/shm/%d.target", pid);
    close(open(target, O_CREAT | O_WRONLY, 0600));
    snprintf(name, sizeof name, "/dev/shm/%d:0:99", pid);
    if (symlink(target, name))
        perror("shm_check: symlink");
    if (geteuid() == 0) {
        snprintf(name, sizeof name, "/dev/shm/%d:65534:0", pid);
        int fd = open(name, O_CREAT | O_WRONLY, 0600);
        if (fd < 0 || fchown(fd, 65534, 65534))
            perror("shm_check: another user's file");
        close(fd);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    printf("shm_check: PE %d pid %ld\n", me, (long)getpid());
    fflush(stdout);
    char *heap = shmem_malloc(1 << 20);
    memset(heap, me, 1 << 20);
    shmem_putmem(stat_buf, heap, sizeof stat_buf, (me + 1) % n);
    shmem_barrier_all();
    if (me == (n > 1 ? 1 : 0)) {
        if (!strcmp(mode, "kill_decoys"))
            make_decoys();
        if (!strcmp(mode, "kill") || !strcmp(mode, "kill_decoys"))
            raise(SIGKILL);
        if (!strcmp(mode, "segv"))
            raise(SIGSEGV);
        if (!strcmp(mode, "exit"))
            exit(0);
    }
    shmem_barrier_all();
    shmem_free(heap);
    shmem_finalize();
    return 0;
}
