/* Loading a transport module (module.h), found where bootstrap/dlmodule.c looks. */
#include <dlfcn.h>
#include <string.h>

#include "bootstrap/dlmodule.h"
#include "transport/module.h"

/* The entries a module must fill itself. With SHOAL_TP_OPTIONAL's and the three that
 * may stay NULL (local_poll, nap, coll) they are every pointer of the table, besides
 * dev_ifaces: the assertion below fails when the table grows and these lists do not. */
/* clang-format off */
#define MODULE_REQUIRED(X) \
    X(name) \
    X(init) \
    X(fini) \
    X(ctx_create) \
    X(ctx_destroy) \
    X(put) \
    X(put_nbi) \
    X(get) \
    X(get_nbi) \
    X(amo) \
    X(amo_nbi) \
    X(put_signal) \
    X(fence) \
    X(quiet) \
    X(pe_quiet) \
    X(local_complete) \
    X(session_start) \
    X(session_stop) \
    X(progress)
/* clang-format on */
#define COUNT(...) +1
_Static_assert(sizeof(struct shoal_transport_ops) ==
                       (0 MODULE_REQUIRED(COUNT) SHOAL_TP_OPTIONAL(COUNT) + 3 + 1) *
                               sizeof(void *),
               "an entry of struct shoal_transport_ops is in neither MODULE_REQUIRED nor "
               "SHOAL_TP_OPTIONAL");
#undef COUNT

static const struct shoal_module_host host = {
    .version = SHOAL_MODULE_VERSION,
    .state_size = sizeof(struct shoal_state),
    .tp_size = sizeof(struct shoal_tp_state),
    .ctx_size = sizeof(struct shoal_ctx),
    .state = &shoal,
    .tp = &shoal_tp,
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
    Dl_info where;
    SHOAL_LOG(MPI, INFO, "%s transport: module libshoal-%s.so loaded from %s", name, file,
              dladdr((void *)entry, &where) && where.dli_fname ? where.dli_fname : "?");
    /* The module stays loaded: MPI libraries must not be unloaded once initialised.
     * It cannot reach libshoal's "not supported" entries, so it leaves them NULL and
     * they are filled here, once, as every other table has them. */
    static struct shoal_transport_ops filled;
    filled = *ops;
#define FILL(entry, stub)                                                                    \
    if (!filled.entry)                                                                       \
        filled.entry = stub;
    SHOAL_TP_OPTIONAL(FILL)
#undef FILL
    /* Every other entry is the module's own, but those the interface lets be NULL. */
#define CHECK(entry)                                                                         \
    if (!filled.entry)                                                                       \
        shoal_fatal("shmem_init",                                                            \
                    "libshoal-%s.so leaves its entry " #entry " empty: it is not a "         \
                    "module of this Shoal; reinstall Shoal",                                 \
                    name);
    MODULE_REQUIRED(CHECK)
#undef CHECK
    return &filled;
}
