/* The out-of-line half of rma.h's contiguous transfers: the reference rma.h resolved,
 * put back together. */
#include "api/rma.h"

void shoal_put_route(const char *fn, shmem_ctx_t ctx, char *ptr,
                     const struct shoal_transport_ops *tp, int seg, int pe, uint64_t off,
                     const void *source, size_t len, int nbi)
{
    struct shoal_rref r = { .ptr = ptr, .tp = tp, .seg = seg, .pe = pe, .off = off };
    shoal_check_local(fn, source);
    shoal_tp_put(ctx, &r, source, len, nbi);
}

void shoal_get_route(const char *fn, shmem_ctx_t ctx, void *dest, char *ptr,
                     const struct shoal_transport_ops *tp, int seg, int pe, uint64_t off,
                     size_t len, int nbi)
{
    struct shoal_rref r = { .ptr = ptr, .tp = tp, .seg = seg, .pe = pe, .off = off };
    shoal_check_local(fn, dest);
    shoal_tp_get(ctx, dest, &r, len, nbi);
}
