/* Bootstrap from MPI itself (SHOAL_TRANSPORT=mpi|mpi-all, or a program linked with
 * MPI under a PMI launcher): size, rank and the setup exchanges come from MPI (an MPI
 * session of Shoal's own, or MPI_COMM_WORLD: transport/mpi/mpi_world.c), so whatever
 * launcher starts the MPI job (mpiexec.hydra, mpirun, srun) starts the SHMEM job,
 * through the MPI library's own client. The MPI calls live in the MPI module
 * (libshoal-mpi.so, transport/mpi/mpi_boot.c), loaded here, so libshoal links no MPI. */
#include "bootstrap.h"
#include "env.h"
#include "dlmodule.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct shoal_boot_ops *mod;

static int mpi_boot_init(struct shoal_boot_info *info)
{
    char why[2048];
    const char *name;
    void *h = shoal_module_mpi_open(why, sizeof why, &name);
    if (!h) {
        fprintf(shoal_error_stream(),
                "shoal: shmem_init: the MPI bootstrap cannot load libshoal-%s.so (%s); "
                "build Shoal with that MPI found (libopenmpi-dev, libmpich-dev) and install "
                "the module beside libshoal.so, or unset SHOAL_TRANSPORT and "
                "SHOAL_BOOTSTRAP\n",
                name, why);
        return -1;
    }
    shoal_module_boot_fn *entry = (shoal_module_boot_fn *)dlsym(h, SHOAL_MODULE_BOOT_ENTRY);
    if (!entry) {
        fprintf(shoal_error_stream(),
                "shoal: shmem_init: libshoal-%s.so has no %s: it is from another Shoal "
                "build; install both from the same build\n",
                name, SHOAL_MODULE_BOOT_ENTRY);
        return -1;
    }
    /* The module stays loaded: MPI libraries must not be unloaded once initialised. */
    mod = entry(shoal_error_stream());
    return mod->init(info);
}

static int mpi_boot_barrier(void)
{
    return mod->barrier();
}

static int mpi_boot_allgather(const void *in, void *out, size_t len)
{
    return mod->allgather(in, out, len);
}

static void mpi_boot_finalize(void)
{
    mod->finalize();
}

static void mpi_boot_publish_last_sync(uint64_t syncs)
{
    mod->publish_last_sync(syncs);
}

static int mpi_boot_first_left(uint64_t *syncs)
{
    return mod ? mod->first_left(syncs) : -1;
}

static __attribute__((noreturn)) void mpi_boot_abort(int status, const char *msg)
{
    if (mod)
        mod->abort(status, msg);
    fflush(NULL);
    if (msg && *msg)
        fprintf(shoal_error_stream(), "%s\n", msg);
    _exit(status);
}

const struct shoal_boot_ops shoal_boot_mpi = {
    .name = "mpi",
    .init = mpi_boot_init,
    .barrier = mpi_boot_barrier,
    .allgather = mpi_boot_allgather,
    .finalize = mpi_boot_finalize,
    .publish_last_sync = mpi_boot_publish_last_sync,
    .first_left = mpi_boot_first_left,
    .abort = mpi_boot_abort,
};
