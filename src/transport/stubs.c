/* The "not supported" entries backends put in their tables instead of NULL
 * (transport.h), so that no caller tests an entry before calling it. */
#include "transport/transport.h"

void *shoal_tp_no_trigger_open(void)
{
    return NULL;
}

/* Only a counter trigger_open gave reaches these: never one of these tables'. */
static _Noreturn void unreachable(const char *what)
{
    shoal_fatal("shoal", "internal error: %s reached the %s transport, which cannot take it",
                what, shoal_tp_name());
}

void shoal_tp_no_trigger_add(void *counter, uint64_t n)
{
    (void)counter, (void)n;
    unreachable("a trigger increment");
}

void shoal_tp_no_trigger_close(void *counter)
{
    (void)counter;
    unreachable("a trigger's close");
}

void shoal_tp_no_put_signal_triggered(struct shoal_ctx *ctx,
                                      const struct shoal_put_signal *ps, void *counter,
                                      uint64_t threshold)
{
    (void)ctx, (void)ps, (void)counter, (void)threshold;
    unreachable("a triggered put-with-signal");
}

void shoal_tp_no_counters(struct shoal_ctx *ctx, struct shoal_net_counts *n)
{
    (void)ctx;
    *n = (struct shoal_net_counts){ .held = 1 };
}

void shoal_tp_no_info(void) {}

void shoal_tp_no_put(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                     size_t len, int pe)
{
    (void)ctx, (void)seg, (void)off, (void)src, (void)len, (void)pe;
    unreachable("a put");
}

void shoal_tp_no_get(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len,
                     int pe)
{
    (void)ctx, (void)dst, (void)seg, (void)off, (void)len, (void)pe;
    unreachable("a get");
}

void shoal_tp_no_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    (void)ctx, (void)a, (void)pe;
    unreachable("an AMO");
}

void shoal_tp_no_put_signal(struct shoal_ctx *ctx, const struct shoal_put_signal *ps)
{
    (void)ctx, (void)ps;
    unreachable("a put-with-signal");
}

int shoal_tp_no_ctx_create(struct shoal_ctx *ctx)
{
    ctx->net = NULL;
    return 0;
}

void shoal_tp_no_ctx_op(struct shoal_ctx *ctx)
{
    (void)ctx;
}

void shoal_tp_no_pe_quiet(struct shoal_ctx *ctx, int pe)
{
    (void)ctx, (void)pe;
}

void shoal_tp_no_session_start(struct shoal_ctx *ctx, long options)
{
    (void)ctx, (void)options;
}

void shoal_tp_no_progress(void) {}
