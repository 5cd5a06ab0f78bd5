/* Device-aware paths of the API layer (dev_route.c): RMA, AMOs and reads of objects in
 * the device heap, and of local buffers in device memory. The API layer takes them
 * only when shoal.dev_paths is set (one predictable branch otherwise): a job that
 * uses no device memory keeps its load/store hot path untouched. */
#ifndef SHOAL_DEV_ROUTE_H
#define SHOAL_DEV_ROUTE_H

#include "core/state.h"

/* p lies in this PE's device heap. */
static inline int shoal_dev_sym(const void *p)
{
    return (uintptr_t)p - shoal.seg[SHOAL_SEG_DEVICE].base < shoal.seg[SHOAL_SEG_DEVICE].size;
}

/* A contiguous put (is_put) or get between local buffer and symmetric object on the
 * team-relative PE pe of ctx, whichever memory each lives in. */
void shoal_dev_rma(const char *fn, shmem_ctx_t ctx, void *dest, const void *source, size_t len,
                   int pe, int nbi, int is_put);
/* Strided forms (api/rma.h's shoal_strided), block by block. */
void shoal_dev_strided(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t esize,
                       int pe, int is_put);
/* The payload of a put-with-signal, complete at the target before its signal. */
void shoal_dev_put_payload(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                           size_t len, int pe);
/* shoal_net_amo's device cases: a target in the device heap (the locked fallback), or
 * a fetch buffer in device memory. 1 when handled, 0 when the caller proceeds. */
int shoal_dev_amo(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type, void *dest,
                  const void *operand, const void *compare, void *fetch, int wpe);
/* A CPU AMO's fetched value to the caller's buffer, device memory or not. */
void shoal_dev_store_result(const char *fn, void *fetch, const void *val, size_t len);
/* Reads len bytes of this PE's own device-heap object (waits, tests, signal fetch). */
void shoal_dev_read_sym(void *dst, const void *sym, size_t len);

#endif
