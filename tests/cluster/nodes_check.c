/* A job across real hosts: the PEs must find their nodes from the host names alone
 * (shmem_ptr reaches exactly the PEs of the same host), and puts and atomics must
 * arrive between every pair of PEs, over shared memory inside a host and the network
 * between hosts.
 * usage: nodes_check HOSTS   (the number of distinct hosts the job must span) */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HOST_LEN 64
#define MAX_PES 256

static char my_host[HOST_LEN];
static char hosts[MAX_PES * HOST_LEN];
static long inbox[MAX_PES];
static long counter;

static int fail(int me, const char *what)
{
    fprintf(stderr, "nodes_check: PE %d: %s\n", me, what);
    shmem_global_exit(1);
    return 1;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (argc != 2)
        return fail(me, "usage: nodes_check HOSTS");
    if (n > MAX_PES)
        return fail(me, "too many PEs for this check (256 at most)");
    gethostname(my_host, HOST_LEN - 1);
    shmem_fcollectmem(SHMEM_TEAM_WORLD, hosts, my_host, HOST_LEN);

    int distinct = 0, same = 0;
    for (int pe = 0; pe < n; pe++) {
        const char *h = hosts + (size_t)pe * HOST_LEN;
        int first = 1;
        for (int q = 0; q < pe && first; q++)
            first = strcmp(hosts + (size_t)q * HOST_LEN, h) != 0;
        distinct += first;
        int here = strcmp(h, my_host) == 0;
        same += here;
        /* shmem_ptr: a load/store mapping exactly for the PEs of this host. */
        if ((shmem_ptr(inbox, pe) != NULL) != here) {
            char msg[256];
            snprintf(msg, sizeof msg,
                     "shmem_ptr to PE %d on %.63s is %s, but this PE is on %.63s", pe, h,
                     here ? "NULL" : "a pointer", my_host);
            return fail(me, msg);
        }
    }
    if (distinct != atoi(argv[1])) {
        char msg[128];
        snprintf(msg, sizeof msg, "the job spans %d hosts, expected %s", distinct, argv[1]);
        return fail(me, msg);
    }
    if (shmem_team_n_pes(SHMEM_TEAM_SHARED) != same &&
        shmem_team_n_pes(SHMEM_TEAM_SHARED) != 1)
        return fail(me, "SHMEM_TEAM_SHARED is neither this host's PEs nor this PE alone");

    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&inbox[me], 1000L * me + pe, pe);
    shmem_long_atomic_add(&counter, me + 1, 0);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        if (inbox[pe] != 1000L * pe + me) {
            char msg[128];
            snprintf(msg, sizeof msg, "inbox[%d] holds %ld, expected %ld", pe, inbox[pe],
                     1000L * pe + me);
            return fail(me, msg);
        }
    if (me == 0 && counter != (long)n * (n + 1) / 2)
        return fail(me, "the atomic sum at PE 0 is wrong");
    printf("PE %d of %d on %s: %d PEs share this host\n", me, n, my_host, same);
    shmem_barrier_all();
    if (me == 0)
        printf("nodes_check: %d PEs on %d hosts: ok\n", n, distinct);
    shmem_finalize();
    return 0;
}
