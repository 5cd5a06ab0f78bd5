/* The libfabric transport's operations table. */
#include "transport/ofi/ofi.h"

static const struct shoal_transport_ops ofi_ops = {
    .name = "ofi",
    .init = ofi_net_init,
    .fini = ofi_net_fini,
    .info = ofi_info,
    .ctx_create = ofi_ctx_create,
    .ctx_destroy = ofi_ctx_destroy,
    .put = ofi_put,
    .put_nbi = ofi_put_nbi,
    .get = ofi_get,
    .get_nbi = ofi_get_nbi,
    .amo = ofi_amo,
    .amo_nbi = ofi_amo_nbi,
    .put_signal = ofi_put_signal,
    .fence = ofi_fence,
    .quiet = ofi_quiet,
    .pe_quiet = ofi_pe_quiet,
    .local_complete = ofi_local_complete,
    .session_start = ofi_session_start,
    .session_stop = ofi_session_stop,
    .progress = ofi_progress,
    /* A host alias is host memory; the rest only where the provider offers FI_HMEM
     * (ofi_init.c asks for it and refuses the job when the provider lacks it). */
    .dev_ifaces = 1u << SHOAL_DEV_IFACE_ALIAS | 1u << SHOAL_DEV_IFACE_SYSTEM |
            1u << SHOAL_DEV_IFACE_CUDA | 1u << SHOAL_DEV_IFACE_ROCR,
    .nap = ofi_nap,
    .trigger_open = ofi_trigger_open,
    .trigger_add = ofi_trigger_add,
    .trigger_close = ofi_trigger_close,
    .put_signal_triggered = ofi_put_signal_triggered,
    .counters = ofi_counters,
};

const struct shoal_transport_ops *const shoal_net_ofi = &ofi_ops;
