/* The wrapper of the paths for a network transport whose peers' operations on this PE
 * wait for this PE's progress (MPI: ops->local_poll): a get served by a same-node copy
 * makes no network call, so a PE polling same-node memory with gets would never serve
 * them. Only gets are wrapped; every other entry is the inner table's own. */
#include "transport/transport.h"

static const struct shoal_path *inner;
static struct shoal_path poll_path;

static void poll_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len,
                     int nbi)
{
    inner->get(ctx, dst, r, len, nbi);
    if (r->tp == &shoal_transport_shm)
        shoal_tp_local_poll();
}

const struct shoal_path *shoal_path_poll_wrap(const struct shoal_path *in)
{
    inner = in;
    poll_path = *in;
    poll_path.get = poll_get;
    return &poll_path;
}
