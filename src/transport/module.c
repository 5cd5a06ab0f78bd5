/* Loading a transport module (module.h), found where bootstrap/dlmodule.c looks. */
#include <dlfcn.h>
#include <string.h>

#include "bootstrap/dlmodule.h"
#include "transport/module.h"

static const struct shoal_module_host host = {
    .version = SHOAL_MODULE_VERSION,
    .state_size = sizeof(struct shoal_state),
    .ctx_size = sizeof(struct shoal_ctx),
    .state = &shoal,
    .ctx_default = &shoal_ctx_default,
    .fatal = shoal_fatal,
    .warn = shoal_warn,
    .log_mask = &shoal_log_mask,
    .log = shoal_log_emit,
};

const struct shoal_transport_ops *shoal_module_load(const char *name)
{
    char why[2048];
    const char *file = name;
    /* The MPI module is the one of the MPI this process runs under, as for the MPI
     * bootstrap, which may have loaded it already. */
    void *h = strcmp(name, "mpi") ? shoal_dlopen_module(name, why, sizeof why)
                                  : shoal_module_mpi_open(why, sizeof why, &file);
    if (!h)
        shoal_fatal("shmem_init",
                    "cannot load the %s transport module libshoal-%s.so (%s); "
                    "build Shoal with its library found (for mpi: install libopenmpi-dev "
                    "or libmpich-dev) and install the module beside libshoal.so, or unset "
                    "SHOAL_TRANSPORT",
                    name, file, why);
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
    SHOAL_LOG(MPI, INFO, "transport module libshoal-%s.so loaded (%s)", name, file);
    /* The module stays loaded: MPI libraries must not be unloaded once initialised.
     * It cannot reach libshoal's "not supported" entries, so it leaves them NULL and
     * they are filled here, once, as every other table has them. */
    static struct shoal_transport_ops filled;
    filled = *ops;
    if (!filled.info)
        filled.info = shoal_tp_no_info;
    if (!filled.trigger_open) {
        filled.trigger_open = shoal_tp_no_trigger_open;
        filled.trigger_add = shoal_tp_no_trigger_add;
        filled.trigger_close = shoal_tp_no_trigger_close;
        filled.put_signal_triggered = shoal_tp_no_put_signal_triggered;
    }
    if (!filled.counters)
        filled.counters = shoal_tp_no_counters;
    return &filled;
}
