/* The network transport of a job whose PEs all share one node: nothing may reach
 * it, since every PE is mapped. Its entries report the bug instead of crashing. */
#include "transport/transport.h"

static _Noreturn void unreachable(const char *what)
{
    shoal_fatal("shoal", "internal error: %s reached the network transport in a one-node job",
                what);
}

static int none_init(void)
{
    return 0;
}
static void none_fini(void) {}
static int none_ctx_create(struct shoal_ctx *ctx)
{
    ctx->net = NULL;
    return 0;
}
static void none_ctx_destroy(struct shoal_ctx *ctx)
{
    (void)ctx;
}

static void none_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                     size_t len, int pe)
{
    (void)ctx, (void)seg, (void)off, (void)src, (void)len, (void)pe;
    unreachable("a put");
}

static void none_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len,
                     int pe)
{
    (void)ctx, (void)dst, (void)seg, (void)off, (void)len, (void)pe;
    unreachable("a get");
}

static void none_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    (void)ctx, (void)a, (void)pe;
    unreachable("an AMO");
}

static void none_put_signal(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                            size_t len, int sig_seg, uint64_t sig_off, uint64_t signal,
                            enum shoal_amo_op sig_op, int nbi, int pe)
{
    (void)ctx, (void)seg, (void)off, (void)src, (void)len, (void)sig_seg, (void)sig_off;
    (void)signal, (void)sig_op, (void)nbi, (void)pe;
    unreachable("a put-with-signal");
}

/* Ordering and completion have nothing to do: same-node transfers complete in the call. */
static void none_ctx_op(struct shoal_ctx *ctx)
{
    (void)ctx;
}
static void none_session_start(struct shoal_ctx *ctx, long options)
{
    (void)ctx, (void)options;
}
static void none_progress(void) {}

const struct shoal_transport_ops shoal_net_none = {
    .name = "none",
    .init = none_init,
    .fini = none_fini,
    .ctx_create = none_ctx_create,
    .ctx_destroy = none_ctx_destroy,
    .put = none_put,
    .put_nbi = none_put,
    .get = none_get,
    .get_nbi = none_get,
    .amo = none_amo,
    .amo_nbi = none_amo,
    .put_signal = none_put_signal,
    .fence = none_ctx_op,
    .quiet = none_ctx_op,
    .local_complete = none_ctx_op,
    .session_start = none_session_start,
    .session_stop = none_ctx_op,
    .progress = none_progress,
};
