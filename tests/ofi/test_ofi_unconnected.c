/* A target that stops serving the network before any traffic reached it. The last
 * PE writes its pid to DIR/shoal-unconnected.<oshrun's pid> (DIR: argv[2]) right
 * after shmem_init (no barrier: that would connect the PEs), then
 *   dies:  kills itself; PE 0 waits until the launcher has reaped it. oshrun ends
 *          the job for that; PE 0 ignores SIGTERM, so that its get is under way
 *          when the job ends.
 *   deaf:  becomes `sleep` (exec): the process lives on, its endpoint gone; PE 0
 *          waits until it is. No launcher ends such a job; Shoal must.
 *   deaf-amo: the same, PE 0's first operation being a fetching AMO.
 * PE 0 then makes its first shmem_long_g (or shmem_long_atomic_fetch_add) to it,
 * which tcp;ofi_rxm, retrying the connection for ever, never fails by itself; it
 * says so if the operation returns. */
#include <errno.h>
#include <shmem.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long box = 42;

/* Whether process pid is gone (dies) or runs sleep (deaf). */
static int target_ready(long pid, int deaf)
{
    if (!deaf)
        return kill((pid_t)pid, 0) && errno == ESRCH;
    char path[64], comm[32] = "";
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(comm, sizeof comm, f) && !strncmp(comm, "sleep", 5);
    fclose(f);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc < 3 ||
        (strcmp(argv[1], "dies") && strcmp(argv[1], "deaf") && strcmp(argv[1], "deaf-amo"))) {
        fprintf(stderr, "usage: %s dies|deaf|deaf-amo DIR\n", argv[0]);
        return 2;
    }
    int deaf = strcmp(argv[1], "dies") != 0, amo = !strcmp(argv[1], "deaf-amo");
    shmem_init();
    int me = shmem_my_pe(), last = shmem_n_pes() - 1;
    char file[4096];
    snprintf(file, sizeof file, "%s/shoal-unconnected.%ld", argv[2], (long)getppid());
    if (me == last) {
        FILE *f = fopen(file, "w");
        if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f))
            return 3;
        if (deaf)
            execlp("sleep", "sleep", "600", (char *)NULL);
        raise(SIGKILL);
        return 4;
    }
    if (me != 0)
        for (;;) /* the others wait for the end without touching the network */
            pause();
    if (!deaf)
        signal(SIGTERM, SIG_IGN);
    long pid = 0;
    struct timespec t = { 0, 1000000 };
    for (;;) {
        FILE *f = fopen(file, "r");
        if (f) {
            int ok = fscanf(f, "%ld", &pid) == 1;
            fclose(f);
            if (ok && target_ready(pid, deaf)) {
                unlink(file);
                break;
            }
        }
        nanosleep(&t, NULL);
    }
    const char *op = amo ? "shmem_long_atomic_fetch_add" : "shmem_long_g";
    printf("unconnected: PE 0: first %s on PE %d (pid %ld, %s)\n", op, last, pid,
           deaf ? "deaf" : "gone");
    fflush(stdout);
    long v = amo ? shmem_long_atomic_fetch_add(&box, 1, last) : shmem_long_g(&box, last);
    printf("unconnected: PE 0: %s on PE %d returned %ld\n", op, last, v);
    return 1;
}
