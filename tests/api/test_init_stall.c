/* A job held up inside shmem_init: the last PE never gets its host name, so the
 * others wait for it in shmem_init's exchange of host names. oshrun --timeout must
 * hear from every PE where in shmem_init it is (base/signals.c) and end the job.
 * usage: test_init_stall [N]: held up at shmem_init's N-th request for the host name
 * (default 1, the topology's; 2 is the libfabric transport's in a job that spans
 * nodes).
 * This program's gethostname takes the place of the C library's for libshoal too
 * (the executable comes first in symbol lookup), which holds the PE up where Shoal
 * asks for its host name, whatever transport the job uses. */
#include <shmem.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* Provider libraries ask for the host name too, from their constructors. */
static int in_init, calls, stall_at = 1;

int gethostname(char *name, size_t len)
{
    /* oshrun tells each PE its rank and the job's size. */
    const char *rank = getenv("SHOAL_RANK"), *size = getenv("SHOAL_SIZE");
    if (in_init && ++calls == stall_at && rank && size && atoi(rank) == atoi(size) - 1)
        for (;;)
            pause(); /* returns after each signal handled (the report's SIGURG) */
    struct utsname u;
    if (uname(&u) || strlen(u.nodename) >= len)
        return -1;
    strcpy(name, u.nodename);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        stall_at = atoi(argv[1]);
    in_init = 1;
    shmem_init();
    /* Not reached while the last PE waits: the test fails on exit status 0. */
    shmem_finalize();
    return 0;
}
