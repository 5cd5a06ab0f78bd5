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
    SHOAL_TP_NO_OPERATIONS,
};
