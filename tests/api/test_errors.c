/* Erroneous programs, one per mode (argv[1]); test_errors.sh runs each under oshrun
 * at 1, 2 and 4 PEs and checks the exit status and the message. Where only one PE
 * errs, the others wait in a barrier that can never complete, so the job ends only if
 * the launcher tears it down. Every mode must fail: reaching the end is an error. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gvar[16];
static long gwait;

/* The last PE does `bad`; the others block forever. */
#define LAST_PE_DOES(bad)                                  \
    do {                                                   \
        if (shmem_my_pe() == shmem_n_pes() - 1) {          \
            bad;                                           \
        } else {                                           \
            shmem_long_wait_until(&gwait, SHMEM_CMP_NE, 0); \
        }                                                  \
    } while (0)

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);

    if (!strcmp(mode, "before_init")) {
        int me = shmem_my_pe(); /* fatal */
        printf("shmem_my_pe before shmem_init returned %d\n", me);
        return 0;
    }
    if (!strcmp(mode, "after_finalize")) {
        shmem_init();
        shmem_finalize();
        shmem_barrier_all(); /* fatal */
        return 0;
    }

    shmem_init();
    int n = shmem_n_pes();
    int *heap = shmem_malloc(4096);
    shmem_barrier_all();

    if (!strcmp(mode, "pe_range")) {
        LAST_PE_DOES(shmem_int_p(&heap[0], 1, n));
    } else if (!strcmp(mode, "pe_negative")) {
        LAST_PE_DOES(shmem_int_atomic_inc(&gvar[0], -1));
    } else if (!strcmp(mode, "not_symmetric")) {
        int stack_var = 0;
        LAST_PE_DOES(shmem_int_p(&stack_var, 1, 0));
    } else if (!strcmp(mode, "not_symmetric_malloc")) {
        int *priv = malloc(64);
        LAST_PE_DOES(shmem_int_put(priv, gvar, 4, 0));
    } else if (!strcmp(mode, "debug_range")) {
        /* run with SHMEM_DEBUG=1 SHMEM_SYMMETRIC_SIZE=1M: 4 MiB from a heap block runs
         * past the end of the heap segment */
        size_t len = 4u << 20;
        char *src = calloc(1, len);
        LAST_PE_DOES(shmem_putmem(heap, src, len, 0));
    } else if (!strcmp(mode, "debug_range_static")) {
        /* SHMEM_DEBUG=1: 256 MiB from a global runs past the end of the static data */
        size_t len = 256u << 20;
        LAST_PE_DOES(shmem_getmem(heap, gvar, len, 0));
    } else if (!strcmp(mode, "misaligned")) {
        LAST_PE_DOES(shmem_int_atomic_fetch_add((int *)((char *)heap + 2), 1, 0));
    } else if (!strcmp(mode, "misaligned_global")) {
        LAST_PE_DOES(shmem_long_atomic_set((long *)((char *)gvar + 4), 1, 0));
    } else if (!strcmp(mode, "bad_cmp")) {
        LAST_PE_DOES(shmem_int_wait_until(&gvar[0], 42, 0));
    } else if (!strcmp(mode, "ctx_invalid")) {
        LAST_PE_DOES(shmem_ctx_int_atomic_inc(SHMEM_CTX_INVALID, &gvar[0], 0));
    } else if (!strcmp(mode, "global_exit")) {
        LAST_PE_DOES(shmem_global_exit(7));
    } else if (!strcmp(mode, "global_exit_all")) {
        shmem_global_exit(7); /* every PE at once */
    } else if (!strcmp(mode, "free_nonheap")) {
        int stack_var;
        shmem_free(&stack_var);
    } else if (!strcmp(mode, "free_global")) {
        shmem_free(gvar);
    } else if (!strcmp(mode, "free_twice")) {
        shmem_free(heap);
        shmem_free(heap);
    } else if (!strcmp(mode, "free_interior")) {
        shmem_free(heap + 1);
    } else if (!strcmp(mode, "realloc_nonheap")) {
        static int not_heap[4];
        shmem_realloc(not_heap, 64);
    } else if (!strncmp(mode, "bad_size", 8)) {
        /* shmem_init should have refused the environment */
    } else {
        fprintf(stderr, "test_errors: unknown mode '%s'\n", mode);
        return 2;
    }
    /* Not reached when the library catches the error. */
    shmem_barrier_all();
    printf("test_errors: mode %s was not caught\n", mode);
    shmem_finalize();
    return 0;
}
