/* What tests/cx_env/cx_env.sh runs under Cray OpenSHMEMX's variables:
 *   plain         init, a barrier, finalize
 *   thread LEVEL  shmem_init_thread(LEVEL); prints SHMEM_THREAD_SAFETY as the program
 *                 reads it, and the level granted
 *   badput        a put to PE n_pes (out of range): the library's error
 *   global_exit   PE 0 calls shmem_global_exit(3); an atexit handler says whether
 *                 the process ended by exit()
 *   teams N       N splits of SHMEM_TEAM_WORLD kept alive; prints how many succeeded */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long dst;

static void said_exit(void)
{
    printf("PE exited through exit()\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    if (!strcmp(mode, "thread")) {
        int want = argc > 2 ? atoi(argv[2]) : SHMEM_THREAD_SINGLE, got = -1;
        if (shmem_init_thread(want, &got)) {
            fprintf(stderr, "cx_env: shmem_init_thread failed\n");
            return 1;
        }
        const char *v = getenv("SHMEM_THREAD_SAFETY");
        printf("PE %d: SHMEM_THREAD_SAFETY=%s granted %d\n", shmem_my_pe(), v ? v : "(unset)",
               got);
        shmem_finalize();
        return 0;
    }
    shmem_init();
    if (!strcmp(mode, "badput")) {
        long src = 1;
        shmem_long_put(&dst, &src, 1, shmem_n_pes());
        printf("PE %d: the bad put returned\n", shmem_my_pe());
    } else if (!strcmp(mode, "global_exit")) {
        if (shmem_my_pe() == 0) {
            atexit(said_exit);
            shmem_global_exit(3);
        }
        shmem_barrier_all(); /* the other PEs end with the job, or here */
    } else if (!strcmp(mode, "teams")) {
        int n = argc > 2 ? atoi(argv[2]) : 1, made = 0;
        for (int i = 0; i < n; i++) {
            shmem_team_t t;
            made += !shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0,
                                              &t);
        }
        printf("PE %d: %d of %d teams made\n", shmem_my_pe(), made, n);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
