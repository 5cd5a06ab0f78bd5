/* Where run-time modules live: beside libshoal.so when installed, in the build
 * tree's src/ when tests run; a static libshoal has no directory of its own, so
 * the install and build paths compiled in are tried after it. */
#include "dlmodule.h"
#include "build_info.h"
#include "env.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* Opens dir/libshoal-NAME.so; on failure appends dlerror's reason to why. */
static void *try_dir(const char *dir, size_t dir_len, const char *name, char *why,
                     size_t why_len)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%.*s/libshoal-%s.so", (int)dir_len, dir, name) >=
        (int)sizeof path)
        return NULL;
    /* RTLD_GLOBAL: MPI libraries load plugins of their own that look up the MPI
     * library's symbols globally. */
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        size_t used = strlen(why);
        snprintf(why + used, why_len - used, "%s%s", used ? "; " : "", dlerror());
    }
    return h;
}

void *shoal_dlopen_module(const char *name, char *why, size_t why_len)
{
    void *h = NULL;
    Dl_info self;
    why[0] = 0;
    if (dladdr((void *)shoal_dlopen_module, &self) && self.dli_fname) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash)
            h = try_dir(self.dli_fname, (size_t)(slash - self.dli_fname), name, why, why_len);
    }
    if (!h)
        h = try_dir(SHOAL_MODULE_INSTALL_DIR, strlen(SHOAL_MODULE_INSTALL_DIR), name, why,
                    why_len);
    if (!h)
        h = try_dir(SHOAL_MODULE_BUILD_DIR, strlen(SHOAL_MODULE_BUILD_DIR), name, why,
                    why_len);
    return h;
}

const char *shoal_module_mpi_name(void)
{
    /* An MPI already in the process decides: the module must use that one. */
    void *init = dlsym(RTLD_DEFAULT, "MPI_Init");
    Dl_info where;
    if (init && dladdr(init, &where) && where.dli_fname)
        return strstr(where.dli_fname, "mpich") ? "mpich" : "mpi";
    struct shoal_config cfg;
    char err[256];
    if (!shoal_env_load(&cfg, err, sizeof err) && cfg.foreign_pmi_fd >= 0 &&
        cfg.foreign_pmix_rank < 0)
        return "mpich";
    return "mpi";
}

void *shoal_module_mpi_open(char *why, size_t why_len, const char **name)
{
    *name = shoal_module_mpi_name();
    void *h = shoal_dlopen_module(*name, why, why_len);
    /* A build whose one MPI module is MPICH's names it "mpi". */
    if (!h && strcmp(*name, "mpi")) {
        char why2[1024];
        h = shoal_dlopen_module("mpi", why2, sizeof why2);
        if (h)
            *name = "mpi";
    }
    return h;
}
