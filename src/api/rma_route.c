/* The out-of-line half of rma.h's contiguous transfers. */
#include "api/rma.h"

void shoal_put_route(const char *fn, shmem_ctx_t ctx, struct shoal_rref r, const void *source,
                     size_t len, int nbi)
{
    shoal_check_local(fn, source);
    shoal_tp_put(ctx, &r, source, len, nbi);
}

void shoal_get_route(const char *fn, shmem_ctx_t ctx, void *dest, struct shoal_rref r,
                     size_t len, int nbi)
{
    shoal_check_local(fn, dest);
    shoal_tp_get(ctx, dest, &r, len, nbi);
}
