/* Built instead of the libfabric transport when libfabric was not found: a job
 * that spans nodes then stops at shmem_init with the remedy (core/init.c). */
#include "transport/net.h"

const struct shoal_net_ops *const shoal_net_ofi = NULL;
