/* Device-aware paths (dev_route.h).
 *
 * Where the bytes go:
 *   same node: the symmetric object is mapped here (host segments) or opened through
 *     the backend's IPC (the device heap): one backend copy, host<->device or
 *     device<->device, complete when it returns;
 *   other nodes: the network. A host local buffer goes as usual (the device heap is
 *     registered through the alias the backend offers); a device local buffer is
 *     staged through host bounce buffers, in pipelined chunks: the copy of chunk k+1
 *     out of the device overlaps the network's sending of chunk k (the paper's
 *     section 6.3: the NIC injects only from host memory).
 *   AMOs on device-heap objects: the NIC and the CPU cannot operate on device memory
 *     atomically, so every such AMO takes a per-target-PE lock (a host word in the
 *     symmetric heap, taken by compare-and-swap the way every other AMO of the job
 *     goes), reads the value, computes, writes it back and releases. All AMOs on
 *     device-heap objects go this way, so they are atomic with respect to each other;
 *     a plain put to the same word is not ordered with them, as in the specification. */
#include <pthread.h>
#include <stdlib.h>

#include "device/device.h"
#include "transport/dev_route.h"
#include "transport/route.h"
#include "transport/shm/shm.h"

static _Noreturn void copy_failed(const char *fn, const void *dst, const void *src, size_t len)
{
    shoal_fatal(fn, "the %s device failed to copy %zu bytes from %p to %p; is the buffer "
                "device memory of this process, and large enough?", shoal_dev->name, len, src,
                dst);
}

/* Whether local buffer p of len bytes is device memory. */
static int local_is_dev(const char *fn, const void *p)
{
    if (shoal_dev_sym(p))
        return 1;
    if (shoal.cfg.enable_device_awareness)
        return shoal_dev_is_device(p);
    if (shoal.cfg.debug && shoal_dev && shoal_dev_is_device(p))
        shoal_fatal(fn, "local buffer %p is device memory, but device awareness is off; set "
                    "SHMEM_ENABLE_DEVICE_AWARENESS=1 or pass a host buffer", p);
    return 0;
}

static int copy_kind(void *dst, int ddev, const void *src, int sdev, size_t len)
{
    if (ddev && sdev)
        return shoal_dev_d2d(dst, src, len);
    if (ddev)
        return shoal_dev_h2d(dst, src, len);
    if (sdev)
        return shoal_dev_d2h(dst, src, len);
    memcpy(dst, src, len);
    return 0;
}

/* A copy on this node. A failed copy may come from a stale cache entry (the program
 * freed and reallocated behind the layer's back): forget the ranges, ask again. */
static void copy_any(const char *fn, void *dst, int ddev, const void *src, int sdev, size_t len,
                     void *local)
{
    if (copy_kind(dst, ddev, src, sdev, len) == 0)
        return;
    shoal_dev_forget(local, len);
    int ldev = local_is_dev(fn, local);
    if (local == dst)
        ddev = ldev;
    else
        sdev = ldev;
    if (copy_kind(dst, ddev, src, sdev, len))
        copy_failed(fn, dst, src, len);
}

/* ---- staging through host memory, for the network ---------------------------------- */

#define STAGE_CHUNK ((size_t)256 * 1024)

static pthread_key_t stage_key;
static pthread_once_t stage_once = PTHREAD_ONCE_INIT;
static void stage_key_make(void) { pthread_key_create(&stage_key, free); }

/* This thread's two bounce buffers of STAGE_CHUNK bytes. */
static char *stage_buf(const char *fn)
{
    pthread_once(&stage_once, stage_key_make);
    char *b = pthread_getspecific(stage_key);
    if (!b) {
        b = malloc(2 * STAGE_CHUNK);
        if (!b || pthread_setspecific(stage_key, b))
            shoal_fatal(fn, "out of memory for device staging buffers");
    }
    return b;
}

static void staged_put(const char *fn, shmem_ctx_t ctx, char *dest, const char *src, size_t len,
                       int wpe)
{
    char *buf = stage_buf(fn);
    size_t k = 0;
    for (size_t done = 0; done < len; done += STAGE_CHUNK, k ^= 1) {
        size_t n = len - done < STAGE_CHUNK ? len - done : STAGE_CHUNK;
        /* Buffer k still feeds the put of two chunks ago until local completion. */
        if (done >= 2 * STAGE_CHUNK)
            shoal.net->local_complete(ctx);
        char *b = buf + k * STAGE_CHUNK;
        if (shoal_dev_d2h(b, src + done, n))
            copy_failed(fn, b, src + done, n);
        shoal_net_put(ctx, dest + done, b, n, wpe, 1);
    }
    shoal.net->local_complete(ctx);
}

