/* Bad input around memory spaces, one case per mode (argv[1]); tests/device/CMakeLists.txt
 * checks each one's exit status and message through tests/api/test_errors.sh. */
#include <shmem.h>
#include <shmemx.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_device.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);
    shmem_init();
    int me = shmem_my_pe(), np = shmem_n_pes();

    if (!strcmp(mode, "no_space")) {
        /* Not fatal: NULL and a message naming SHMEM_SYMMETRIC_SIZE_DEVICE, on every PE. */
        CHECK(shmem_space_malloc(SHMEM_SPACE_DEVICE, 1024) == NULL);
        CHECK(shmem_space_malloc(SHMEM_SPACE_DEFAULT, 1024) != NULL);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "unaware")) {
        /* A device buffer the program allocated, passed while awareness is off. */
        char *d = tdev_malloc(64);
        char *sym = shmem_malloc(64);
        if (me == np - 1)
            shmem_putmem(sym, d, 64, 0);
        shmem_barrier_all();
        printf("PE %d: the device buffer was not caught\n", me);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "realloc_space")) {
        void *d = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64);
        shmem_space_realloc(SHMEM_SPACE_DEFAULT, d, 128);
        printf("PE %d: realloc across spaces was not caught\n", me);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "libc_free")) {
        void *d = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64);
        free(d); /* the C library's free of a device-space pointer */
        printf("PE %d: free() of a device pointer was not caught\n", me);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "host_touch")) {
        /* A child process loads through a device-space pointer: it must fault. */
        volatile int *d = shmem_space_malloc(SHMEM_SPACE_DEVICE, 64);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGSEGV, SIG_DFL);
            signal(SIGBUS, SIG_DFL);
            int v = d[0];
            _exit(v == 12345 ? 3 : 2);
        }
        int st;
        CHECK(waitpid(pid, &st, 0) == pid);
        /* Killed by the fault, or (under a sanitizer, whose SEGV handler reports it)
         * exit status 1; a load that went through would exit 2 or 3. */
        CHECK((WIFSIGNALED(st) && (WTERMSIG(st) == SIGSEGV || WTERMSIG(st) == SIGBUS)) ||
              (WIFEXITED(st) && WEXITSTATUS(st) == 1));
        printf("PE %d: host load faulted\n", me);
        shmem_free((void *)d);
        shmem_finalize();
        return 0;
    }
    if (!strcmp(mode, "coll_no_heap")) {
        /* A device buffer of the program's own as a reduction's source, awareness on,
         * but no device heap to hold the collectives' staging. */
        long *src = tdev_malloc(4 * sizeof(long)), *dst = shmem_malloc(4 * sizeof(long));
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dst, src, 4);
        printf("PE %d: a device collective without staging was not caught\n", me);
        shmem_finalize();
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
