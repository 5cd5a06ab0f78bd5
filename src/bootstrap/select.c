/* Chooses how this process joins its job. Refuses to guess when another
 * launcher started it: running N independent one-PE jobs would look like
 * success while computing nonsense. */
#include "bootstrap.h"
#include "env.h"

#include <stdio.h>

/* PMIx launchers give every process its namespace and rank; PMIx_Init finds the
 * server from the same environment. */
static int pmix_launched(const struct shoal_config *cfg)
{
    return cfg->foreign_pmix_rank >= 0 && cfg->foreign_pmix_namespace &&
            *cfg->foreign_pmix_namespace;
}

/* Names the launcher that started us when Shoal cannot talk to it, or returns 0. */
static int foreign_launcher(const struct shoal_config *cfg, char *buf, size_t len)
{
    if (cfg->foreign_ompi_size > 1)
        return snprintf(buf, len, "Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=%ld)",
                        cfg->foreign_ompi_size);
    if (cfg->foreign_pmix_rank >= 0)
        return snprintf(buf, len,
                        "a PMIx launcher such as prterun or srun --mpi=pmix (PMIX_RANK=%ld)",
                        cfg->foreign_pmix_rank);
    if (cfg->foreign_pmi_size > 1)
        return snprintf(
                buf, len,
                "a PMI launcher such as mpiexec.hydra or srun --mpi=pmi2 (PMI_SIZE=%ld)",
                cfg->foreign_pmi_size);
    if (cfg->foreign_slurm_ntasks > 1)
        return snprintf(buf, len, "Slurm's srun (SLURM_NTASKS=%ld)",
                        cfg->foreign_slurm_ntasks);
    return 0;
}

const struct shoal_boot_ops *shoal_boot_select(void)
{
    struct shoal_config cfg;
    char msg[256];

    if (shoal_env_load(&cfg, msg, sizeof msg)) {
        fprintf(stderr, "shoal: %s\n", msg);
        return NULL;
    }
    if (cfg.boot_fd >= 0)
        return &shoal_boot_oshrun;
    if (pmix_launched(&cfg)) {
#ifdef SHOAL_HAVE_PMIX
        return &shoal_boot_pmix;
#else
        fprintf(stderr,
                "shoal: this program was started by a PMIx launcher such as mpirun, "
                "prterun or srun --mpi=pmix (PMIX_RANK=%ld), but this Shoal was built "
                "without "
                "PMIx; install libpmix-dev and rebuild Shoal (cmake -DSHOAL_PMIX=ON), or "
                "launch "
                "it with `oshrun -n N prog` instead\n",
                cfg.foreign_pmix_rank);
        return NULL;
#endif
    }
    if (foreign_launcher(&cfg, msg, sizeof msg)) {
        fprintf(stderr,
                "shoal: this program was started by %s, which Shoal cannot bootstrap "
                "from in this build; launch it with `oshrun -n N prog` instead\n",
                msg);
        return NULL;
    }
    return &shoal_boot_single;
}
