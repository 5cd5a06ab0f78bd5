/* The network transport of a job whose PEs all share one node: nothing may reach
 * its data entries, since every PE is mapped; they report the bug instead of
 * crashing. Ordering and completion have nothing to do: same-node transfers complete
 * in the call. */
#include "transport/transport.h"

static int none_init(void)
{
    return 0;
}
static void none_fini(void) {}

const struct shoal_transport_ops shoal_net_none = {
    .name = "none",
    .init = none_init,
    .fini = none_fini,
    .info = shoal_tp_no_info,
    .ctx_create = shoal_tp_no_ctx_create,
    .ctx_destroy = shoal_tp_no_ctx_op,
    .put = shoal_tp_no_put,
    .put_nbi = shoal_tp_no_put,
    .get = shoal_tp_no_get,
    .get_nbi = shoal_tp_no_get,
    .amo = shoal_tp_no_amo,
    .amo_nbi = shoal_tp_no_amo,
    .put_signal = shoal_tp_no_put_signal,
    .fence = shoal_tp_no_ctx_op,
    .quiet = shoal_tp_no_ctx_op,
    .local_complete = shoal_tp_no_ctx_op,
    .session_start = shoal_tp_no_session_start,
    .session_stop = shoal_tp_no_ctx_op,
    .progress = shoal_tp_no_progress,
    .trigger_open = shoal_tp_no_trigger_open,
    .trigger_add = shoal_tp_no_trigger_add,
    .trigger_close = shoal_tp_no_trigger_close,
    .put_signal_triggered = shoal_tp_no_put_signal_triggered,
    .counters = shoal_tp_no_counters,
};
