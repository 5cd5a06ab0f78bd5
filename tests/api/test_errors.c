/* Erroneous programs, one per mode (argv[1]), listed with how to judge them in
 * error_cases.h; test_errors.sh runs each under oshrun at the PE counts listed there
 * and checks the exit status and the message. Where only one PE
 * errs, the others wait in a barrier that can never complete, so the job ends only if
 * the launcher tears it down. Every mode must fail: reaching the end is an error
 * (except zero_and_huge*, which checks that empty and huge sizes are not errors). */
#include <shmem.h>
#include <shmemx.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error_cases.h"

/* --spec MODE: how test_errors.sh runs and judges MODE, as PES, ENV, STATUS and
 * REGEX separated by the unit separator (0x1f), which no field contains. */
static int print_spec(const char *mode)
{
    static const struct {
        const char *mode, *pes, *env, *status, *regex;
    } cases[] = {
#define ERROR_CASE_ROW(m, pes, env, status, regex) { #m, pes, env, status, regex },
        ERROR_CASES(ERROR_CASE_ROW)
#undef ERROR_CASE_ROW
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].mode, mode)) {
            printf("%s\x1f%s\x1f%s\x1f%s\n", cases[i].pes, cases[i].env, cases[i].status,
                   cases[i].regex);
            return 0;
        }
    fprintf(stderr, "test_errors: no case %s in error_cases.h\n", mode);
    return 2;
}

static int gvar[16];
static long gwait;
static long glock;
static long junk_lock = (long)0xabababababababab; /* not 0 before first use */
static uint64_t sigs[2];