static void staged_get(const char *fn, shmem_ctx_t ctx, char *dst, const char *src, size_t len,
                       int wpe)
{
    char *buf = stage_buf(fn);
    for (size_t done = 0; done < len; done += STAGE_CHUNK) {
        size_t n = len - done < STAGE_CHUNK ? len - done : STAGE_CHUNK;
        shoal_net_get(ctx, buf, src + done, n, wpe, 0);
        if (shoal_dev_h2d(dst + done, buf, n))
            copy_failed(fn, dst + done, buf, n);
    }
}

/* ---- RMA ----------------------------------------------------------------------------- */

void shoal_dev_rma(const char *fn, shmem_ctx_t ctx, void *dest, const void *source, size_t len,
                   int pe, int nbi, int is_put)
{
    if (len == 0)
        return;
    const void *sym = is_put ? dest : source;
    void *loc = is_put ? (void *)source : dest;
    int wpe;
    char *r = shoal_remote(fn, ctx, sym, len, pe, &wpe);
    int rdev = 0;
    if (!r && shoal_dev_sym(sym) && shoal.seg[SHOAL_SEG_DEVICE].peer[wpe]) {
        r = shoal.seg[SHOAL_SEG_DEVICE].peer[wpe] + ((uintptr_t)sym - shoal.seg[SHOAL_SEG_DEVICE].base);
        rdev = 1;
    }
    int ldev = local_is_dev(fn, loc);
    if (r) {
        if (is_put)
            copy_any(fn, r, rdev, loc, ldev, len, loc);
        else
            copy_any(fn, loc, ldev, r, rdev, len, loc);
    } else if (!ldev) {
        if (is_put)
            shoal_net_put(ctx, dest, source, len, wpe, nbi);
        else
            shoal_net_get(ctx, dest, source, len, wpe, nbi);
    } else if (is_put) {
        staged_put(fn, ctx, dest, source, len, wpe);
    } else {
        staged_get(fn, ctx, dest, source, len, wpe);
    }
}

void shoal_dev_strided(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                       ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, size_t esize,
                       int pe, int is_put)
{
    size_t blen = bsize * esize;
    int wpe;
    shoal_remote(fn, ctx, is_put ? dest : source, esize, pe, &wpe);
    int net = !shoal_pe_local(wpe);
    /* Over the network the blocks go non-blocking and complete together, as in
     * api/rma.h's host-only form. */
    for (size_t k = 0; k < nblocks; k++)
        shoal_dev_rma(fn, ctx, (char *)dest + (ptrdiff_t)k * dst * (ptrdiff_t)esize,
                      (const char *)source + (ptrdiff_t)k * sst * (ptrdiff_t)esize, blen, pe, net,
                      is_put);
    if (net)
        shoal.net->quiet(ctx);
}

void shoal_dev_put_payload(const char *fn, shmem_ctx_t ctx, void *dest, const void *source,
                           size_t len, int pe)
{
    int wpe;
    shoal_remote(fn, ctx, dest, len ? len : 1, pe, &wpe);
    shoal_dev_rma(fn, ctx, dest, source, len, pe, 0, 1);
    /* Same node: the copy is complete. Over the network the signal must not pass it. */
    if (len && !shoal_pe_local(wpe))
        shoal.net->fence(ctx);
}

/* ---- AMOs ---------------------------------------------------------------------------- */

/* old = *cur; *cur = op(old, operand). */
#define AMO_COMPUTE(T)                                                                       \
    do {                                                                                     \
        T o, v, c = 0, n;                                                                    \
        memcpy(&o, cur, sizeof o);                                                           \
        memcpy(&v, operand, sizeof v);                                                       \
        if (compare)                                                                         \
            memcpy(&c, compare, sizeof c);                                                   \
        switch (op) {                                                                        \
        case SHOAL_AMO_READ: n = o; break;                                                   \
        case SHOAL_AMO_WRITE: n = v; break;                                                  \
        case SHOAL_AMO_CSWAP: n = o == c ? v : o; break;                                     \
        case SHOAL_AMO_ADD: n = o + v; break;                                                \
        default: n = BITWISE(T, o, v); break;                                                \
        }                                                                                    \
        memcpy(cur, &n, sizeof n);                                                           \
    } while (0)
