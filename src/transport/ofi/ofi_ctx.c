/* Contexts: the default one and every context that may share it use one
 * endpoint; the private and serialized contexts of a SHMEM_THREAD_MULTIPLE
 * program each have their own endpoint, completion queue and counters, so that
 * quiet on one never waits for another, and threads using different contexts
 * never share transmit state (nor a lock). Those endpoints are opened and
 * connected to their nearest peers by shmem_ctx_create (warm), so that a
 * context's first operation costs about what later ones do. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "transport/ofi/ofi.h"

/* c's endpoint cannot be had: the default context's ends the job at shmem_init
 * (before it is made, ofi.dflt is NULL); another's is shmem_ctx_create's failure,
 * which the program may survive. -1. */
static int ctx_error(const struct ofi_ctx *c, const char *msg)
{
    if (!ofi.dflt || c == ofi.dflt)
        shoal_fatal("shmem_init", "%s", msg);
    shoal_warn("shmem_ctx_create", "%s", msg);
    return -1;
}

static int ctx_fail(const struct ofi_ctx *c, const char *what, int rc)
{
    char msg[512];
    snprintf(msg, sizeof msg, "libfabric %s failed: %s (%d); %s", what, fi_strerror(-rc), rc,
             !ofi.dflt || c == ofi.dflt
                     ? "choose another SHMEM_OFI_PROVIDER"
                     : "the provider may limit endpoints: create fewer contexts or "
                       "choose another SHMEM_OFI_PROVIDER");
    return ctx_error(c, msg);
}

/* Bytes of one slot, a multiple of 64. */
static size_t slot_bytes(void)
{
    size_t sz = ofi.mode.bounce_size < OFI_AMO_SLOT_BYTES ? OFI_AMO_SLOT_BYTES
                                                          : ofi.mode.bounce_size;
    return (sz + 63) & ~(size_t)63;
}

/* The slots, then 64 bytes of discard buffer. */
static size_t slot_mem_bytes(void)
{
    return slot_bytes() * OFI_BOUNCE_SLOTS + 64;
}

/* Registered bounce slots: one mapping, carved into OFI_BOUNCE_SLOTS buffers and
 * the discard buffer. */
static int open_slots(struct ofi_ctx *c)
{
    size_t sz = slot_bytes(), total = slot_mem_bytes();
    void *mem = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return ctx_fail(c, "bounce buffer allocation", -FI_ENOMEM);
    c->slot_mem = mem;
    int rc = ofi_mr_reg(c, mem, total, FI_READ | FI_WRITE, &c->slot_mr);
    if (rc)
        return ctx_fail(c, "bounce buffer registration", rc);
    c->slot_desc = fi_mr_desc(c->slot_mr);
    c->discard = c->slot_mem + sz * OFI_BOUNCE_SLOTS;
    for (int i = OFI_BOUNCE_SLOTS - 1; i >= 0; i--) {
        c->slot[i].buf = c->slot_mem + (size_t)i * sz;
        c->slot[i].next = c->free_slots;
        c->free_slots = &c->slot[i];
    }
    return 0;
}

struct ofi_ctx *ofi_ctx_open(void)
{
    struct ofi_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        ctx_fail(NULL, "context allocation", -FI_ENOMEM);
        return NULL;
    }
    c->locked = ofi.mode.locked;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

/* The default context's CQ, which the progress thread sleeps on: with a file
 * descriptor to wait for where the provider offers one (the thread then costs
 * nothing while idle), without where it does not (the thread polls). */
static int open_cq(struct ofi_ctx *c)
{
    struct fi_cq_attr attr = { .format = FI_CQ_FORMAT_CONTEXT, .wait_obj = FI_WAIT_NONE };
    if (c == ofi.dflt && ofi.prog.thread) {
        ofi.prog.fd = -1;
        attr.wait_obj = FI_WAIT_FD;
        if (!fi_cq_open(ofi.domain, &attr, &c->cq, NULL)) {
            if (!fi_control(&c->cq->fid, FI_GETWAIT, &ofi.prog.fd))
                return 0;
            ofi.prog.fd = -1;
            fi_close(&c->cq->fid);
        }
        attr.wait_obj = FI_WAIT_NONE;
    }
    return fi_cq_open(ofi.domain, &attr, &c->cq, NULL);
}

