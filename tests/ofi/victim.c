/* The target of tests/ofi/attacker.c: each PE allocates symmetric memory, zeroes
 * it, announces its process id and the buffer's address in DIR/ready.PE, keeps
 * driving the network until DIR/done appears, then checks that nothing outside the
 * job changed its memory.  usage: victim DIR */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <shmem.h>

#define BYTES (4L << 20)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: victim DIR\n");
        return 2;
    }
    shmem_init();
    int me = shmem_my_pe();
    static long flag;
    unsigned char *buf = shmem_calloc(1, BYTES);
    if (!buf) {
        fprintf(stderr, "victim: shmem_calloc failed\n");
        shmem_global_exit(2);
    }
    char path[4096], tmp[4096];
    snprintf(tmp, sizeof tmp, "%s/.ready.%d", argv[1], me);
    snprintf(path, sizeof path, "%s/ready.%d", argv[1], me);
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%ld %p\n", (long)getpid(), (void *)buf) < 0 || fclose(f) ||
        rename(tmp, path)) {
        perror("victim: ready file");
        shmem_global_exit(2);
    }
    snprintf(path, sizeof path, "%s/done", argv[1]);
    time_t start = time(NULL);
    while (access(path, F_OK) != 0 && time(NULL) - start < 90) {
        shmem_long_test(&flag, SHMEM_CMP_NE, 0); /* drives the network */
        usleep(1000);
    }
    long changed = 0;
    for (long i = 0; i < BYTES; i++)
        changed += buf[i] != 0;
    if (changed)
        printf("victim: PE %d: %ld bytes of symmetric memory were written from outside the "
               "job\n",
               me, changed);
    shmem_barrier_all();
    shmem_free(buf);
    shmem_finalize();
    return changed ? 1 : 0;
}
