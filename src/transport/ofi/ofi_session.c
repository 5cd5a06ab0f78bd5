/* Sessions (shmemx_ctx_session_start, shmem_ctx_session_start): what the
 * options switch on in this transport, and what the end of a session owes.
 *   SHMEM_SESSION_BUNDLE (= SHMEM_CTX_SESSION_BATCH)  puts carry FI_MORE, and
 *       small ones join bundles (ofi_bundle.c) unless the session names only
 *       other kinds (OP_AMO); they do outside sessions too (ofi.mode.bundle_puts),
 *       but there the progress thread sends a bundle once the PE is away;
 *   SHMEM_SESSION_OP_PWS  put-with-signal transform: signals held back, sent
 *       behind one fence when the session flushes (ofi_bundle.c);
 *   SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO  a program's non-fetching
 *       AMOs to other PEs go single-transmit: fi_inject_atomic on a second
 *       endpoint of the context that has no counters, so nothing tracks their
 *       delivery one by one, and successive ones to one word with one operation
 *       fold into one message (ofi_amo.c). Quiet, fence and the end of the session
 *       settle them: one atomic read per PE they went to, which the provider
 *       orders after them (FI_ORDER_ATOMIC_RAW), so when it returns each has been
 *       applied or lost. Where the provider does not promise that order
 *       (libfabric's shm), the option is ignored and AMOs stay reliable. */
#include <shmemx.h>
#include <stdlib.h>

#include "transport/ofi/ofi.h"

int ofi_uep_open(struct ofi_ctx *c)
{
    int rc;
    c->utouched = calloc((size_t)shoal.n_pes, 1);
    if (!c->utouched) {
        rc = -FI_ENOMEM;
        goto fail;
    }
    if ((rc = fi_endpoint(ofi.domain, ofi.info_tx, &c->uep, NULL)))
        goto fail;
    /* Its CQ is the context's: draining that progresses this endpoint too, and
     * errors arrive there. */
    if ((rc = fi_ep_bind(c->uep, &ofi.av->fid, 0)) ||
        (rc = fi_ep_bind(c->uep, &c->cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (rc = fi_enable(c->uep)))
        goto fail;
    return 1;
fail:
    shoal_warn("shmemx_ctx_session_start",
               "cannot open the endpoint for single-transmit AMOs "
               "(%s); this context's AMOs stay reliable",
               fi_strerror(-rc));
    ofi_session_close(c);
    c->unreliable = 0;
    return 0;
}

/* One atomic read per PE that got single-transmit AMOs, in batches of half the
 * bounce slots; each completes after every AMO this endpoint sent there. */
void ofi_unreliable_settle(struct ofi_ctx *c)
{
    enum { BATCH = OFI_BOUNCE_SLOTS / 2 };
    volatile int done[BATCH];
    int pe = 0;
    while (c->nutouched) {
        int n = 0;
        for (; pe < shoal.n_pes && n < BATCH; pe++) {
            if (!c->utouched[pe])
                continue;
            c->utouched[pe] = 0;
            c->nutouched--;
            struct ofi_slot *s = ofi_slot_get(c);
            s->pe = pe;
            done[n] = 0;
            s->done = &done[n++];
            struct fi_ioc src = { s->buf + 8, 1 }, res = { s->buf, 1 };
            struct fi_rma_ioc rma = { ofi_raddr(SHOAL_SEG_HEAP, 0, pe), 1,
                                      ofi_rkey(SHOAL_SEG_HEAP, pe) };
            void *desc = c->slot_desc;
            struct fi_msg_atomic msg =
                    ofi_amsg(&src, &desc, &rma, pe, FI_UINT64, FI_ATOMIC_READ, &s->fctx);
            OFI_POST(c, "fi_fetch_atomicmsg (settling single-transmit AMOs)",
                     fi_fetch_atomicmsg(c->uep, &msg, &res, &desc, 1,
                                        FI_COMPLETION | ofi.mode.op_flags));
        }
        for (int i = 0; i < n; i++)
            ofi_wait_flag(c, &done[i]);
    }
}

void ofi_session_start(struct shoal_ctx *ctx, long options)
{
    struct ofi_ctx *c = ofi_ctx_of(ctx);
    long kinds =
            options & (SHMEM_SESSION_OP_PUT | SHMEM_SESSION_OP_PWS | SHMEM_SESSION_OP_AMO);
    ofi_lock(c);
    if (options & SHMEM_SESSION_BUNDLE) {
        c->more = FI_MORE;
        c->bundling = ofi.mode.bundle_size > 0 &&
                (!kinds || (kinds & (SHMEM_SESSION_OP_PUT | SHMEM_SESSION_OP_PWS)));
    }
    c->pws_defer = !!(options & SHMEM_SESSION_OP_PWS);
    c->unreliable = (options & SHMEM_SESSION_UNRELIABLE) &&
            (options & SHMEM_SESSION_OP_AMO) && ofi.mode.unreliable_ok;
    SHOAL_LOG(OFI, DEBUG, "session with options 0x%lx: %s, %s, %s", options,
              c->bundling ? "small puts bundled" : "no bundles",
              c->pws_defer ? "signals deferred" : "signals at once",
              c->unreliable ? "AMOs single-transmit" : "AMOs reliable");
    if ((options & SHMEM_SESSION_UNRELIABLE) && !c->unreliable)
        SHOAL_LOG(OFI, DEBUG, "session: single-transmit AMOs not offered here (%s)",
                  options & SHMEM_SESSION_OP_AMO ? "the provider orders no atomics"
                                                 : "no SHMEM_SESSION_OP_AMO");
    ofi_unlock(c);
}

void ofi_session_end(struct ofi_ctx *c)
{
    SHOAL_LOG(OFI, DEBUG, "session end: %u signal(s) and %s to send", c->npws,
              c->bundle.slot ? "a bundle" : "no bundle");
    c->more = 0;
    c->bundling = c->pws_defer = c->unreliable = 0;
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    if (c->nutouched)
        ofi_unreliable_settle(c);
}

void ofi_session_stop(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    ofi_session_end(c);
    ofi_unlock(c);
}

void ofi_session_close(struct ofi_ctx *c)
{
    if (c->uep)
        fi_close(&c->uep->fid);
    c->uep = NULL;
    free(c->utouched);
    c->utouched = NULL;
    c->nutouched = 0;
}
