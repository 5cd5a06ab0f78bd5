/* The wrapper of the paths for SHOAL_LOG=api:trace (SHMEM_DEBUG_LEVEL 3 and up): each
 * put, get, AMO, put-with-signal, fence and quiet is logged with the path it takes
 * and why, then handed to the table below. Installed only when the channel traces at
 * start-up, so it costs nothing otherwise. */
#include <stdio.h>

#include "env/log.h"
#include "transport/transport.h"

static const struct shoal_path *inner;
static struct shoal_path trace_path;

static const char *seg_name(int seg)
{
    return seg == SHOAL_SEG_HEAP ? "heap" : seg == SHOAL_SEG_DATA ? "data" : "device heap";
}

/* Why the operation goes where it goes: mapped here, a copy; else the transport. */
static const char *path_of(const struct shoal_rref *r, char *buf, size_t len)
{
    if (r->seg == SHOAL_SEG_DEVICE)
        snprintf(buf, len, "the device layer (device heap, %s)",
                 r->ptr ? "peer's memory mapped here" : "peer on another node");
    else if (r->ptr)
        snprintf(buf, len, "a same-node copy (PE %d's %s is mapped here)", r->pe,
                 seg_name(r->seg));
    else
        snprintf(buf, len, "the %s transport (PE %d is not mapped here)", r->tp->name, r->pe);
    return buf;
}

static void trace_put(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src,
                      size_t len, int nbi)
{
    char why[96];
    SHOAL_LOG(API, TRACE, "put%s of %zu bytes to PE %d, %s offset %llu: %s",
              nbi ? "_nbi" : "", len, r->pe, seg_name(r->seg), (unsigned long long)r->off,
              path_of(r, why, sizeof why));
    inner->put(ctx, r, src, len, nbi);
}

static void trace_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len,
                      int nbi)
{
    char why[96];
    SHOAL_LOG(API, TRACE, "get%s of %zu bytes from PE %d, %s offset %llu: %s",
              nbi ? "_nbi" : "", len, r->pe, seg_name(r->seg), (unsigned long long)r->off,
              path_of(r, why, sizeof why));
    inner->get(ctx, dst, r, len, nbi);
}

static void trace_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                      enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch,
                      int nbi)
{
    static const char *const ops[] = { "fetch", "set/swap", "compare-swap", "add",
                                       "and",   "or",       "xor" };
    char why[96];
    SHOAL_LOG(API, TRACE, "%s%s AMO (%u bytes) on PE %d, %s offset %llu: %s",
              fetch && op != SHOAL_AMO_READ ? "fetching " : "", ops[op],
              shoal_amo_width(type), r->pe, seg_name(r->seg), (unsigned long long)r->off,
              path_of(r, why, sizeof why));
    inner->amo(ctx, r, op, type, v, cmp, fetch, nbi);
}

static void trace_put_signal(shmem_ctx_t ctx, const struct shoal_put_signal *ps)
{
    char why[96];
    SHOAL_LOG(API, TRACE, "put-with-signal%s of %zu bytes to PE %d, signal %s %llu: %s",
              ps->nbi ? "_nbi" : "", ps->len, ps->dst.pe,
              ps->sig_op == SHOAL_AMO_ADD ? "add" : "set", (unsigned long long)ps->signal,
              path_of(&ps->dst, why, sizeof why));
    inner->put_signal(ctx, ps);
}

static void trace_fence(shmem_ctx_t ctx)
{
    SHOAL_LOG(API, TRACE, "fence on context %p: %s", (void *)ctx, shoal_tp_name());
    inner->fence(ctx);
}

static void trace_quiet(shmem_ctx_t ctx)
{
    double t0 = shoal_log_now();
    inner->quiet(ctx);
    SHOAL_LOG(API, TRACE, "quiet on context %p (%s): %.1f us", (void *)ctx, shoal_tp_name(),
              (shoal_log_now() - t0) * 1e6);
}

const struct shoal_path *shoal_path_trace_wrap(const struct shoal_path *in)
{
    inner = in;
    trace_path = (struct shoal_path){ .put = trace_put,
                                      .get = trace_get,
                                      .amo = trace_amo,
                                      .put_signal = trace_put_signal,
                                      .fence = trace_fence,
                                      .quiet = trace_quiet };
    return &trace_path;
}
