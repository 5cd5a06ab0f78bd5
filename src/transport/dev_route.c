/* The wrapper of the paths for device memory (struct shoal_path), which transport
 * start-up installs when device memory is in play (shoal.dev_in_play). An operation
 * with neither a device-heap object nor a local buffer in device memory goes to the
 * table below as it came.
 *
 * Where the bytes go:
 *   same node: a host segment is mapped here (r->ptr); the device heap of a same-node
 *     PE is opened through the backend's IPC (shoal_tp.dev_peer): one backend copy,
 *     host<->device or device<->device, complete when it returns, or for put_nbi
 *     and get_nbi started on the backend's stream and completed by shoal_dev_quiet
 *     (quiet, fence, barriers);
 *   other nodes: the network. A host local buffer goes as usual (the device heap is
 *     registered through the host alias the backend offers); a device local buffer is
 *     staged through host bounce buffers in pipelined chunks: the copy of chunk k+1
 *     out of the device overlaps the network's sending of chunk k (the paper's
 *     section 6.3: the NIC injects only from host memory).
 *   AMOs on device-heap objects: neither the NIC nor the CPU operates atomically on
 *     device memory here, so every such AMO takes a per-target-PE lock (a host word of
 *     the symmetric heap, taken with a compare-and-swap by the job's usual AMO path),
 *     reads the value, computes, writes it back and releases. All AMOs on device-heap
 *     objects go this way, so they are atomic with respect to each other (a plain put
 *     to the same word is not ordered with them, as in the specification). */
#include <pthread.h>
#include <stdlib.h>

#include "base/backoff.h"
#include "device/device.h"
#include "transport/transport.h"

static _Noreturn void copy_failed(const void *dst, const void *src, size_t len)
{
    shoal_fatal("shoal",
                "the %s device failed to copy %zu bytes from %p to %p; is the "
                "buffer device memory of this process, and large enough?",
                shoal_dev ? shoal_dev->name : "(no)", len, src, dst);
}

static const struct shoal_path *inner;

/* Which memory local buffer p is. */
static enum shoal_mem_kind local_kind(const void *p)
{
    if (shoal_dev_sym(p))
        return SHOAL_MEM_DEVICE;
    if (shoal.cfg.enable_device_awareness)
        return shoal_dev_is_device(p) ? SHOAL_MEM_DEVICE : SHOAL_MEM_HOST;
    if (shoal.cfg.debug && shoal_dev_is_device(p))
        shoal_fatal("shoal",
                    "local buffer %p is device memory, but device awareness is off; "
                    "set SHMEM_ENABLE_DEVICE_AWARENESS=1 or pass a host buffer",
                    p);
    return SHOAL_MEM_HOST;
}

/* A copy on this node; local is the caller's side. A failure may come from a stale
 * cache entry (the program freed and reallocated behind the layer's back): forget the
 * range, ask the backend again, retry once. */
static void copy_any(void *dst, enum shoal_mem_kind dk, const void *src,
                     enum shoal_mem_kind sk, size_t len, void *local)
{
    if (shoal_mem_copy(dst, dk, src, sk, len) == 0)
        return;
    shoal_dev_forget(local, len);
    enum shoal_mem_kind lk = local_kind(local);
    if (local == dst)
        dk = lk;
    else
        sk = lk;
    if (shoal_mem_copy(dst, dk, src, sk, len))
        copy_failed(dst, src, len);
}

/* Where r's object is on this node: the mapping (host), the IPC pointer (device heap
 * of a same-node PE), or NULL (another node); *k: which memory it is. */
static char *here(const struct shoal_rref *r, enum shoal_mem_kind *k)
{
    if (r->seg != SHOAL_SEG_DEVICE) {
        *k = SHOAL_MEM_HOST;
        return r->ptr;
    }
    *k = SHOAL_MEM_DEVICE;
    char *base = shoal_tp.dev_peer[r->pe];
    return base ? base + r->off : NULL;
}

/* ---- staging through host memory, for the network ---------------------------------- */

#define STAGE_CHUNK ((size_t)256 * 1024)

static pthread_key_t stage_key;
static pthread_once_t stage_once = PTHREAD_ONCE_INIT;
static void stage_key_make(void)
{
    pthread_key_create(&stage_key, free);
}

/* This thread's two bounce buffers of STAGE_CHUNK bytes. */
static char *stage_buf(void)
{
    pthread_once(&stage_once, stage_key_make);
    char *b = pthread_getspecific(stage_key);
    if (!b) {
        b = malloc(2 * STAGE_CHUNK);
        if (!b || pthread_setspecific(stage_key, b))
            shoal_fatal("shoal", "out of memory for device staging buffers");
    }
    return b;
}

