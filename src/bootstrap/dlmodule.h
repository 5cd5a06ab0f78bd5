/* Finding Shoal's run-time modules (libshoal-NAME.so): the MPI bootstrap and the
 * transport modules (transport/module.c) load them the same way. */
#ifndef SHOAL_DLMODULE_H
#define SHOAL_DLMODULE_H

#include <stddef.h>

/* dlopens libshoal-NAME.so from libshoal's own directory, the install directory
 * or the build tree, in that order. Returns the handle, or NULL with the loader's
 * reasons in why. */
void *shoal_dlopen_module(const char *name, char *why, size_t why_len);

/* The MPI module that fits this process: "mpich" when MPICH is already loaded (a
 * hybrid program) or a PMI launcher (mpiexec.hydra, srun --mpi=pmi2) started it,
 * else "mpi" (the MPI Shoal was configured with, Open MPI on Debian). */
const char *shoal_module_mpi_name(void);

/* Loads the MPI module that fits (falling back to "mpi" when the "mpich" one is
 * not built) and returns its handle, or NULL with the reasons in why; *name is the
 * module it loaded, or on failure the one it looked for first. */
void *shoal_module_mpi_open(char *why, size_t why_len, const char **name);

#endif
