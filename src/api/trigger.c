/* Triggered put-with-signal (shmemx.h): operations posted now and issued when a
 * counter this PE increments reaches a threshold, the deferred execution of seed
 * 001 (section III-E). Where the network transport offers triggered operations
 * (libfabric FI_TRIGGER: the sockets provider here, cxi on Slingshot) the NIC
 * holds them and fires them itself; otherwise, and for same-node targets, the
 * library keeps them and issues them inside shmemx_trigger_increment, the only
 * thing that moves the counter. Each trigger remembers what still waits for it,
 * so that quiet can name the mistake instead of waiting forever. A registered
 * thread's default-context operations go on its own context, so its thread_quiet
 * completes them and no other thread's. */
#include <pthread.h>
#include <shmemx.h>
#include <stdlib.h>

#include "api/api.h"
#include "api/rma.h"

struct trig_op {
    struct trig_op *next;
    shmem_ctx_t ctx;
    uint64_t threshold;
    int native; /* the network holds it; nothing to issue here */
    void *dest;
    const void *src;
    size_t len;
    uint64_t *sig;
    uint64_t signal;
    int sig_op, pe;
    int thread; /* posted on a registered thread's own context (shoal_default_ctx) */
};

struct shoal_trigger {
    pthread_mutex_t lock;
    uint64_t value;
    void *net; /* the network's counter, or NULL */
    struct trig_op *waiting;
    struct shoal_trigger *next; /* every live trigger, for quiet's check */
};

static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal_trigger *all;
/* Operations that have not fired yet, over every trigger: quiet looks only when
 * there are some. */
static unsigned long waiting_ops;

int shmemx_trigger_create(shmemx_trigger_t *trigger)
{
    shoal_require_init(__func__);
    struct shoal_trigger *t = calloc(1, sizeof *t);
    if (!t) {
        *trigger = NULL;
        return -1;
    }
    pthread_mutex_init(&t->lock, NULL);
    if (shoal.multi_node)
        t->net = shoal_tp_trigger_open();
    pthread_mutex_lock(&all_lock);
    t->next = all;
    all = t;
    pthread_mutex_unlock(&all_lock);
    *trigger = t;
    return 0;
}
SHOAL_PROFILED(shmemx_trigger_create)

static struct shoal_trigger *check_trigger(const char *fn, shmemx_trigger_t t)
{
    shoal_require_init(fn);
    if (SHOAL_UNLIKELY(!t))
        shoal_fatal(fn, "the trigger is NULL; create it with shmemx_trigger_create");
    return t;
}

