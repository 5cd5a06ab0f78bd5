/* A program under a profiling tool (interposer.c): the wrapped calls are counted
 * exactly once each, calls straight to pshmem_ bypass the tool, shmem_pcontrol
 * reaches it, and the data of every wrapped put still arrives. */
#include <dlfcn.h>
#include <pshmem.h>
#include <shmemx.h>
#include <stdio.h>

#include "check.h"

#define NPUTS 5
#define NPUTMEMS 3

static long ring[NPUTS];     /* shmem_long_put from the left PE */
static char bytes[NPUTMEMS]; /* shmem_putmem from the left PE */
static long direct;          /* pshmem_long_put from the left PE, not counted */

static long (*count)(const char *routine);
static int (*level)(void);

static void check_count(const char *routine, long expected)
{
    long n = count(routine);
    if (n != expected) {
        fprintf(stderr, "FAIL PE %d: the tool counted %ld calls of %s, expected %ld\n",
                shmem_my_pe(), n, routine, expected);
        shmem_global_exit(1);
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    count = (long (*)(const char *))dlsym(RTLD_DEFAULT, "shoal_prof_count");
    level = (int (*)(void))dlsym(RTLD_DEFAULT, "shoal_prof_level");
    if (!count || !level) {
        fprintf(stderr, "FAIL PE %d: the profiling tool is not loaded\n", me);
        shmem_global_exit(1);
    }
    check_count("shmem_long_put", 0);
    CHECK_EQ(level(), 1);

    for (int k = 0; k < NPUTS; k++) {
        long v = me * 100 + k;
        shmem_long_put(&ring[k], &v, 1, right);
    }
    for (int k = 0; k < NPUTMEMS; k++) {
        char c = (char)('a' + (me + k) % 26);
        shmem_putmem(&bytes[k], &c, 1, right);
    }
    long v = me + 1000;
    pshmem_long_put(&direct, &v, 1, right);
    shmem_pcontrol(2);
    CHECK_EQ(level(), 2);
    shmem_pcontrol(1);
    shmem_barrier_all();

    for (int k = 0; k < NPUTS; k++)
        CHECK_EQ(ring[k], left * 100 + k);
    for (int k = 0; k < NPUTMEMS; k++)
        CHECK_EQ(bytes[k], 'a' + (left + k) % 26);
    CHECK_EQ(direct, left + 1000);
    check_count("shmem_long_put", NPUTS);
    check_count("shmem_putmem", NPUTMEMS);
    check_count("shmem_barrier_all", 1);
    check_count("shmem_pcontrol", 2);
    CHECK_EQ(level(), 1);
    void *sp = shmem_space_malloc(SHMEM_SPACE_DEFAULT, 64);
    CHECK(sp != NULL);
    check_count("shmem_space_malloc", 1);
    shmem_free(sp);

    pshmem_barrier_all();
    check_count("shmem_barrier_all", 1);
    if (me == 0)
        printf("profiling: every wrapped call counted once, data delivered\n");
    shmem_finalize();
    return 0;
}
