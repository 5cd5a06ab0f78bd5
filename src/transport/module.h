/* Transports loaded at run time (dlopen), so that libshoal links no library they
 * need: today the MPI-3 RMA transport (libshoal-mpi.so). A module sees the library
 * only through this host table: libshoal's own symbols are hidden, and the module
 * is built from the same headers, so the version and sizes below catch a module
 * from another build. */
#ifndef SHOAL_MODULE_H
#define SHOAL_MODULE_H

#include <stddef.h>

#include "base/state.h"
#include "env/log.h"
#include "transport/transport.h"

/* Raised whenever the ops table or the host table changes shape (2: dev_ifaces,
 * 3: local_poll, 4: the log, 5: put_signal's arguments in a struct, 6: the
 * transports' state beside the library's, 7: pe_quiet). A module may leave the entries of
 * SHOAL_TP_OPTIONAL (transport.h) NULL: the loader fills them. */
#define SHOAL_MODULE_VERSION 7

struct shoal_module_host {
    int version;
    size_t state_size, tp_size, ctx_size;
    const struct shoal_state *state;
    const struct shoal_tp_state *tp; /* the device heap as the network reaches it */
    struct shoal_ctx *ctx_default;   /* the module sets its net */
    __attribute__((noreturn, format(printf, 2, 3))) void (*fatal)(const char *routine,
                                                                  const char *fmt, ...);
    void (*warn)(const char *routine, const char *fmt, ...)
            __attribute__((format(printf, 2, 3)));
    /* The debug log (core/log.h), whose mask the module reads through this pointer. */
    const uint32_t *log_mask;
    void (*log)(enum shoal_log_subsystem sub, const char *fmt, ...)
            __attribute__((format(printf, 2, 3)));
};

/* The module's one exported symbol: its ops table, or NULL after printing why the
 * module cannot run here. */
#define SHOAL_MODULE_ENTRY "shoal_module_transport"
typedef const struct shoal_transport_ops *shoal_module_entry_fn(
        const struct shoal_module_host *host);

/* Loads libshoal-NAME.so from libshoal's own directory (or the build tree) and
 * returns its table; ends the job with the reason when that fails. */
const struct shoal_transport_ops *shoal_module_load(const char *name);

#endif