int ofi_ctx_enable(struct ofi_ctx *c)
{
    struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP,
                                      .wait_obj = FI_WAIT_NONE };
    int rc;
    SHOAL_LOG(OFI, DEBUG, "opening the %s context's endpoint%s",
              c == ofi.dflt ? "default" : "a", c->locked ? " (locked)" : "");
    if ((rc = fi_endpoint(ofi.domain, c == ofi.dflt ? ofi.info : ofi.info_tx, &c->ep, NULL)))
        return ctx_fail(c, "fi_endpoint", rc);
    /* Over shm the endpoint now has its name, and fi_enable makes its region. */
    char region[64] = "", msg[512];
    if (!strcmp(ofi.info->fabric_attr->prov_name, "shm") &&
        !ofi_shm_region_name(c->ep, region, sizeof region))
        /* A file that stays in the way (another user's may be planted there on
         * purpose) is left alone, and the endpoint takes a name nobody can guess. */
        for (int tries = 0; ofi_shm_region_clear(region, msg, sizeof msg); tries++) {
            char taken[sizeof region];
            memcpy(taken, region, sizeof region);
            if (tries == 3 || ofi_shm_region_rename(c->ep, region, sizeof region))
                return ctx_error(c, msg);
            SHOAL_LOG(OFI, INFO,
                      "/dev/shm/%s, the name libfabric's shm provider chose for this "
                      "endpoint's region, is taken by a file Shoal leaves alone; the "
                      "region is /dev/shm/%s instead",
                      taken, region);
        }
    /* No write counter with quiet_read: rxm would send every inject through a
     * buffer to count it (ofi_order.c). */
    if ((rc = open_cq(c)) ||
        (!ofi.mode.quiet_read &&
         (rc = fi_cntr_open(ofi.domain, &cntr_attr, &c->wcntr, NULL))) ||
        (rc = fi_cntr_open(ofi.domain, &cntr_attr, &c->rcntr, NULL)))
        return ctx_fail(c, "completion queue or counter creation", rc);
    if (ofi.mode.quiet_read) {
        c->dirty = calloc((size_t)shoal.n_pes, sizeof *c->dirty);
        c->dirty_since = calloc((size_t)shoal.n_pes, sizeof *c->dirty_since);
        if (!c->dirty || !c->dirty_since)
            return ctx_fail(c, "context allocation", -FI_ENOMEM);
        c->epoch = 1; /* dirty_since 0 means clean */
    }
    /* Only bounce-slot operations (and, with quiet_read, direct puts) ask for CQ
     * entries; errors always arrive. */
    if ((rc = fi_ep_bind(c->ep, &ofi.av->fid, 0)) ||
        (rc = fi_ep_bind(c->ep, &c->cq->fid,
                         FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) ||
        (c->wcntr && (rc = fi_ep_bind(c->ep, &c->wcntr->fid, FI_WRITE))) ||
        (rc = fi_ep_bind(c->ep, &c->rcntr->fid, FI_READ)) || (rc = ofi_pcntr_bind(c)))
        return ctx_fail(c, "endpoint binding", rc);
    if ((rc = fi_enable(c->ep))) {
        if (rc != -FI_EBUSY || !*region)
            return ctx_fail(c, "fi_enable", rc);
        /* A file took the region's name after the check above. */
        snprintf(msg, sizeof msg,
                 "libfabric's shm provider could not make /dev/shm/%s for this PE's "
                 "endpoint (fi_enable: %s): a file of that name appeared meanwhile; "
                 "remove it if it is still there, and run again",
                 region, fi_strerror(-rc));
        return ctx_error(c, msg);
    }
    if (open_slots(c))
        return -1;
    pthread_mutex_lock(&ofi.ctxs_lock);
    c->next_ctx = ofi.ctxs;
    ofi.ctxs = c;
    pthread_mutex_unlock(&ofi.ctxs_lock);
    return 0;
}

