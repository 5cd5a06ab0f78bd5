/* Loading a transport module (module.h). It lives beside libshoal.so when installed
 * and in the build tree's src/ when tests run; a static libshoal has no directory of
 * its own, so the install and build paths compiled in are tried after it. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "build_info.h"
#include "transport/module.h"

static const struct shoal_module_host host = {
    .version = SHOAL_MODULE_VERSION,
    .state_size = sizeof(struct shoal_state),
    .ctx_size = sizeof(struct shoal_ctx),
    .state = &shoal,
    .ctx_default = &shoal_ctx_default,
    .fatal = shoal_fatal,
    .warn = shoal_warn,
};

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

const struct shoal_transport_ops *shoal_module_load(const char *name)
{
    char why[2048] = "";
    void *h = NULL;
    Dl_info self;
    if (dladdr((void *)shoal_module_load, &self) && self.dli_fname) {
        const char *slash = strrchr(self.dli_fname, '/');
        if (slash)
            h = try_dir(self.dli_fname, (size_t)(slash - self.dli_fname), name, why,
                        sizeof why);
    }
    if (!h)
        h = try_dir(SHOAL_MODULE_INSTALL_DIR, strlen(SHOAL_MODULE_INSTALL_DIR), name, why,
                    sizeof why);
    if (!h)
        h = try_dir(SHOAL_MODULE_BUILD_DIR, strlen(SHOAL_MODULE_BUILD_DIR), name, why,
                    sizeof why);
    if (!h)
        shoal_fatal("shmem_init",
                    "cannot load the %s transport module libshoal-%s.so (%s); "
                    "build Shoal with its library found (for mpi: install libopenmpi-dev) "
                    "and install the module beside libshoal.so, or unset SHOAL_TRANSPORT",
                    name, name, why);
    shoal_module_entry_fn *entry = (shoal_module_entry_fn *)dlsym(h, SHOAL_MODULE_ENTRY);
    if (!entry)
        shoal_fatal("shmem_init",
                    "libshoal-%s.so has no %s: it is not a Shoal module; "
                    "reinstall Shoal",
                    name, SHOAL_MODULE_ENTRY);
    const struct shoal_transport_ops *ops = entry(&host);
    if (!ops)
        shoal_fatal("shmem_init", "the %s transport cannot run in this job (reason above)",
                    name);
    /* The module stays loaded: MPI libraries must not be unloaded once initialised. */
    return ops;
}
