/* Triggered put-with-signal over libfabric (FI_TRIGGER): the payload write and the
 * signal atomic are posted now with a fi_triggered_context naming a counter and a
 * threshold, and the provider issues both when the counter gets there. Used only
 * where the provider orders writes and atomics to a target (FI_ORDER_WAW), so the
 * two fire in order without a fence; elsewhere the API layer keeps the operation
 * and issues it itself (api/trigger.c).
 * They go on an endpoint of their own per context (tep), whose write counter
 * (tcntr) counts nothing else: a quiet waits there for the operations whose
 * trigger has fired, and leaves the others be. So the context's own counters and
 * quiet's reads (SHMEM_OFI_QUIET=auto) never wait for an operation the NIC still
 * holds, and contexts that share the default context's endpoint (a barrier quiets
 * it) can post them too; a quiet on the context that posted one that has not
 * fired is the program's mistake, which the API layer reports (api/trigger.c). */
#include <stdlib.h>
#include <rdma/fi_trigger.h>

#include "transport/ofi/ofi.h"

struct ofi_trig_op {
    struct fi_triggered_context put, sig; /* must live until the operations run */
    uint64_t signal;
    struct fid_cntr *cntr;
    uint64_t threshold;
    unsigned nops; /* operations posted: 2, or 1 without a payload */
    int fired;     /* its trigger had fired when quiet last looked */
    struct ofi_trig_op *next;
};

/* c's trigger endpoint and its write counter, opened at its first triggered
 * operation; its errors arrive on c's CQ. 0, or the provider's error. */
