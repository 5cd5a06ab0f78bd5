/* Bundling: small puts (put, put_nbi, p, and put-with-signal's payload) to one PE
 * are copied, back to back, into a registered bounce slot and leave as one
 * fi_writemsg whose rma_iov list says where each piece goes (adjacent puts share
 * an entry). On tcp;ofi_rxm every message costs a send system call (about 5 us on
 * loopback) and FI_MORE does not change that in libfabric 1.17: rxm hands an
 * injected write to tcp without the flag, and tcp sends each entry at once
 * (docs/performance.md); one message instead of many does pay. A bundle goes out
 * when the next put is for another PE, does not fit (SHMEM_OFI_BUNDLE_SIZE, the
 * provider's rma_iov_limit), overlaps a piece already in it (so writes to one
 * address stay separate and in order), or an operation must be ordered after it:
 * any other put or AMO, a get, fence, quiet, a wait, progress, or the end of a
 * session. Outside sessions puts bundle only where the progress thread runs
 * (ofi.mode.bundle_puts), which sends a bundle once it finds the PE away from Shoal
 * (ofi_progress.c), so that a put is not held while the program computes; a PE
 * that opens one while the thread sleeps wakes it (ofi_bundle_opened). The copy
 * makes every bundled put's source free at once, a blocking one's too.
 *
 * The put-with-signal transform of the seed paper (Fig. 11), for sessions with
 * SHMEM_SESSION_OP_PWS: payloads join bundles, signals are held back, and when
 * the session flushes they all follow one fence. On providers that order writes
 * after atomics the fence costs nothing; on tcp;ofi_rxm it is one wait for the
 * payloads instead of one per put-with-signal. */
#include "transport/ofi/ofi.h"

static void slot_release(struct ofi_ctx *c, struct ofi_slot *s)
{
    s->next = c->free_slots;
    c->free_slots = s;
    c->slots_busy--;
}

/* Sends the open bundle; settled: with delivery completion, counted in wdone when
 * its CQ entry arrives, and its PE left out of dirty (ofi_bundle_flush_settled). A
 * wait on the way (a full transmit queue) progresses, and progress flushes:
 * c->flushing keeps it from sending this bundle twice, or held-back signals before
 * their payloads. */
static void bundle_post(struct ofi_ctx *c, int settled)
{
    struct ofi_bundle b = c->bundle;
    c->bundle.slot = NULL;
    c->bundle_surplus--; /* the message counts as one write */
    struct iovec iov = { b.slot->buf, b.len };
    void *desc = c->slot_desc;
    struct fi_msg_rma msg = { .msg_iov = &iov,
                              .desc = &desc,
                              .iov_count = 1,
                              .addr = (fi_addr_t)b.pe,
                              .rma_iov = b.riov,
                              .rma_iov_count = b.n,
                              .context = &b.slot->fctx };
    /* Small bundles are injected and their slot is free at once; the others
     * free it at completion (ofi_drain_cq). */
    int inject = !settled && b.len <= ofi.mode.inject_size;
    uint64_t flags = settled ? ofi.mode.op_flags | FI_COMPLETION
                             : ofi.mode.put_flags | (inject ? FI_INJECT : FI_COMPLETION);
    b.slot->write = 1;
    OFI_POST(c, "fi_writemsg (bundle)", fi_writemsg(c->ep, &msg, flags));
    if (settled)
        c->writes++;
    else
        ofi_put_posted(c, b.pe, inject);
    if (inject)
        slot_release(c, b.slot);
}

void ofi_bundle_flush(struct ofi_ctx *c)
{
    if (c->flushing)
        return;
    c->flushing = 1;
    bundle_post(c, 0);
    c->flushing = 0;
}

void ofi_bundle_flush_settled(struct ofi_ctx *c)
{
    if (!c->bundle.slot || c->npws || c->uheld || c->dirty_since[c->bundle.pe] || c->flushing)
        return;
    c->flushing = 1;
    bundle_post(c, 1);
    c->flushing = 0;
}

static int overlaps(const struct ofi_bundle *b, uint64_t raddr, size_t len, uint64_t key)
{
    for (unsigned i = 0; i < b->n; i++)
        if (b->riov[i].key == key && raddr < b->riov[i].addr + b->riov[i].len &&
            b->riov[i].addr < raddr + len)
            return 1;
    return 0;
}

int ofi_bundle_put(struct ofi_ctx *c, int seg, uint64_t off, const void *src, size_t len,
                   int pe)
{
    if (len > ofi.mode.bundle_size / 2)
        return 0;
    struct ofi_bundle *b = &c->bundle;
    uint64_t raddr = ofi_raddr(seg, off, pe), key = ofi_rkey(seg, pe);
    if (b->slot) {
        struct fi_rma_iov *last = &b->riov[b->n - 1];
        if (b->pe != pe || b->len + len > ofi.mode.bundle_size ||
            overlaps(b, raddr, len, key)) {
            ofi_bundle_flush(c);
        } else if (last->key == key && last->addr + last->len == raddr) {
            last->len += len;
            memcpy(b->slot->buf + b->len, src, len);
            b->len += len;
            c->bundle_surplus++;
            return 1;
        } else if (b->n == ofi.mode.rma_iov_limit) {
            ofi_bundle_flush(c);
        }
    }
    if (!b->slot) {
        /* The fence a bundle would owe, and the slot, are waited for before it is
         * marked open: waits progress, and progress flushes open bundles. */
        if (SHOAL_UNLIKELY(c->fence_owed))
            ofi_fence_wait(c, pe);
        struct ofi_slot *s = ofi_slot_get(c);
        if (!c->bundling)
            ofi_bundle_opened();
        b->slot = s;
        b->pe = s->pe = pe;
        b->len = 0;
        b->n = 0;
    }
    b->riov[b->n++] = (struct fi_rma_iov){ raddr, len, key };
    memcpy(b->slot->buf + b->len, src, len);
    b->len += len;
    c->bundle_surplus++;
    return 1;
}

void ofi_pws_defer(struct ofi_ctx *c, int sig_seg, uint64_t sig_off, uint64_t signal,
                   enum shoal_amo_op op, int pe)
{
    c->pws[c->npws++] = (struct ofi_pws){ pe, sig_seg, sig_off, signal, op };
    if (c->npws == OFI_PWS_MAX)
        ofi_deferred_flush(c);
}

void ofi_deferred_flush(struct ofi_ctx *c)
{
    if (c->flushing)
        return;
    c->flushing = 1;
    if (c->uheld)
        ofi_unreliable_flush(c);
    if (c->bundle.slot)
        bundle_post(c, 0);
    unsigned n = c->npws;
    c->npws = 0;
    /* The one fence of the transform: every payload lands before any signal. */
    if (n && !ofi.mode.writes_ordered)
        ofi_wait_writes(c, "put-with-signal payloads");
    for (unsigned i = 0; i < n; i++) {
        const struct ofi_pws *p = &c->pws[i];
        struct shoal_amo sig = { .op = p->op,
                                 .type = SHOAL_AMO_UINT64,
                                 .seg = p->seg,
                                 .off = p->off,
                                 .operand = &p->value };
        ofi_amo_locked(c, &sig, p->pe, 1, 0);
    }
    c->flushing = 0;
}
