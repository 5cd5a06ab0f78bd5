/* A program that uses MPI and OpenSHMEM together under mpirun: both libraries
 * join the job through the same PMIx connection, must agree on the numbering,
 * and either may finalize first without breaking the other.
 *   argv[1] = mpi_outer    MPI_Init, shmem_init ... shmem_finalize, MPI_Finalize
 *   argv[1] = shmem_outer  shmem_init, MPI_Init ... MPI_Finalize, shmem_finalize
 *   argv[1] = shmem_first  shmem_init, MPI_Init ... shmem_finalize, MPI_Finalize
 *   argv[1] = mpi_first    MPI_Init, shmem_init ... MPI_Finalize, shmem_finalize: wrong
 *                          under SHOAL_TRANSPORT=mpi over an MPI without sessions (MPI 3),
 *                          which must say so and fail; argv[2] = ring: SHMEM puts and
 *                          barriers between MPI_Finalize and shmem_finalize */
#include <mpi.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

static long inbox;   /* symmetric: the ring neighbour's put lands here */
static long reduced; /* symmetric: shmem_long_sum_reduce's result */

/* Ends the whole job through whichever library is still up. */
static void require(int ok, const char *what)
{
    if (ok)
        return;
    fprintf(stderr, "FAIL hybrid: %s\n", what);
    int mpi_up = 0, mpi_down = 0;
    MPI_Initialized(&mpi_up);
    MPI_Finalized(&mpi_down);
    if (mpi_up && !mpi_down)
        MPI_Abort(MPI_COMM_WORLD, 1);
    shmem_global_exit(1);
}

/* Each PE puts a value into its right neighbour; n is the job size. */
static void shmem_ring(long tag)
{
    int me = shmem_my_pe(), n = shmem_n_pes();
    shmem_long_p(&inbox, tag + me, (me + 1) % n);
    shmem_barrier_all();
    require(inbox == tag + (me + n - 1) % n, "shmem ring put delivered the wrong value");
    shmem_barrier_all(); /* inbox is reused by the next round */
}

static void use_both(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    require(rank == shmem_my_pe(), "MPI rank differs from the PE number");
    require(size == shmem_n_pes(), "MPI size differs from the number of PEs");

    shmem_ring(1000);
    long mpi_sum = 0;
    MPI_Allreduce(&inbox, &mpi_sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    require(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &reduced, &inbox, 1) == 0,
            "shmem_long_sum_reduce failed");
    long n = size;
    require(mpi_sum == 1000 * n + n * (n - 1) / 2, "MPI_Allreduce sum is wrong");
    require(reduced == mpi_sum, "shmem and MPI reductions differ");
    /* The two libraries' barriers interleave without deadlock. */
    for (int i = 0; i < 5; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        shmem_barrier_all();
    }
}

/* MPI still works after shmem_finalize dropped its PMIx reference. */
static void mpi_after_shmem(void)
{
    int rank, size, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    require(sum == size * (size - 1) / 2, "MPI_Allreduce after shmem_finalize is wrong");
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int me = -1, n = 0;
    if (!strcmp(mode, "mpi_outer")) {
        MPI_Init(&argc, &argv);
        shmem_init();
        use_both();
        me = shmem_my_pe();
        n = shmem_n_pes();
        shmem_finalize();
        mpi_after_shmem();
        MPI_Finalize();
    } else if (!strcmp(mode, "shmem_outer")) {
        shmem_init();
        MPI_Init(&argc, &argv);
        use_both();
        MPI_Finalize();
        /* shmem still works after MPI_Finalize dropped its PMIx reference. */
        shmem_ring(2000);
        me = shmem_my_pe();
        n = shmem_n_pes();
        shmem_finalize();
    } else if (!strcmp(mode, "shmem_first")) {
        shmem_init();
        MPI_Init(&argc, &argv);
        use_both();
        me = shmem_my_pe();
        n = shmem_n_pes();
        shmem_finalize();
        mpi_after_shmem();
        MPI_Finalize();
    } else if (!strcmp(mode, "mpi_first")) {
        MPI_Init(&argc, &argv);
        shmem_init();
        use_both();
        MPI_Finalize();
        if (argc > 2 && !strcmp(argv[2], "ring"))
            shmem_ring(3000);
        me = shmem_my_pe();
        n = shmem_n_pes();
        shmem_finalize();
    } else {
        fprintf(stderr,
                "hybrid: mode must be mpi_outer, shmem_outer, shmem_first or mpi_first, "
                "not '%s'\n",
                mode);
        return 2;
    }
    if (me == 0)
        printf("hybrid %s: %d PEs OK\n", mode, n);
    return 0;
}
