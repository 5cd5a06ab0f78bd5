/* The out-of-line half of rma.h's contiguous transfers. */
#include "api/rma.h"

void shoal_put_route(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                     size_t len, int pe, int nbi)
{
    struct shoal_rref r;
    shoal_remote(fn, ctx, dest, len, pe, &r);
    shoal_check_local(fn, source);
    shoal_tp_put(ctx, &r, source, len, nbi);
}

void shoal_get_route(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                     size_t len, int pe, int nbi)
{
    struct shoal_rref r;
    shoal_remote(fn, ctx, source, len, pe, &r);
    shoal_check_local(fn, dest);
    shoal_tp_get(ctx, dest, &r, len, nbi);
}
