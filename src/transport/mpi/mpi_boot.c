/* The MPI bootstrap's calls (bootstrap/boot_mpi.c loads this module for them): the
 * job is Shoal's own communicator over every process (mpi_world.c), its barrier and
 * allgather are MPI's on it, and MPI_Abort ends it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "transport/mpi/mpi_tr.h"

static struct mpi_world boot_world = MPI_WORLD_CLOSED;
static MPI_Comm boot_comm = MPI_COMM_NULL;
static int boot_rank = -1;
static FILE *boot_err; /* SHMEM_ERROR_FILE's stream, from libshoal */

static int mb_init(struct shoal_boot_info *info)
{
    int want = mpi_level(info->thread_level), have = MPI_THREAD_SINGLE;
    int rc = mpi_world_open(&boot_world, want, &have, "shoal.bootstrap");
    if (rc == MPI_WORLD_FINALIZED) {
        fprintf(boot_err,
                "shoal: shmem_init: the application has already called MPI_Finalize, so "
                "the MPI bootstrap cannot start; call shmem_init before it\n");
        return -1;
    }
    if (rc) {
        fprintf(boot_err,
                "shoal: shmem_init: MPI could not start (%s); start the program with "
                "the launcher of the MPI Shoal's module uses\n",
                MPI_VERSION >= 4 ? "MPI_Session_init" : "MPI_Init_thread");
        return -1;
    }
    boot_comm = boot_world.comm;
    MPI_Comm_rank(boot_comm, &boot_rank);
    if (have < want) {
        fprintf(boot_err,
                "shoal: PE %d: shmem_init: the SHMEM thread level needs %s, but MPI "
                "provides %s; %s\n",
                boot_rank, mpi_level_name(want), mpi_level_name(have),
                boot_world.own_mpi ? "use an MPI built with thread support, or request a "
                                     "lower level in shmem_init_thread"
                                   : "initialise MPI with MPI_Init_thread at that level");
        mpi_world_close(&boot_world);
        boot_comm = MPI_COMM_NULL;
        return -1;
    }
    int size;
    MPI_Comm_size(boot_comm, &size);
    info->rank = boot_rank;
    info->size = size;
    return 0;
}

static int mb_barrier(void)
{
    return MPI_Barrier(boot_comm) == MPI_SUCCESS ? 0 : -1;
}

static int mb_allgather(const void *in, void *out, size_t len)
{
    if (len > (size_t)INT32_MAX) {
        fprintf(boot_err,
                "shoal: PE %d: a setup exchange of %zu bytes is more than MPI "
                "takes in one call; report this as a bug\n",
                boot_rank, len);
        return -1;
    }
    /* In place: in may overlap out, which MPI forbids between send and receive. */
    memmove((char *)out + (size_t)boot_rank * len, in, len);
    int rc = MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, (int)len, MPI_BYTE,
                           boot_comm);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static void mb_finalize(void)
{
    mpi_world_close(&boot_world);
    boot_comm = MPI_COMM_NULL;
}

/* MPI cannot tell, without a collective, that a peer has left. */
static void mb_publish_last_sync(uint64_t syncs)
{
    (void)syncs;
}

static int mb_first_left(uint64_t *syncs)
{
    (void)syncs;
    return -1;
}

static __attribute__((noreturn)) void mb_abort(int status, const char *msg)
{
    shoal_boot_abort_notice(boot_err, boot_rank, status, msg);
    shoal_boot_abort_pause();
    if (boot_comm == MPI_COMM_NULL || mpi_world_lost(&boot_world))
        _exit(status);
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
#ifdef MPICH_VERSION
    /* Only MPI_COMM_WORLD's abort hands the status to the launcher: MPICH ends a job
     * whose session communicator aborts with the other processes killed. Its world
     * model starts without the other processes, unless the application ended it. */
    if (!up && !down) {
        int have;
        up = MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &have) == MPI_SUCCESS;
    }
#endif
    MPI_Abort(up && !down ? MPI_COMM_WORLD : boot_comm, status);
    _exit(status);
}

static const struct shoal_boot_ops mpi_boot_ops = {
    .name = "mpi",
    .init = mb_init,
    .barrier = mb_barrier,
    .allgather = mb_allgather,
    .finalize = mb_finalize,
    .publish_last_sync = mb_publish_last_sync,
    .first_left = mb_first_left,
    .abort = mb_abort,
};

__attribute__((visibility("default"))) const struct shoal_boot_ops *shoal_module_boot(
        FILE *err);

const struct shoal_boot_ops *shoal_module_boot(FILE *err)
{
    boot_err = err;
    return &mpi_boot_ops;
}
