/* Progress and waiting. Providers with manual progress (tcp, rxm) move data and
 * serve peers' operations only inside calls that read a CQ or counter, so every
 * wait here drives its own context and the default context's endpoint (the
 * target of every peer, this PE included), and progress() drives them all. */
#include <stdio.h>
#include <time.h>

#include "transport/ofi/ofi.h"

/* How often the optional progress thread polls: often enough that a peer's get
 * waits little, rarely enough that it costs a PE's core almost nothing. */
#define OFI_PROGRESS_INTERVAL_NS 50000L
#define OFI_CQ_BATCH 16

static _Noreturn void cq_error(struct ofi_ctx *c)
{
    struct fi_cq_err_entry err = { 0 };
    char detail[256] = "";
    if (fi_cq_readerr(c->cq, &err, 0) > 0)
        fi_cq_strerror(c->cq, err.prov_errno, err.err_data, detail, sizeof detail);
    const char *op = (err.flags & FI_ATOMIC) ? "an AMO"
                     : (err.flags & FI_READ) ? "a get"
                     : (err.flags & FI_WRITE) ? "a put" : "a transfer";
    shoal_fatal("ofi", "%s to another PE failed: %s (%s); the peer may have exited or the "
                "network failed: check that PE's output, or set FI_LOG_LEVEL=warn for the "
                "provider's view", op, fi_strerror(err.err), detail);
}

void ofi_drain_cq(struct ofi_ctx *c)
{
    struct fi_cq_entry ev[OFI_CQ_BATCH];
    for (;;) {
        ssize_t n = fi_cq_read(c->cq, ev, OFI_CQ_BATCH);
        if (n == -FI_EAGAIN)
            return;
        if (n == -FI_EAVAIL)
            cq_error(c);
        if (n < 0)
            ofi_fatal_rc("fi_cq_read", (int)n, "set FI_LOG_LEVEL=warn for the provider's view");
        for (ssize_t i = 0; i < n; i++) {
            struct ofi_slot *s = ev[i].op_context;
            if (s->copy_to)
                memcpy(s->copy_to, s->buf, s->copy_len);
            if (s->done)
                *s->done = 1;
            s->next = c->free_slots;
            c->free_slots = s;
            c->slots_busy--;
        }
        if (n < OFI_CQ_BATCH)
            return;
    }
}

void ofi_progress_others(struct ofi_ctx *c)
{
    struct ofi_ctx *d = ofi.dflt;
    if (d == c)
        return;
    /* Another thread holding it drives it already. */
    if (!ofi.locked) {
        ofi_drain_cq(d);
    } else if (!pthread_mutex_trylock(&d->lock)) {
        ofi_drain_cq(d);
        pthread_mutex_unlock(&d->lock);
    }
}

void ofi_wait_cntr(struct ofi_ctx *c, struct fid_cntr *cntr, uint64_t target, const char *what)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    struct shoal_backoff b = { 0 };
    while (fi_cntr_read(cntr) < target) {
        if (SHOAL_UNLIKELY(fi_cntr_readerr(cntr))) {
            ofi_drain_cq(c);
            shoal_fatal("ofi", "%s to another PE failed; the peer may have exited or the "
                        "network failed: set FI_LOG_LEVEL=warn for the provider's view", what);
        }
        ofi_drain_cq(c);
        ofi_progress_others(c);
        ofi_backoff(&b);
    }
}

void ofi_wait_flag(struct ofi_ctx *c, volatile int *done)
{
    ofi_flush_deferred(c);
    if (c->more_pending)
        ofi_flush_more(c);
    struct shoal_backoff b = { 0 };
    while (!*done) {
        ofi_drain_cq(c);
        if (*done)
            break;
        ofi_progress_others(c);
        ofi_backoff(&b);
    }
}

struct ofi_slot *ofi_slot_get(struct ofi_ctx *c)
{
    if (SHOAL_UNLIKELY(!c->free_slots)) {
        if (c->more_pending)
            ofi_flush_more(c);
        struct shoal_backoff b = { 0 };
        while (!c->free_slots) {
            ofi_drain_cq(c);
            ofi_progress_others(c);
            ofi_backoff(&b);
        }
    }
    struct ofi_slot *s = c->free_slots;
    c->free_slots = s->next;
    c->slots_busy++;
    s->copy_to = NULL;
    s->done = NULL;
    return s;
}

void ofi_progress(void)
{
    /* A flush below may wait, and waiting progresses: the nested call has
     * nothing to add (the wait drives its own context and the default one). */
    static __thread int inside;
    if (inside)
        return;
    inside = 1;
    pthread_mutex_lock(&ofi.ctxs_lock);
    for (struct ofi_ctx *c = ofi.ctxs; c; c = c->next_ctx) {
        if (ofi.locked && !c->locked)
            continue;   /* private: only its owner may drive it */
        if (c->locked && pthread_mutex_trylock(&c->lock))
            continue;   /* its holder drives it */
        /* What a session holds back goes out while the PE waits: a peer may be
         * waiting for it. */
        if (c->ready) {
            ofi_flush_deferred(c);
            ofi_drain_cq(c);
        }
        if (c->locked)
            pthread_mutex_unlock(&c->lock);
    }
    pthread_mutex_unlock(&ofi.ctxs_lock);
    inside = 0;
}

static void *progress_main(void *arg)
{
    (void)arg;
    const struct timespec pause = { 0, OFI_PROGRESS_INTERVAL_NS };
    while (!__atomic_load_n(&ofi.progress_stop, __ATOMIC_ACQUIRE)) {
        ofi_progress();
        nanosleep(&pause, NULL);
    }
    return NULL;
}

int ofi_progress_thread_start(void)
{
    ofi.progress_stop = 0;
    int rc = pthread_create(&ofi.progress_thread, NULL, progress_main, NULL);
    if (rc) {
        shoal_warn("shmem_init", "cannot start the libfabric progress thread (error %d); "
                   "unset SHMEM_OFI_PROGRESS_THREAD or raise the thread limit", rc);
        return -1;
    }
    ofi.progress_running = 1;
    return 0;
}

void ofi_progress_thread_stop(void)
{
    if (!ofi.progress_running)
        return;
    __atomic_store_n(&ofi.progress_stop, 1, __ATOMIC_RELEASE);
    pthread_join(ofi.progress_thread, NULL);
    ofi.progress_running = 0;
}