static int tep_open(struct ofi_ctx *c)
{
    struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
    int rc;
    if ((rc = fi_endpoint(ofi.domain, ofi.info_tx, &c->tep, NULL)) ||
        (rc = fi_cntr_open(ofi.domain, &attr, &c->tcntr, NULL)) ||
        (rc = fi_ep_bind(c->tep, &ofi.av->fid, 0)) ||
        (rc = fi_ep_bind(c->tep, &c->cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (rc = fi_ep_bind(c->tep, &c->tcntr->fid, FI_WRITE)) || (rc = fi_enable(c->tep))) {
        ofi_trigger_close_ep(c);
        return rc;
    }
    c->tdone = 0;
    return 0;
}

void *ofi_trigger_open(void)
{
    if (!ofi.mode.trigger_ok)
        return NULL;
    struct fi_cntr_attr attr = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_NONE };
    struct fid_cntr *cntr = NULL;
    int rc = fi_cntr_open(ofi.domain, &attr, &cntr, NULL);
    if (rc) {
        shoal_warn("shmemx_trigger_create",
                   "libfabric counter creation failed (%s); this "
                   "trigger's operations are issued by the library",
                   fi_strerror(-rc));
        return NULL;
    }
    return cntr;
}

void ofi_trigger_add(void *counter, uint64_t n)
{
    int rc = fi_cntr_add((struct fid_cntr *)counter, n);
    if (rc)
        ofi_fatal_rc("fi_cntr_add (shmemx_trigger_increment)", rc,
                     "check the provider (SHMEM_OFI_PROVIDER)");
}

void ofi_trigger_close(void *counter)
{
    fi_close(&((struct fid_cntr *)counter)->fid);
}

void ofi_put_signal_triggered(struct shoal_ctx *ctx, const struct shoal_put_signal *ps,
                              void *counter, uint64_t threshold)
{
    int seg = ps->dst.seg, sig_seg = ps->sig.seg, pe = ps->dst.pe;
    uint64_t off = ps->dst.off, sig_off = ps->sig.off, signal = ps->signal;
    const void *src = ps->src;
    size_t len = ps->len;
    enum shoal_amo_op sig_op = ps->sig_op;
    struct ofi_trig_op *t = calloc(1, sizeof *t);
    if (!t)
        shoal_fatal("shmemx_putmem_signal_triggered", "out of memory");
    struct fi_triggered_context tc = { .event_type = FI_TRIGGER_THRESHOLD };
    tc.trigger.threshold.cntr = (struct fid_cntr *)counter;
    tc.trigger.threshold.threshold = (size_t)threshold;
    t->put = t->sig = tc;
    t->signal = signal;
    t->cntr = (struct fid_cntr *)counter;
    t->threshold = threshold;
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    ofi_flush_deferred(c);
    int rc = c->tep ? 0 : tep_open(c);
    if (rc)
        ofi_fatal_rc("opening the endpoint for triggered operations "
                     "(shmemx_putmem_signal_triggered)",
                     rc, "try another provider (SHMEM_OFI_PROVIDER)");
    /* No FI_COMPLETION: the CQ hands back only bounce slots; the counter counts. */
    uint64_t flags = FI_TRIGGER | ofi.mode.op_flags;
    void *desc = NULL;
    if (len) {
        if (ofi.mode.mr_local && !ofi_local_seg(c, src, len, &desc))
            desc = ofi_reg_desc(c, src, len);
        struct iovec iov = { (void *)src, len };
        struct fi_rma_iov rma = { ofi_raddr(seg, off, pe), len, ofi_rkey(seg, pe) };
        struct fi_msg_rma msg = ofi_rmsg(&iov, &desc, &rma, pe, &t->put);
        OFI_POST(c, "fi_writemsg (triggered)", fi_writemsg(c->tep, &msg, flags));
        t->nops++;
    }
    struct fi_ioc ioc = { &t->signal, 1 };
    struct fi_rma_ioc rma = { ofi_raddr(sig_seg, sig_off, pe), 1, ofi_rkey(sig_seg, pe) };
    void *sdesc = NULL;
    struct fi_msg_atomic msg =
            ofi_amsg(&ioc, &sdesc, &rma, pe, FI_UINT64,
                     sig_op == SHOAL_AMO_ADD ? FI_SUM : FI_ATOMIC_WRITE, &t->sig);
    OFI_POST(c, "fi_atomicmsg (triggered signal)", fi_atomicmsg(c->tep, &msg, flags));
    t->nops++;
    t->next = c->trig_ops;
    c->trig_ops = t;
    SHOAL_LOG(OFI, DEBUG,
              "triggered put-with-signal to PE %d posted on the NIC (threshold %llu)", pe,
              (unsigned long long)threshold);
    ofi_unlock(c);
}

/* Marks the operations whose trigger has fired; returns how many messages they are. */
static uint64_t mark_fired(struct ofi_ctx *c)
{
    uint64_t n = 0;
    for (struct ofi_trig_op *t = c->trig_ops; t; t = t->next) {
        t->fired = fi_cntr_read(t->cntr) >= t->threshold;
        n += t->fired ? t->nops : 0;
    }
    return n;
}

void ofi_trigger_quiet(struct ofi_ctx *c)
{
    /* Only fired operations complete, so once tcntr has counted as many as are
     * marked, and no other has fired meanwhile (a thread may increment a trigger
     * while this one waits), every marked one is complete. */
    uint64_t fired = mark_fired(c), again;
    if (!fired)
        return;
    for (;;) {
        ofi_wait_cntr(c, c->tcntr, c->tdone + fired, "a triggered put-with-signal", -1);
        if ((again = mark_fired(c)) == fired)
            break;
        fired = again;
    }
    c->tdone += fired;
    for (struct ofi_trig_op **p = &c->trig_ops; *p;) {
        struct ofi_trig_op *t = *p;
        if (!t->fired) {
            p = &t->next;
            continue;
        }
        *p = t->next;
        free(t);
    }
}

void ofi_trigger_close_ep(struct ofi_ctx *c)
{
    if (c->tep)
        fi_close(&c->tep->fid);
    if (c->tcntr)
        fi_close(&c->tcntr->fid);
    c->tep = NULL;
    c->tcntr = NULL;
    while (c->trig_ops) {
        struct ofi_trig_op *t = c->trig_ops;
        c->trig_ops = t->next;
        free(t);
    }
}