static void staged_put(shmem_ctx_t ctx, const struct shoal_rref *r, const char *src,
                       size_t len)
{
    char *buf = stage_buf();
    struct shoal_rref rk = *r;
    size_t k = 0;
    for (size_t done = 0; done < len; done += STAGE_CHUNK, k ^= 1) {
        size_t n = len - done < STAGE_CHUNK ? len - done : STAGE_CHUNK;
        /* Buffer k still feeds the put of two chunks ago until local completion. */
        if (done >= 2 * STAGE_CHUNK)
            r->tp->local_complete(ctx);
        char *b = buf + k * STAGE_CHUNK;
        shoal_dev_bounce(n);
        if (shoal_dev_d2h(b, src + done, n))
            copy_failed(b, src + done, n);
        rk.off = r->off + done;
        r->tp->put_nbi(ctx, rk.seg, rk.off, b, n, rk.pe);
    }
    r->tp->local_complete(ctx);
}

/* Chunk k comes from the network into buffer k mod 2 while the device's stream (when
 * the backend has one) still copies chunk k - 1 out of the other buffer. */
static void staged_get(shmem_ctx_t ctx, char *dst, const struct shoal_rref *r, size_t len)
{
    char *buf = stage_buf();
    size_t k = 0;
    for (size_t done = 0; done < len; done += STAGE_CHUNK, k ^= 1) {
        size_t n = len - done < STAGE_CHUNK ? len - done : STAGE_CHUNK;
        char *b = buf + k * STAGE_CHUNK;
        shoal_dev_bounce(n);
        r->tp->get(ctx, b, r->seg, r->off + done, n, r->pe);
        shoal_dev_quiet(); /* chunk k - 1 is out, and with it buffer k ^ 1 */
        if (shoal_dev_copy_async(dst + done, b, n) && shoal_dev_h2d(dst + done, b, n))
            copy_failed(dst + done, b, n);
    }
    shoal_dev_quiet();
}

/* ---- RMA ----------------------------------------------------------------------------- */

void shoal_dev_quiet(void)
{
    if (shoal_dev && shoal_dev_complete())
        shoal_fatal("shoal", "the %s device failed to complete its asynchronous copies",
                    shoal_dev->name);
}

/* A copy on this node involving the device, for put_nbi and get_nbi: started on the
 * backend's stream when it has one (completed by shoal_dev_quiet), else blocking. */
static void copy_here(void *dst, enum shoal_mem_kind dk, const void *src,
                      enum shoal_mem_kind sk, size_t len, void *local, int nbi)
{
    if (!nbi || shoal_mem_copy_start(dst, dk, src, sk, len))
        copy_any(dst, dk, src, sk, len, local);
}

static void dev_put(shmem_ctx_t ctx, const struct shoal_rref *r, const void *src, size_t len,
                    int nbi)
{
    enum shoal_mem_kind rk, lk = local_kind(src);
    char *p = here(r, &rk);
    if (rk == SHOAL_MEM_HOST && lk == SHOAL_MEM_HOST)
        inner->put(ctx, r, src, len, nbi);
    else if (p)
        copy_here(p, rk, src, lk, len, (void *)src, nbi);
    else if (lk == SHOAL_MEM_DEVICE)
        staged_put(ctx, r, src, len);
    else if (nbi)
        r->tp->put_nbi(ctx, r->seg, r->off, src, len, r->pe);
    else
        r->tp->put(ctx, r->seg, r->off, src, len, r->pe);
}

static void dev_get(shmem_ctx_t ctx, void *dst, const struct shoal_rref *r, size_t len,
                    int nbi)
{
    enum shoal_mem_kind rk, lk = local_kind(dst);
    char *p = here(r, &rk);
    if (rk == SHOAL_MEM_HOST && lk == SHOAL_MEM_HOST)
        inner->get(ctx, dst, r, len, nbi);
    else if (p)
        copy_here(dst, lk, p, rk, len, dst, nbi);
    else if (lk == SHOAL_MEM_DEVICE)
        staged_get(ctx, dst, r, len);
    else if (nbi)
        r->tp->get_nbi(ctx, dst, r->seg, r->off, len, r->pe);
    else
        r->tp->get(ctx, dst, r->seg, r->off, len, r->pe);
}

static void dev_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                    enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi);

static void dev_put_signal(shmem_ctx_t ctx, const struct shoal_put_signal *ps)
{
    /* The payload goes blocking: its source may be reused at once. */
    enum shoal_mem_kind k;
    if (ps->len)
        dev_put(ctx, &ps->dst, ps->src, ps->len, 0);
    /* Same node: the copy is complete. Over the network the signal must not pass it. */
    if (ps->len && !here(&ps->dst, &k))
        ps->dst.tp->fence(ctx);
    else
        shoal_shm_release_after(ps->len);
    dev_amo(ctx, &ps->sig, ps->sig_op, SHOAL_AMO_UINT64, ps->signal, 0, NULL, 0);
}

/* A device copy is ordered before later puts only by completing it. */
static void dev_fence(shmem_ctx_t ctx)
{
    shoal_dev_quiet();
    inner->fence(ctx);
}

static void dev_quiet(shmem_ctx_t ctx)
{
    shoal_dev_quiet();
    inner->quiet(ctx);
}

/* ---- AMOs ---------------------------------------------------------------------------- */