void shmemx_trigger_increment(shmemx_trigger_t trigger, uint64_t n)
{
    struct shoal_trigger *t = check_trigger(__func__, trigger);
    pthread_mutex_lock(&t->lock);
    t->value += n;
    if (t->net)
        shoal_tp_trigger_add(t->net, n);
    struct trig_op *fire = NULL;
    for (struct trig_op **p = &t->waiting; *p;) {
        struct trig_op *op = *p;
        if (op->threshold > t->value) {
            p = &op->next;
            continue;
        }
        *p = op->next;
        op->next = fire;
        fire = op;
        __atomic_fetch_sub(&waiting_ops, 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&t->lock);
    /* Issued in the order they were posted (the list holds them newest first). */
    struct trig_op *ordered = NULL;
    while (fire) {
        struct trig_op *op = fire;
        fire = op->next;
        op->next = ordered;
        ordered = op;
    }
    while (ordered) {
        struct trig_op *op = ordered;
        ordered = op->next;
        if (!op->native)
            shoal_put_signal_nbi("shmemx_trigger_increment", op->ctx, op->dest, op->src,
                                 op->len, op->sig, op->signal, op->sig_op, op->pe);
        free(op);
    }
}
SHOAL_PROFILED(shmemx_trigger_increment)

uint64_t shmemx_trigger_read(shmemx_trigger_t trigger)
{
    struct shoal_trigger *t = check_trigger(__func__, trigger);
    pthread_mutex_lock(&t->lock);
    uint64_t v = t->value;
    pthread_mutex_unlock(&t->lock);
    return v;
}
SHOAL_PROFILED(shmemx_trigger_read)

void shmemx_trigger_destroy(shmemx_trigger_t trigger)
{
    struct shoal_trigger *t = check_trigger(__func__, trigger);
    if (t->waiting)
        shoal_fatal(__func__,
                    "put-with-signal operations still wait for this trigger (it is at "
                    "%llu, one waits for %llu); increment it to their threshold first",
                    (unsigned long long)t->value, (unsigned long long)t->waiting->threshold);
    pthread_mutex_lock(&all_lock);
    for (struct shoal_trigger **p = &all; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&all_lock);
    if (t->net)
        shoal_tp_trigger_close(t->net);
    pthread_mutex_destroy(&t->lock);
    free(t);
}
SHOAL_PROFILED(shmemx_trigger_destroy)

static void put_signal_triggered(const char *fn, shmem_ctx_t ctx, void *dest,
                                 const void *source, size_t nbytes, uint64_t *sig_addr,
                                 uint64_t signal, int sig_op, int pe,
                                 shmemx_trigger_t trigger, uint64_t threshold)
{
    struct shoal_trigger *t = check_trigger(fn, trigger);
    struct shoal_put_signal ps = { .src = source,
                                   .len = nbytes,
                                   .signal = signal,
                                   .sig_op = shoal_sig_op(fn, sig_op),
                                   .nbi = 1 };
    shoal_remote(fn, ctx, dest, nbytes ? nbytes : 1, pe, &ps.dst);
    shoal_remote(fn, ctx, sig_addr, sizeof *sig_addr, pe, &ps.sig);
    struct trig_op *w = malloc(sizeof *w);
    if (!w)
        shoal_fatal(fn, "out of memory recording a triggered operation");
    *w = (struct trig_op){ .ctx = ctx,
                           .threshold = threshold,
                           .dest = dest,
                           .src = source,
                           .len = nbytes,
                           .sig = sig_addr,
                           .signal = signal,
                           .sig_op = sig_op,
                           .pe = pe,
                           .thread = shoal_thread_ctx && ctx == shoal_thread_ctx };
    pthread_mutex_lock(&t->lock);
    if (threshold <= t->value) {
        /* Already reached: an ordinary put-with-signal. */
        pthread_mutex_unlock(&t->lock);
        free(w);
        shoal_put_signal_nbi(fn, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe);
        return;
    }
    /* The network holds it when that PE is reached over the network and the
     * network has triggered operations, for any context. */
    if (!ps.dst.ptr && t->net) {
        w->native = 1;
        shoal_tp_put_signal_triggered(ctx, &ps, t->net, threshold);
    }
    w->next = t->waiting;
    t->waiting = w;
    __atomic_fetch_add(&waiting_ops, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&t->lock);
}

void shmemx_putmem_signal_triggered(void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_trigger_t trigger, uint64_t threshold)
{
    put_signal_triggered(__func__, shoal_default_ctx(), dest, source, nbytes, sig_addr,
                         signal, sig_op, pe, trigger, threshold);
}
SHOAL_PROFILED(shmemx_putmem_signal_triggered)

void shmemx_ctx_putmem_signal_triggered(shmem_ctx_t ctx, void *dest, const void *source,
                                        size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe, shmemx_trigger_t trigger,
                                        uint64_t threshold)
{
    put_signal_triggered(__func__, ctx, dest, source, nbytes, sig_addr, signal, sig_op, pe,
                         trigger, threshold);
}
SHOAL_PROFILED(shmemx_ctx_putmem_signal_triggered)

/* A quiet of the default context completes the registered threads' contexts too
 * (transport/threads.c), so their operations count for it as well. */
void shoal_trigger_quiet_check(const char *fn, shmem_ctx_t ctx)
{
    if (SHOAL_LIKELY(!__atomic_load_n(&waiting_ops, __ATOMIC_RELAXED)))
        return;
    pthread_mutex_lock(&all_lock);
    for (struct shoal_trigger *t = all; t; t = t->next) {
        pthread_mutex_lock(&t->lock);
        for (struct trig_op *op = t->waiting; op; op = op->next)
            if (op->ctx == ctx || (ctx == SHMEM_CTX_DEFAULT && op->thread))
                shoal_fatal(fn,
                            "a triggered put-with-signal on this context still waits for its "
                            "trigger (at %llu, threshold %llu), so it cannot complete; call "
                            "shmemx_trigger_increment before quiet",
                            (unsigned long long)t->value, (unsigned long long)op->threshold);
        pthread_mutex_unlock(&t->lock);
    }
    pthread_mutex_unlock(&all_lock);
}