void ofi_ctx_close(struct ofi_ctx *c)
{
    pthread_mutex_lock(&ofi.ctxs_lock);
    for (struct ofi_ctx **p = &ofi.ctxs; *p; p = &(*p)->next_ctx)
        if (*p == c) {
            *p = c->next_ctx;
            break;
        }
    pthread_mutex_unlock(&ofi.ctxs_lock);
    /* Registrations bound to the endpoint (FI_MR_ENDPOINT) go before it, and it
     * before the CQ and counters it uses. */
    ofi_reg_release(c);
    ofi_session_close(c);
    ofi_trigger_close_ep(c);
    if (c->slot_mr)
        fi_close(&c->slot_mr->fid);
    if (c->ep)
        fi_close(&c->ep->fid);
    if (c->slot_mem)
        munmap(c->slot_mem, slot_mem_bytes());
    if (c->rcntr)
        fi_close(&c->rcntr->fid);
    if (c->wcntr)
        fi_close(&c->wcntr->fid);
    if (c->cq)
        fi_close(&c->cq->fid);
    free(c->dirty);
    free(c->dirty_since);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* Contexts share the default context's endpoint, CQ, counters and slots unless
 * threads need them apart: an endpoint of their own costs provider buffers
 * (about 4 MB on tcp;ofi_rxm with the settings ofi_init.c gives rxm, 84 MB with
 * rxm's defaults), opened when the context is created, and connections (warm).
 * Sharing is correct (quiet and fence on one context may then also wait for the
 * others' operations, which they are allowed to) and what a program whose
 * threads never call Shoal at once gets. Private and serialized contexts of a
 * SHMEM_THREAD_MULTIPLE program get their own endpoint: each is one thread's at a
 * time, and its lock, uncontended, is there for the other threads that drive it
 * once that thread leaves it with operations in flight (progress_all). */
static int own_endpoint(const struct shoal_ctx *ctx)
{
    return shoal.thread_level == SHMEM_THREAD_MULTIPLE &&
            (ctx->options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
}

/* A parked endpoint of a destroyed context, or NULL. Parked ones are complete
 * (destroy quieted them, so drivers pass them by: done_uses is uses), and the
 * new owner takes one over as it was: open, its connections made, its counters
 * matching its issued counts. ofi.ctxs_lock hands it from the thread that
 * destroyed the old context to the one creating this. */
static struct ofi_ctx *take_idle(void)
{
    pthread_mutex_lock(&ofi.ctxs_lock);
    struct ofi_ctx *c = ofi.idle;
    if (c)
        ofi.idle = c->parked;
    pthread_mutex_unlock(&ofi.ctxs_lock);
    return c;
}

/* Keeps c's endpoint, CQ, counters, slots and connections for the next
 * context: programs that create and destroy contexts (one per task or phase)
 * then pay for them once. What referred to the old owner's memory goes: cached
 * registrations of its buffers, and the single-transmit endpoint of a session
 * (a second endpoint, opened again should the new owner need one). The counts
 * start again from zero, as a new endpoint's would (shmemx_pcntr_* reports
 * them, ofi_pcntr.c): every operation is complete, so counters and issued
 * counts agree. A provider that cannot set its counters keeps none parked. */
static void park(struct ofi_ctx *c)
{
    ofi_reg_release(c);
    ofi_session_close(c);
    ofi_trigger_close_ep(c);
    if ((c->wcntr && fi_cntr_set(c->wcntr, 0)) || fi_cntr_set(c->rcntr, 0)) {
        ofi_ctx_close(c);
        return;
    }
    ofi_lock(c); /* a driver may look at the counts (it finds nothing in flight) */
    c->writes = c->reads = c->wdone = c->amo_reads = 0; /* quiet left none injected */
    c->bundle_surplus = 0;
    ofi_unlock(c);
    pthread_mutex_lock(&ofi.ctxs_lock);
    c->private_owned = 0;
    c->parked = ofi.idle;
    ofi.idle = c;
    pthread_mutex_unlock(&ofi.ctxs_lock);
}

void ofi_ctx_close_idle(void)
{
    struct ofi_ctx *c;
    while ((c = take_idle()))
        ofi_ctx_close(c);
}

/* How many PEs a new context's endpoint connects to while it is created, and for
 * how long at most it tries (ns). */
#define OFI_CTX_WARM_PEERS 4
#define OFI_CTX_WARM_NS 100000000L

/* ofi_rxm connects on a peer's first operation and refuses it (EAGAIN) until the
 * connection is made: a handshake with the peer's progress, and buffers rxm
 * allocates on first use. A caller that retried one post until it was taken would
 * make its connections one after the other, each waiting for its peer to be
 * scheduled and to drive the provider. Here each PE gets one 8-byte read into the
 * discard buffer, posted once the provider takes it, so the handshakes overlap.
 * Best effort: a peer that has not connected within budget_ns (one that computes
 * without a progress thread), or a provider that refuses (out of sockets, say),
 * leaves the rest to the first operations, which connect on demand; the reads
 * posted are waited for, and the read counter set back to zero, so that the
 * context has counted nothing (shmemx_pcntr_*) where the provider can set its
 * counters (as parking needs). Providers without connections take the reads at
 * once. Reorders pes; returns how many were left unconnected. */
int ofi_connect_pes(struct ofi_ctx *c, int *pes, int n, uint64_t budget_ns)
{
    struct shoal_backoff b = { 0 };
    uint64_t end = ofi_now_ns() + budget_ns;
    ssize_t rc = 0;
    while (n) {
        for (int i = 0; i < n;) {
            int pe = pes[i];
            rc = fi_read(c->ep, c->discard, 8, c->slot_desc, (fi_addr_t)pe,
                         ofi_raddr(SHOAL_SEG_HEAP, 0, pe), ofi_rkey(SHOAL_SEG_HEAP, pe),
                         ofi.pe_tag + pe);
            if (rc == -FI_EAGAIN) {
                i++;
                continue;
            }
            if (rc)
                break;
            c->reads++;
            pes[i] = pes[--n];
        }
        if (!n || (rc && rc != -FI_EAGAIN) || ofi_now_ns() >= end)
            break;
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff(&b);
    }
    if (rc && rc != -FI_EAGAIN)
        SHOAL_LOG(OFI, INFO,
                  "connecting: the provider refused a read (%s); %d PE(s) left to "
                  "their first operation",
                  fi_strerror((int)-rc), n);
    if (c->reads) {
        ofi_wait_cntr(c, c->rcntr, c->reads, "a read connecting to a PE", -1);
        if (!fi_cntr_set(c->rcntr, 0))
            c->reads = 0;
    }
    return n;
}

/* Connects c's endpoint to the OFI_CTX_WARM_PEERS nearest PEs that it reaches
 * over the network (PE+1, PE-1, PE+2, PE-2: the neighbours most programs talk to
 * first), so that its first operation finds them connected: about 3 ms a context
 * on loopback TCP, which the first put + quiet paid, and more whenever either PE
 * lost its core meanwhile (slowest of 32 contexts: 12-28 ms). */
static void warm(struct ofi_ctx *c)
{
    int pes[OFI_CTX_WARM_PEERS], n = 0;
    for (int k = 1; k < shoal.n_pes && n < OFI_CTX_WARM_PEERS; k++) {
        int off = k % 2 ? (k + 1) / 2 : shoal.n_pes - k / 2; /* distinct for k < n_pes */
        int pe = (shoal.my_pe + off) % shoal.n_pes;
        if (!shoal_pe_local(pe))
            pes[n++] = pe;
    }
    n = ofi_connect_pes(c, pes, n, OFI_CTX_WARM_NS);
    SHOAL_LOG(OFI, DEBUG, "new context's endpoint: %d of its nearest peers not connected yet",
              n);
}

/* A context of its own opens its endpoint here rather than on its first
 * operation, which the specification lets be faster than creation: a parked one
 * (connected already), or a new one, connected to its nearest peers (warm). */
int ofi_ctx_create(struct shoal_ctx *ctx)
{
    if (!own_endpoint(ctx)) {
        ctx->net = ofi.dflt;
        return 0;
    }
    struct ofi_ctx *c = take_idle();
    if (!c) {
        if (!(c = ofi_ctx_open()))
            return -1;
        if (ofi_ctx_enable(c)) {
            ofi_ctx_close(c);
            return -1;
        }
        warm(c);
    }
    /* Its owner drives it in the waits it makes (progress_all): a peer may be
     * waiting for what it holds; others drive it only once the owner leaves it. */
    pthread_mutex_lock(&ofi.ctxs_lock);
    c->private_owned = (ctx->options & SHMEM_CTX_PRIVATE) != 0;
    c->owner = pthread_self();
    pthread_mutex_unlock(&ofi.ctxs_lock);
    ctx->net = c;
    return 0;
}

void ofi_ctx_destroy(struct shoal_ctx *ctx)
{
    struct ofi_ctx *c = ofi_ctx_of(ctx);
    if (!c)
        return;
    /* A session still open ends here: held-back operations go, single-transmit
     * AMOs are settled. */
    ofi_lock(c);
    ofi_session_end(c);
    ofi_unlock(c);
    ofi_quiet(ctx);
    if (c != ofi.dflt)
        park(c);
    ctx->net = NULL;
}
