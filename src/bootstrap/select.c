/* Chooses how this process joins its job: SHOAL_BOOTSTRAP, or the launcher's
 * environment. Refuses to guess when another launcher started it: running N
 * independent one-PE jobs would look like success while computing nonsense. */
#include "bootstrap.h"
#include "env.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* PMIx launchers give every process its namespace and rank; PMIx_Init finds the
 * server from the same environment. */
static int pmix_launched(const struct shoal_config *cfg)
{
    return cfg->foreign_pmix_rank >= 0 && cfg->foreign_pmix_namespace &&
            *cfg->foreign_pmix_namespace;
}

static int mpi_transport(const struct shoal_config *cfg)
{
    return cfg->transport && strncmp(cfg->transport, "mpi", 3) == 0;
}

/* A program linked with MPI: its MPI library talks to the PMI launcher too. */
static int mpi_linked(void)
{
    return dlsym(RTLD_DEFAULT, "MPI_Init") != NULL;
}

/* Names the launcher that started us when Shoal cannot talk to it, or returns 0. */
static int foreign_launcher(const struct shoal_config *cfg, char *buf, size_t len)
{
    if (cfg->foreign_ompi_size > 1)
        return snprintf(buf, len, "Open MPI's mpirun (OMPI_COMM_WORLD_SIZE=%ld)",
                        cfg->foreign_ompi_size);
    if (cfg->foreign_pmi_port && *cfg->foreign_pmi_port)
        return snprintf(buf, len,
                        "a PMI launcher that offers a port (PMI_PORT=%s) rather than a "
                        "socket in PMI_FD",
                        cfg->foreign_pmi_port);
    if (cfg->foreign_pmi_size > 1)
        return snprintf(
                buf, len,
                "a PMI launcher such as mpiexec.hydra or srun --mpi=pmi2 (PMI_SIZE=%ld)",
                cfg->foreign_pmi_size);
    if (cfg->foreign_slurm_ntasks > 1)
        return snprintf(buf, len,
                        "Slurm's srun without --mpi=pmi2 or --mpi=pmix, which Shoal can use "
                        "(SLURM_NTASKS=%ld)",
                        cfg->foreign_slurm_ntasks);
    return 0;
}

static const struct shoal_boot_ops *pmix_or_why(const struct shoal_config *cfg)
{
#ifdef SHOAL_HAVE_PMIX
    (void)cfg;
    return &shoal_boot_pmix;
#else
    fprintf(shoal_error_stream(),
            "shoal: this program was started by a PMIx launcher such as mpirun, prterun or "
            "srun --mpi=pmix (PMIX_RANK=%ld), but this Shoal was built without PMIx; "
            "install libpmix-dev and rebuild Shoal (cmake -DSHOAL_PMIX=ON), or launch it "
            "with `oshrun -n N prog` instead\n",
            cfg->foreign_pmix_rank);
    return NULL;
#endif
}

static const struct shoal_boot_ops *mpi_or_why(void)
{
#ifdef SHOAL_HAVE_MPI_MODULE
    return &shoal_boot_mpi;
#else
    fprintf(shoal_error_stream(),
            "shoal: the MPI bootstrap needs the MPI module, but this Shoal was built "
            "without an MPI; install libopenmpi-dev or libmpich-dev and rebuild "
            "Shoal, or unset SHOAL_TRANSPORT and SHOAL_BOOTSTRAP\n");
    return NULL;
#endif
}

static const struct shoal_boot_ops *pmi(const struct shoal_config *cfg, int want)
{
    int v = shoal_boot_pmi_version(cfg, want);
    return v == 2 ? &shoal_boot_pmi2 : v == 1 ? &shoal_boot_pmi1 : NULL;
}

/* SHOAL_BOOTSTRAP names a backend: it must find the launcher it needs. */
static const struct shoal_boot_ops *named(const struct shoal_config *cfg, const char *b)
{
    const char *need = NULL;
    if (!strcmp(b, "oshrun")) {
        if (cfg->boot_fd >= 0)
            return &shoal_boot_oshrun;
        need = "oshrun (SHOAL_BOOT_FD is not set)";
    } else if (!strcmp(b, "pmix")) {
        if (pmix_launched(cfg))
            return pmix_or_why(cfg);
        need = "a PMIx launcher such as mpirun or srun --mpi=pmix (PMIX_RANK is not set)";
    } else if (!strcmp(b, "pmi1") || !strcmp(b, "pmi2")) {
        if (cfg->foreign_pmi_fd >= 0)
            return pmi(cfg, b[3] - '0');
        need = "a PMI launcher such as mpiexec.hydra or srun --mpi=pmi2 (PMI_FD is not set)";
    } else if (!strcmp(b, "mpi")) {
        return mpi_or_why();
    } else {
        return &shoal_boot_single; /* "single": the env table accepts no other word */
    }
    fprintf(shoal_error_stream(),
            "shoal: SHOAL_BOOTSTRAP=%s needs the program started by %s; start it so, or "
            "unset SHOAL_BOOTSTRAP\n",
            b, need);
    return NULL;
}

const struct shoal_boot_ops *shoal_boot_select(void)
{
    struct shoal_config cfg;
    char msg[256];

    if (shoal_env_load(&cfg, msg, sizeof msg)) {
        fprintf(shoal_error_stream(), "shoal: %s\n", msg);
        return NULL;
    }
    if (cfg.bootstrap && *cfg.bootstrap && strcmp(cfg.bootstrap, "auto"))
        return named(&cfg, cfg.bootstrap);
    if (cfg.boot_fd >= 0)
        return &shoal_boot_oshrun;
    if (pmix_launched(&cfg))
        return pmix_or_why(&cfg);
    if (cfg.foreign_pmix_rank >= 0) {
        fprintf(shoal_error_stream(),
                "shoal: PMIX_RANK=%ld is set but PMIX_NAMESPACE is %s, so the PMIx launcher "
                "that set it cannot be joined; start the program directly under mpirun, "
                "prterun or srun --mpi=pmix (or unset PMIX_RANK to run it alone)\n",
                cfg.foreign_pmix_rank, shoal_env_get("PMIX_NAMESPACE") ? "empty" : "not set");
        return NULL;
    }
    /* The MPI transport, and a program that uses MPI itself, take the job from MPI:
     * the MPI library is then the launcher's only client, as PMI allows no second
     * on the same socket. */
    if ((mpi_transport(&cfg) || mpi_linked()) &&
        (cfg.foreign_pmi_fd >= 0 || (cfg.foreign_pmi_port && *cfg.foreign_pmi_port)))
        return mpi_or_why();
    if (cfg.foreign_pmi_fd >= 0)
        return pmi(&cfg, 0);
    if (foreign_launcher(&cfg, msg, sizeof msg)) {
        fprintf(shoal_error_stream(),
                "shoal: this program was started by %s, which Shoal cannot bootstrap "
                "from in this build; launch it with `oshrun -n N prog` instead\n",
                msg);
        return NULL;
    }
    return &shoal_boot_single;
}
