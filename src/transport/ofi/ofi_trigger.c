/* Triggered put-with-signal over libfabric (FI_TRIGGER): the payload write and the
 * signal atomic are posted now with a fi_triggered_context naming a counter and a
 * threshold, and the provider issues both when the counter gets there. Used only
 * where the provider orders writes and atomics to a target (FI_ORDER_WAW), so the
 * two fire in order without a fence; elsewhere the API layer keeps the operation
 * and issues it itself (api/trigger.c). Both count on the context's write counter
 * once they run, so the quiet after the trigger completes them. */
#include <stdlib.h>
#include <rdma/fi_trigger.h>

#include "transport/ofi/ofi.h"

struct ofi_trig_op {
    struct fi_triggered_context put, sig; /* must live until the operations run */
    uint64_t signal;
    struct fid_cntr *cntr;
    uint64_t threshold;
    struct ofi_trig_op *next;
};

void *ofi_trigger_open(void)
{
    if (!ofi.trigger_ok)
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

void ofi_put_signal_triggered(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                              size_t len, int sig_seg, uint64_t sig_off, uint64_t signal,
                              enum shoal_amo_op sig_op, int pe, void *counter,
                              uint64_t threshold)
{
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
    /* No FI_COMPLETION: the CQ hands back only bounce slots; the counter counts. */
    uint64_t flags = FI_TRIGGER | ofi.op_flags;
    void *desc = NULL;
    if (len) {
        if (ofi.mr_local && !ofi_local_seg(c, src, len, &desc))
            desc = ofi_reg_desc(c, src, len);
        struct iovec iov = { (void *)src, len };
        struct fi_rma_iov rma = { ofi_raddr(seg, off, pe), len, ofi_rkey(seg, pe) };
        struct fi_msg_rma msg = ofi_rmsg(&iov, &desc, &rma, pe, &t->put);
        OFI_POST(c, "fi_writemsg (triggered)", fi_writemsg(c->ep, &msg, flags));
        c->writes++;
    }
    struct fi_ioc ioc = { &t->signal, 1 };
    struct fi_rma_ioc rma = { ofi_raddr(sig_seg, sig_off, pe), 1, ofi_rkey(sig_seg, pe) };
    void *sdesc = NULL;
    struct fi_msg_atomic msg =
            ofi_amsg(&ioc, &sdesc, &rma, pe, FI_UINT64,
                     sig_op == SHOAL_AMO_ADD ? FI_SUM : FI_ATOMIC_WRITE, &t->sig);
    OFI_POST(c, "fi_atomicmsg (triggered signal)", fi_atomicmsg(c->ep, &msg, flags));
    c->writes++;
    t->next = c->trig_ops;
    c->trig_ops = t;
    ofi_unlock(c);
}

void ofi_trigger_check(struct ofi_ctx *c)
{
    for (struct ofi_trig_op *t = c->trig_ops; t; t = t->next)
        if (fi_cntr_read(t->cntr) < t->threshold)
            shoal_fatal(
                    "shmem_quiet",
                    "a triggered put-with-signal still waits for its trigger "
                    "(at %llu, threshold %llu), so quiet (or the barrier that implies it) "
                    "cannot complete it; call shmemx_trigger_increment first",
                    (unsigned long long)fi_cntr_read(t->cntr),
                    (unsigned long long)t->threshold);
}

void ofi_trigger_release(struct ofi_ctx *c)
{
    while (c->trig_ops) {
        struct ofi_trig_op *t = c->trig_ops;
        c->trig_ops = t->next;
        free(t);
    }
}
