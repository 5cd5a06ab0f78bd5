/* The launcher paths through the real API: `api_check MODE [ARGS]`, where a
 * RANK argument is a PE number or "last".
 *   ok                        init, check the PE numbers, barrier, finalize
 *   global_exit STATUS RANK   PE RANK calls shmem_global_exit(STATUS), the others wait
 *   nofinalize RANK           PE RANK returns from main without shmem_finalize
 *   crowd N                   N barriers; prints how many CPUs the PE may use after
 *                             shmem_init and after them, and its SHOAL_BINDING */
#include <sched.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cpus_now(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) ? -1 : CPU_COUNT(&set);
}

static int rank_arg(const char *s)
{
    return !s || !strcmp(s, "last") ? shmem_n_pes() - 1 : atoi(s);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    const char *want = getenv("SHOAL_SIZE");
    if (me < 0 || me >= n || (want && atoi(want) != n)) {
        fprintf(stderr, "api_check: PE %d of %d (SHOAL_SIZE=%s)\n", me, n,
                want ? want : "unset");
        return 1;
    }
    const char *dir = getenv("BOOT_CHECK_PIDDIR"); /* for scenarios.sh's leftover check */
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/pe.%d", dir, me);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%d\n", (int)getpid());
            fclose(f);
        }
    }
    if (!strcmp(mode, "global_exit") && me == rank_arg(argc > 3 ? argv[3] : NULL))
        shmem_global_exit(atoi(argv[2]));
    if (!strcmp(mode, "nofinalize") && me == rank_arg(argc > 2 ? argv[2] : NULL))
        return 0;
    if (!strcmp(mode, "crowd")) {
        int before = cpus_now();
        for (long i = 0, rounds = argc > 2 ? atol(argv[2]) : 1000; i < rounds; i++)
            shmem_barrier_all();
        const char *how = getenv("SHOAL_BINDING");
        printf("crowd %d before=%d after=%d binding=%s\n", me, before, cpus_now(),
               how ? how : "(unset)");
    }
    shmem_barrier_all();
    printf("PE %d of %d done\n", me, n);
    shmem_finalize();
    return 0;
}