/* *cur = op(*cur, v, cmp) on a word of w bytes. Every AMO is on bits (transport/amo.h):
 * two's complement makes signed and unsigned alike, floats only move. */
#define AMO_COMPUTE(T)                                                                       \
    do {                                                                                     \
        T o, x = (T)v, n;                                                                    \
        memcpy(&o, cur, sizeof o);                                                           \
        switch (op) {                                                                        \
        case SHOAL_AMO_READ: n = o; break;                                                   \
        case SHOAL_AMO_WRITE: n = x; break;                                                  \
        case SHOAL_AMO_CSWAP: n = o == (T)cmp ? x : o; break;                                \
        case SHOAL_AMO_ADD: n = (T)(o + x); break;                                           \
        case SHOAL_AMO_AND: n = o & x; break;                                                \
        case SHOAL_AMO_OR: n = o | x; break;                                                 \
        default: n = o ^ x; break;                                                           \
        }                                                                                    \
        memcpy(cur, &n, sizeof n);                                                           \
    } while (0)

static void amo_compute(enum shoal_amo_op op, size_t w, void *cur, uint64_t v, uint64_t cmp)
{
    if (w == 4)
        AMO_COMPUTE(uint32_t);
    else
        AMO_COMPUTE(uint64_t);
}

/* The lock word of world PE pe, resolved. */
static struct shoal_rref lock_of(int pe)
{
    struct shoal_rref l;
    if (shoal_resolve(shoal_tp.dev_amo_lock, pe, &l) < 0)
        shoal_fatal("shoal", "internal: the device AMO lock is not symmetric");
    return l;
}

static void lock_take(const struct shoal_rref *l)
{
    struct shoal_backoff b = { 0 };
    for (;;) {
        uint64_t old;
        inner->amo(SHMEM_CTX_DEFAULT, l, SHOAL_AMO_CSWAP, SHOAL_AMO_UINT64, 1, 0, &old, 0);
        if (old == 0)
            return;
        /* Over the network each try is a blocking AMO, but it may drive only the
         * progress of the lock's own channel (MPI: the heap's window), while the
         * holder's read of this PE's device heap waits for this PE's help. */
        if (shoal.multi_node)
            shoal_tp_progress();
        shoal_backoff_spin(&b, (unsigned)shoal.cfg.spin_count, shoal_net_nap());
    }
}

static void lock_give(const struct shoal_rref *l, int remote)
{
    /* The value written back lands before the lock is seen free. */
    if (remote)
        inner->quiet(SHMEM_CTX_DEFAULT);
    inner->amo(SHMEM_CTX_DEFAULT, l, SHOAL_AMO_WRITE, SHOAL_AMO_UINT64, 0, 0, NULL, 0);
}

static void store_result(void *fetch, const void *val, size_t len)
{
    if (shoal_mem_copy(fetch, local_kind(fetch), val, SHOAL_MEM_HOST, len))
        copy_failed(fetch, val, len);
}

static void dev_amo(shmem_ctx_t ctx, const struct shoal_rref *r, enum shoal_amo_op op,
                    enum shoal_amo_type type, uint64_t v, uint64_t cmp, void *fetch, int nbi)
{
    size_t w = shoal_amo_width(type);
    if (r->seg == SHOAL_SEG_DEVICE) {
        unsigned char cur[8], old[8];
        struct shoal_rref l = lock_of(r->pe);
        enum shoal_mem_kind k;
        int remote = here(r, &k) == NULL;
        lock_take(&l);
        dev_get(SHMEM_CTX_DEFAULT, cur, r, w, 0);
        memcpy(old, cur, w);
        amo_compute(op, w, cur, v, cmp);
        if (op != SHOAL_AMO_READ)
            dev_put(SHMEM_CTX_DEFAULT, r, cur, w, 0);
        lock_give(&l, remote);
        if (fetch)
            store_result(fetch, old, w);
        return;
    }
    if (fetch && local_kind(fetch) == SHOAL_MEM_DEVICE) {
        unsigned char old[8];
        inner->amo(ctx, r, op, type, v, cmp, old, 0);
        store_result(fetch, old, w);
        return;
    }
    inner->amo(ctx, r, op, type, v, cmp, fetch, nbi);
}

static const struct shoal_path dev_path = {
    .put = dev_put,
    .get = dev_get,
    .amo = dev_amo,
    .put_signal = dev_put_signal,
    .fence = dev_fence,
    .quiet = dev_quiet,
};

const struct shoal_path *shoal_path_dev_wrap(const struct shoal_path *in)
{
    inner = in;
    return &dev_path;
}

void shoal_dev_read_sym(void *dst, const void *sym, size_t len)
{
    if (shoal_dev_d2h(dst, sym, len))
        copy_failed(dst, sym, len);
}

void shoal_dev_settle_nic_writes(void)
{
    if (shoal_tp.dev_nic_iface < SHOAL_DEV_IFACE_CUDA)
        return; /* the network writes device memory through host mappings, or not at all */
    if (shoal_dev_flush_nic_writes())
        shoal_fatal("shoal", "the %s device failed to flush the network's writes",
                    shoal_dev->name);
}
