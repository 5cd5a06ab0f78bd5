/* A job that touches its symmetric heap and static data, then ends as argv[1] says:
 * "ok" (finalize), "kill" (PE 1 kills itself with SIGKILL), "segv" (PE 1 crashes),
 * "exit" (PE 1 exits without finalize). Used to prove nothing is left behind; each
 * PE prints its pid, by which no_leftovers.sh knows the job's files. */
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char stat_buf[1 << 16];

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
        if (!strcmp(mode, "kill"))
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
