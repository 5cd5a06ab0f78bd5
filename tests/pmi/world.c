/* Every PE of a job started by another launcher sees the same world: the PE count
 * and number the launcher gave (PMI_SIZE/PMI_RANK, when it sets them), distinct
 * numbers, the node the launcher placed it on (its PE count there, when the launcher
 * says), data exchanged through the symmetric heap, and barriers that hold; and no
 * start-up table of the node is left for any process to open. */
#include <dirent.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROUNDS 20

static long slots[1024];
static long counter;

/* The PEs the launcher placed on this host, or -1 when it does not say or Shoal is
 * told to see other nodes (SHOAL_NODE_MAP; mpi-all: every PE its own). */
static int launcher_local_size(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_LOCAL_SIZE"), *t = getenv("SHOAL_TRANSPORT");
    if (!v)
        v = getenv("MPI_LOCALNRANKS"); /* hydra */
    if (getenv("SHOAL_NODE_MAP") || (t && !strcmp(t, "mpi-all")))
        return -1;
    return v ? atoi(v) : -1;
}

/* A descriptor of this process still open on a node-exchange memfd, or NULL. */
static const char *open_node_table(void)
{
    static char link[256];
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        char path[300];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = 0;
            if (strstr(link, "memfd:shoal-node")) {
                closedir(d);
                return link;
            }
        }
    }
    if (d)
        closedir(d);
    return NULL;
}

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "world: PE %d: ", me);                                               \
        fprintf(stderr, __VA_ARGS__);                                                        \
        fputc('\n', stderr);                                                                 \
        shmem_global_exit(1);                                                                \
    } while (0)

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n > 1024)
        FAIL("more than 1024 PEs");
    const char *size = getenv("PMI_SIZE"), *rank = getenv("PMI_RANK");
    if (size && atoi(size) != n)
        FAIL("%d PEs but PMI_SIZE=%s", n, size);
    if (rank && atoi(rank) != me)
        FAIL("PE %d but PMI_RANK=%s", me, rank);
    int local = launcher_local_size(), shared = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    if (local > 0 && shared != local)
        FAIL("SHMEM_TEAM_SHARED has %d PEs but the launcher placed %d on this node", shared,
             local);
    const char *left = open_node_table();
    if (left)
        FAIL("shmem_init left %s open: the node's start-up table stays reachable through "
             "/proc/%d/fd",
             left, (int)getpid());

    /* Exchange: every PE writes its number into its slot on every PE. */
    for (int pe = 0; pe < n; pe++)
        shmem_long_p(&slots[me], 1000L + me, pe);
    shmem_barrier_all();
    for (int pe = 0; pe < n; pe++)
        if (slots[pe] != 1000L + pe)
            FAIL("slot %d holds %ld, expected %ld: PE numbers are not distinct", pe,
                 slots[pe], 1000L + pe);

    /* Barriers hold: in round r every PE adds 1 at PE 0, which sees r*n after it. */
    for (int r = 1; r <= ROUNDS; r++) {
        shmem_long_atomic_inc(&counter, 0);
        shmem_barrier_all();
        if (me == 0 && shmem_long_atomic_fetch(&counter, 0) != (long)r * n)
            FAIL("after barrier %d the counter is %ld, expected %ld", r,
                 shmem_long_atomic_fetch(&counter, 0), (long)r * n);
        shmem_barrier_all();
    }

    /* A collective over the world: the sum of all PE numbers. */
    static long src, dst;
    src = me;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &dst, &src, 1);
    if (dst != (long)n * (n - 1) / 2)
        FAIL("sum of PE numbers %ld, expected %ld", dst, (long)n * (n - 1) / 2);
    if (me == 0)
        printf("world: %d PEs: OK\n", n);
    shmem_finalize();
    return 0;
}