/* The last PE does `bad`; the others block forever. */
#define LAST_PE_DOES(bad)                                                                    \
    do {                                                                                     \
        if (shmem_my_pe() == shmem_n_pes() - 1) {                                            \
            bad;                                                                             \
        } else {                                                                             \
            shmem_long_wait_until(&gwait, SHMEM_CMP_NE, 0);                                  \
        }                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--spec"))
        return print_spec(argv[2]);
    const char *mode = argc > 1 ? argv[1] : "";
    setvbuf(stdout, NULL, _IONBF, 0);

    if (!strcmp(mode, "before_init")) {
        int me = shmem_my_pe(); /* fatal */
        printf("shmem_my_pe before shmem_init returned %d\n", me);
        return 0;
    }
    if (!strcmp(mode, "init_after_finalize")) {
        shmem_init();
        shmem_finalize();
        shmem_init(); /* fatal: not the launcher's fault, re-initialisation */
        printf("test_errors: mode %s was not caught\n", mode);
        return 0;
    }
    if (!strcmp(mode, "finalize_twice")) {
        shmem_init();
        shmem_finalize();
        shmem_finalize(); /* a warning, and on */
        printf("test_errors: finalize_twice: the program goes on after the second "
               "shmem_finalize\n");
        return 0;
    }
    if (!strcmp(mode, "after_finalize")) {
        shmem_init();
        shmem_finalize();
        shmem_barrier_all(); /* fatal */
        return 0;
    }
    /* Each family before shmem_init, and after shmem_finalize (with the addresses
     * and contexts it had while initialized). */
    if (!strncmp(mode, "before_init_", 12) || !strncmp(mode, "after_finalize_", 15)) {
        const char *what = strchr(mode + 7, '_') + 1;
        long *heap = NULL, src[4] = { 0 };
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        if (mode[0] == 'a') {
            shmem_init();
            heap = shmem_malloc(64);
            shmem_ctx_create(0, &ctx);
            shmem_finalize();
            what = mode + 15;
        }
        long *dest = heap ? heap : &gwait;
        if (!strcmp(what, "put"))
            shmem_long_put(dest, src, 4, 0);
        else if (!strcmp(what, "p"))
            shmem_long_p(dest, 1, 0);
        else if (!strcmp(what, "get"))
            shmem_long_get(src, dest, 4, 0);
        else if (!strcmp(what, "ctx_put"))
            shmem_ctx_long_put(ctx, dest, src, 4, 0);
        else if (!strcmp(what, "amo"))
            shmem_long_atomic_fetch_add(dest, 1, 0);
        else if (!strcmp(what, "quiet"))
            shmem_quiet();
        else if (!strcmp(what, "reduce"))
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, dest, src, 1);
        else if (!strcmp(what, "bcast"))
            shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, src, 1, 0);
        else if (!strcmp(what, "malloc"))
            shmem_malloc(64);
        else if (!strcmp(what, "free"))
            shmem_free(heap);
        else
            return 2;
        printf("test_errors: mode %s was not caught\n", mode);
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
    } else if (!strcmp(mode, "pcntr_null")) {
        LAST_PE_DOES(shmemx_pcntr_get_issued_write(SHMEM_CTX_DEFAULT, NULL));
    } else if (!strcmp(mode, "pcntr_ctx_invalid")) {
        shmemx_pcntr_t p;
        LAST_PE_DOES(shmemx_pcntr_get_all(SHMEM_CTX_INVALID, &p));
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
    } else if (!strcmp(mode, "ctx_destroyed") || !strcmp(mode, "ctx_destroyed_nodebug")) {
        /* caught by SHMEM_DEBUG's check, or without it by the PE range check */
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx))
            return 3;
        shmem_ctx_destroy(ctx);
        LAST_PE_DOES(shmem_ctx_long_put(ctx, &gwait, &gwait, 1, 0));
    } else if (!strcmp(mode, "ctx_destroyed_quiet")) {
        /* SHMEM_DEBUG=1 (no create in between: it could reuse the destroyed node) */
        shmem_ctx_t ctx;
        if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx))
            return 3;
        shmem_ctx_destroy(ctx);
        LAST_PE_DOES(shmem_ctx_quiet(ctx));
    } else if (!strcmp(mode, "ctx_destroy_twice")) {
        shmem_ctx_t ctx;
        if (shmem_ctx_create(0, &ctx))
            return 3;
        shmem_ctx_destroy(ctx);
        LAST_PE_DOES(shmem_ctx_destroy(ctx));
    } else if (!strcmp(mode, "ctx_team_destroyed")) {
        /* destroying a team destroys its contexts */
        shmem_team_t team;
        shmem_ctx_t ctx;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team) ||
            shmem_team_create_ctx(team, 0, &ctx))
            return 3;
        shmem_team_destroy(team);
        LAST_PE_DOES(shmem_ctx_int_atomic_inc(ctx, &gvar[0], 0));
    } else if (!strcmp(mode, "team_destroyed") || !strcmp(mode, "team_destroyed_coll")) {
        /* a destroyed team's handle: team routines and collectives name the cause */
        shmem_team_t team;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team))
            return 3;
        shmem_team_destroy(team);
        if (!strcmp(mode, "team_destroyed"))
            LAST_PE_DOES(shmem_team_n_pes(team));
        else
            shmem_team_sync(team);
    } else if (!strcmp(mode, "typed_overflow")) {
        /* nelems * sizeof(long) wraps: caught before any byte moves */
        LAST_PE_DOES(shmem_long_put((long *)heap, (long *)heap, SIZE_MAX / 4, 0));
    } else if (!strcmp(mode, "malloc_mismatch")) {
        /* SHMEM_DEBUG=1, 2 or more PEs */
        shmem_malloc(16 * (size_t)(shmem_my_pe() + 1));
    } else if (!strcmp(mode, "malloc_zero_mismatch")) {
        /* SHMEM_DEBUG=1: the PE passing 0 once skipped the comparison the others wait in */
        shmem_malloc(shmem_my_pe() == n - 1 ? 0 : 64);
        shmem_barrier_all();
    } else if (!strcmp(mode, "free_null_alone")) {
        /* SHMEM_DEBUG=1: the last PE frees NULL, which the others never call */
        if (shmem_my_pe() == n - 1)
            shmem_free(NULL);
        shmem_barrier_all();
    } else if (!strcmp(mode, "calloc_mismatch")) {
        shmem_calloc(shmem_my_pe() == n - 1 ? 3 : 4, 8);
    } else if (!strcmp(mode, "align_mismatch")) {
        shmem_align(shmem_my_pe() == n - 1 ? 128 : 64, 256);
    } else if (!strcmp(mode, "realloc_mismatch")) {
        shmem_realloc(heap, shmem_my_pe() == n - 1 ? 8192 : 4096);
    } else if (!strcmp(mode, "free_mismatch")) {
        int *other = shmem_malloc(64);
        shmem_free(shmem_my_pe() == n - 1 ? (void *)other : (void *)heap);
    } else if (!strcmp(mode, "bcast_root_mismatch")) {
        /* SHMEM_DEBUG=1, 2 or more PEs */
        shmem_broadcastmem(SHMEM_TEAM_WORLD, heap, gvar, 8, shmem_my_pe() == n - 1);
    } else if (!strcmp(mode, "reduce_mismatch")) {
        long *d = shmem_malloc(4 * sizeof(long));
        static long s[4];
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, d, s, shmem_my_pe() == n - 1 ? 2 : 4);
    } else if (!strcmp(mode, "fcollect_mismatch")) {
        /* on a team that is not the world: the message says "team" */
        shmem_team_t team;
        if (shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &team))
            return 3;
        shmem_int_fcollect(team, heap, gvar, shmem_my_pe() == n - 1 ? 1 : 2);
    } else if (!strcmp(mode, "alltoalls_mismatch")) {
        shmem_int_alltoalls(SHMEM_TEAM_WORLD, heap, gvar, shmem_my_pe() == n - 1 ? 2 : 1, 1,
                            1);
    } else if (!strcmp(mode, "scan_mismatch")) {
        shmem_int_sum_inscan(SHMEM_TEAM_WORLD, heap, gvar, shmem_my_pe() == n - 1 ? 0 : 3);
    } else if (!strcmp(mode, "put_overflow")) {
        /* SHMEM_DEBUG=1: a length that wraps around the address space */
        LAST_PE_DOES(shmem_putmem(heap, gvar, SIZE_MAX - 64, 0));
    } else if (!strcmp(mode, "wait_nonsym")) {
        /* SHMEM_DEBUG=1: no other PE can update a stack variable; the wait would hang */
        int on_stack = 0;
        LAST_PE_DOES(shmem_int_wait_until(&on_stack, SHMEM_CMP_NE, 0));
    } else if (!strcmp(mode, "test_nonsym")) {
        int on_stack = 0;
        LAST_PE_DOES(while (!shmem_int_test(&on_stack, SHMEM_CMP_NE, 0)){});
    } else if (!strcmp(mode, "clear_unheld")) {
        /* nobody holds glock: clearing it hung forever */
        LAST_PE_DOES(shmem_clear_lock(&glock));
    } else if (!strcmp(mode, "clear_other")) {
        /* PE 0 holds the lock; the last PE clears it */
        if (shmem_my_pe() == 0)
            shmem_set_lock(&glock);
        shmem_barrier_all();
        LAST_PE_DOES(if (n > 1) shmem_clear_lock(&glock); else {
            shmem_clear_lock(&glock);
            shmem_clear_lock(&glock);
        });
    } else if (!strcmp(mode, "set_lock_twice") || !strcmp(mode, "set_lock_twice_debug")) {
        /* the second set waited for this PE itself, for ever */
        LAST_PE_DOES(shmem_set_lock(&glock); shmem_set_lock(&glock));
    } else if (!strcmp(mode, "lock_garbage")) {
        LAST_PE_DOES(shmem_set_lock(&junk_lock));
    } else if (!strcmp(mode, "test_any_huge") || !strcmp(mode, "test_any_huge_debug")) {
        /* a count past the heap's end: read other mappings until a fault */
        int *flags = shmem_calloc(4, sizeof(int));
        LAST_PE_DOES(shmem_int_test_any(flags, SIZE_MAX / 8, NULL, SHMEM_CMP_EQ, 1));
    } else if (!strcmp(mode, "signal_misaligned")) {
        LAST_PE_DOES(shmem_putmem_signal(heap, gvar, 8, (uint64_t *)((char *)sigs + 4), 1,
                                         SHMEM_SIGNAL_SET, 0));
    } else if (!strcmp(mode, "put_wrap")) {
        /* no SHMEM_DEBUG: a length that wraps is still caught before any byte moves */
        LAST_PE_DOES(shmem_putmem(heap, gvar, SIZE_MAX - 63, 0));
    } else if (!strcmp(mode, "get_wrap")) {
        LAST_PE_DOES(shmem_getmem(gvar, heap, SIZE_MAX - 63, 0));
    } else if (!strcmp(mode, "iput_past_end")) {
        /* no SHMEM_DEBUG: the second element lands 1 GiB in, past the 512 MiB heap
         * (where the next mapping, perhaps another PE's heap, begins) */
        long src[2] = { 1, 2 };
        LAST_PE_DOES(shmem_long_iput((long *)heap, src, 1L << 27, 1, 2, 0));
    } else if (!strcmp(mode, "iput_negative")) {
        /* a negative stride that reaches below the heap's start */
        long src[2] = { 1, 2 };
        LAST_PE_DOES(shmem_long_iput((long *)heap, src, -(1L << 20), 1, 2, 0));
    } else if (!strcmp(mode, "iget_past_end")) {
        long dst[2];
        LAST_PE_DOES(shmem_long_iget(dst, (long *)heap, 1, 1L << 27, 2, 0));
    } else if (!strcmp(mode, "ibput_wrap")) {
        long src[4] = { 0 };
        LAST_PE_DOES(shmem_long_ibput((long *)heap, src, PTRDIFF_MAX / 4, 1, 2, 2, 0));
    } else if (!strcmp(mode, "alltoalls_past_end")) {
        /* every PE: a dest stride that spreads the blocks far past the heap's end */
        long *src = shmem_calloc((size_t)n, sizeof(long));
        shmem_long_alltoalls(SHMEM_TEAM_WORLD, (long *)heap, src, 1L << 27, 1, 1);
    } else if (!strncmp(mode, "zero_and_huge", 13)) {
        /* Not an error: zero sizes are no-ops and huge ones fail politely. */
        int stack_var = 0, bad = 0;
        shmem_putmem(&stack_var, gvar, 0, 0); /* not symmetric, but empty */
        shmem_int_put(NULL, gvar, 0, n - 1);
        shmem_int_get(gvar, (int *)&stack_var, 0, 0);
        shmem_int_iput(&stack_var, gvar, 1, 1, 0, 0);
        bad |= shmem_malloc(0) != NULL;
        bad |= shmem_calloc(0, 8) != NULL;
        bad |= shmem_calloc(8, 0) != NULL;
        bad |= shmem_align(64, 0) != NULL;
        bad |= shmem_malloc(SIZE_MAX) != NULL;         /* warns */
        bad |= shmem_calloc(SIZE_MAX / 2, 4) != NULL;  /* warns: count * size overflows */
        bad |= shmem_align(64, SIZE_MAX - 32) != NULL; /* warns */
        bad |= shmem_realloc(heap, SIZE_MAX) != NULL;  /* warns; heap stays */
        heap[0] = 42;
        shmem_barrier_all();
        bad |= shmem_int_g(&heap[0], (shmem_my_pe() + 1) % n) != 42;
        int *p = shmem_malloc(64); /* the heap still works */
        bad |= p == NULL;
        shmem_free(p);
        shmem_free(heap);
        shmem_barrier_all();
        printf("test_errors: %s %s\n", mode, bad ? "FAILED" : "passed");
        shmem_finalize();
        return bad;
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