#define BITWISE_INT(T, o, v)                                                                 \
    (op == SHOAL_AMO_AND ? (T)(o & v) : op == SHOAL_AMO_OR ? (T)(o | v) : (T)(o ^ v))

static void amo_compute(enum shoal_amo_op op, enum shoal_amo_type type, void *cur,
                        const void *operand, const void *compare)
{
    switch (type) {
#define BITWISE BITWISE_INT
    case SHOAL_AMO_INT32: AMO_COMPUTE(int32_t); break;
    case SHOAL_AMO_UINT32: AMO_COMPUTE(uint32_t); break;
    case SHOAL_AMO_INT64: AMO_COMPUTE(int64_t); break;
    case SHOAL_AMO_UINT64: AMO_COMPUTE(uint64_t); break;
#undef BITWISE
#define BITWISE(T, o, v) (o) /* the API has no bitwise AMO on floating types */
    case SHOAL_AMO_FLOAT: AMO_COMPUTE(float); break;
    case SHOAL_AMO_DOUBLE: AMO_COMPUTE(double); break;
#undef BITWISE
    }
}

static size_t amo_size(enum shoal_amo_type t)
{
    return t == SHOAL_AMO_INT32 || t == SHOAL_AMO_UINT32 || t == SHOAL_AMO_FLOAT ? 4 : 8;
}

static void lock_take(int wpe)
{
    uint64_t *lock = shoal.dev_amo_lock;
    struct shoal_backoff b = { 0 };
    for (;;) {
        uint64_t one = 1, zero = 0, old = 0;
        if (shoal_amo_via_net())
            shoal_net_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_CSWAP, SHOAL_AMO_UINT64, lock, &one,
                          &zero, &old, wpe, 0);
        else
            __atomic_compare_exchange_n((uint64_t *)shoal_xlate(lock, wpe), &old, 1, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
        if (old == 0)
            return;
        shoal_backoff(&b);
    }
}

static void lock_give(int wpe)
{
    if (shoal_amo_via_net()) {
        /* The value written back lands before the lock is seen free. */
        shoal.net->quiet(SHMEM_CTX_DEFAULT);
        shoal_word_fetch_op(SHOAL_AMO_WRITE, shoal.dev_amo_lock, 0, wpe);
    } else {
        __atomic_store_n((uint64_t *)shoal_xlate(shoal.dev_amo_lock, wpe), 0, __ATOMIC_RELEASE);
    }
}

int shoal_dev_amo(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type, void *dest,
                  const void *operand, const void *compare, void *fetch, int wpe)
{
    const char *fn = "shmem_atomic";
    size_t size = amo_size(type);
    if (shoal_dev_sym(dest)) {
        unsigned char cur[8], old[8];
        lock_take(wpe);
        shoal_dev_rma(fn, SHMEM_CTX_DEFAULT, cur, dest, size, wpe, 0, 0);
        memcpy(old, cur, size);
        amo_compute(op, type, cur, operand, compare);
        if (op != SHOAL_AMO_READ)
            shoal_dev_rma(fn, SHMEM_CTX_DEFAULT, dest, cur, size, wpe, 0, 1);
        lock_give(wpe);
        if (fetch)
            shoal_dev_store_result(fn, fetch, old, size);
        return 1;
    }
    if (fetch && local_is_dev(fn, fetch)) {
        unsigned char old[8];
        shoal_net_amo(ctx, op, type, dest, operand, compare, old, wpe, 0);
        shoal_dev_store_result(fn, fetch, old, size);
        return 1;
    }
    return 0;
}

void shoal_dev_store_result(const char *fn, void *fetch, const void *val, size_t len)
{
    if (!local_is_dev(fn, fetch))
        memcpy(fetch, val, len);
    else if (shoal_dev_h2d(fetch, val, len))
        copy_failed(fn, fetch, val, len);
}

void shoal_dev_read_sym(void *dst, const void *sym, size_t len)
{
    if (shoal_dev_d2h(dst, sym, len))
        copy_failed("shmem_wait_until", dst, sym, len);
}
