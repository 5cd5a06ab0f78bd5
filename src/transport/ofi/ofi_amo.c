/* Atomics. Every (operation, type) pair the provider supports natively goes to
 * fi_atomic / fi_fetch_atomic / fi_compare_atomic (table built at init with the
 * *atomicvalid calls); the others are computed here by a compare-and-swap loop
 * on the unsigned integer of the same size, which stays atomic with respect to
 * the native ones because each step is a native atomic on the same word.
 *
 * In a job that spans nodes the library sends every AMO here, to this PE and
 * same-node PEs too (this PE is in the AV), so all AMOs on a word go through one
 * atomicity domain: the provider's. */
#include "transport/ofi/ofi.h"

static const enum fi_op fi_op_of[OFI_AMO_OPS] = {
    [SHOAL_AMO_READ] = FI_ATOMIC_READ, [SHOAL_AMO_WRITE] = FI_ATOMIC_WRITE,
    [SHOAL_AMO_CSWAP] = FI_CSWAP,      [SHOAL_AMO_ADD] = FI_SUM,
    [SHOAL_AMO_AND] = FI_BAND,         [SHOAL_AMO_OR] = FI_BOR,
    [SHOAL_AMO_XOR] = FI_BXOR,
};

static const enum fi_datatype fi_type_of[OFI_AMO_TYPES] = {
    [SHOAL_AMO_INT32] = FI_INT32,
    [SHOAL_AMO_UINT32] = FI_UINT32,
    [SHOAL_AMO_INT64] = FI_INT64,
    [SHOAL_AMO_UINT64] = FI_UINT64,
};

static const size_t size_of[OFI_AMO_TYPES] = { 4, 4, 8, 8 };

/* The kind of call an operation needs: compare for CSWAP, fetch when the old
 * value is wanted, plain otherwise. */
static inline enum ofi_amo_kind kind_of(const struct shoal_amo *a)
{
    if (a->op == SHOAL_AMO_CSWAP)
        return OFI_AMO_COMPARE;
    return a->fetch || a->op == SHOAL_AMO_READ ? OFI_AMO_FETCH : OFI_AMO_PLAIN;
}

void ofi_amo_table(void)
{
    struct fid_ep *ep = ofi.dflt->ep;
    for (int op = 0; op < OFI_AMO_OPS; op++)
        for (int t = 0; t < OFI_AMO_TYPES; t++) {
            size_t count = 0;
            enum fi_datatype dt = fi_type_of[t];
            enum fi_op fop = fi_op_of[op];
            if (op == SHOAL_AMO_CSWAP) {
                ofi.mode.native[OFI_AMO_COMPARE][op][t] =
                        !fi_compare_atomicvalid(ep, dt, fop, &count) && count;
                continue;
            }
            if (op != SHOAL_AMO_READ)
                ofi.mode.native[OFI_AMO_PLAIN][op][t] =
                        !fi_atomicvalid(ep, dt, fop, &count) && count;
            count = 0;
            ofi.mode.native[OFI_AMO_FETCH][op][t] =
                    !fi_fetch_atomicvalid(ep, dt, fop, &count) && count;
            if (ofi.mode.emulate_amo)
                ofi.mode.native[OFI_AMO_PLAIN][op][t] =
                        ofi.mode.native[OFI_AMO_FETCH][op][t] = 0;
            /* With plain_amo_fetches a non-fetching AMO goes as a fetching one. */
            if (ofi.mode.plain_amo_fetches)
                ofi.mode.native[OFI_AMO_PLAIN][op][t] &=
                        ofi.mode.native[OFI_AMO_FETCH][op][t];
        }
    /* Put-with-signal may send a small payload as an atomic write of bytes. */
    size_t count = 0;
    if (!ofi.mode.emulate_amo && !fi_atomicvalid(ep, FI_UINT8, FI_ATOMIC_WRITE, &count))
        ofi.mode.atomic_bytes = count;
    if (!ofi.mode.native[OFI_AMO_COMPARE][SHOAL_AMO_CSWAP][SHOAL_AMO_UINT32] ||
        !ofi.mode.native[OFI_AMO_COMPARE][SHOAL_AMO_CSWAP][SHOAL_AMO_UINT64])
        shoal_fatal("shmem_init",
                    "libfabric provider %s has no compare-and-swap on 32- and "
                    "64-bit integers, which Shoal needs for its atomics; choose another "
                    "SHMEM_OFI_PROVIDER",
                    ofi.info->fabric_attr->prov_name);
}

/* One native fetching or compare AMO through a slot: operand at +8, compare at
 * +16, result at 0, copied to fetch at completion. */
static void fetch_native(struct ofi_ctx *c, enum fi_op op, enum fi_datatype dt, size_t size,
                         const void *operand, const void *compare, void *fetch,
                         uint64_t raddr, uint64_t key, int pe, volatile int *done,
                         uint64_t flags)
{
    struct ofi_slot *s = ofi_slot_get(c);
    s->pe = pe;
    memset(s->buf, 0, OFI_AMO_SLOT_BYTES);
    if (operand)
        memcpy(s->buf + 8, operand, size);
    if (compare)
        memcpy(s->buf + 16, compare, size);
    s->copy_to = fetch;
    s->copy_len = size;
    s->done = done;
    struct fi_ioc src = { s->buf + 8, 1 }, cmp = { s->buf + 16, 1 }, res = { s->buf, 1 };
    struct fi_rma_ioc rma = { raddr, 1, key };
    void *desc = c->slot_desc;
    struct fi_msg_atomic msg = ofi_amsg(&src, &desc, &rma, pe, dt, op, &s->fctx);
    flags |= FI_COMPLETION | ofi.mode.op_flags;
    if (op == FI_CSWAP)
        OFI_POST(c, "fi_compare_atomicmsg",
                 fi_compare_atomicmsg(c->ep, &msg, &cmp, &desc, 1, &res, &desc, 1, flags));
    else
        OFI_POST(c, "fi_fetch_atomicmsg",
                 fi_fetch_atomicmsg(c->ep, &msg, &res, &desc, 1, flags));
    c->reads++;
}

/* plain_amo_fetches (ofi_init.c): a non-fetching AMO as a fetching one, the result
 * dropped; it completes once applied, on the read counter. With quiet_read (no
 * write counter; rxm reports an injected atomic on counters only) the operand is
 * injected and the result goes to the discard buffer; over shm through a slot. */
static void plain_as_fetch(struct ofi_ctx *c, enum fi_op op, enum fi_datatype dt, size_t size,
                           const void *operand, uint64_t raddr, uint64_t key, int pe,
                           uint64_t flags)
{
    if (!ofi.mode.quiet_read || size > ofi.mode.inject_size) {
        fetch_native(c, op, dt, size, operand, NULL, NULL, raddr, key, pe, NULL, flags);
    } else {
        struct fi_ioc src = { (void *)operand, 1 }, res = { c->discard, 1 };
        struct fi_rma_ioc rma = { raddr, 1, key };
        void *desc = NULL, *rdesc = c->slot_desc;
        struct fi_msg_atomic msg = ofi_amsg(&src, &desc, &rma, pe, dt, op, NULL);
        OFI_POST(c, "fi_fetch_atomicmsg",
                 fi_fetch_atomicmsg(c->ep, &msg, &res, &rdesc, 1,
                                    flags | FI_INJECT | ofi.mode.op_flags));
        c->reads++;
    }
    c->amo_reads++;
}

/* A non-fetching native AMO: counted on the write counter (on the read counter as a
 * fetching one, with plain_amo_fetches), complete at quiet.
 * flags: FI_FENCE for a signal that must land after its payload. */
static void plain_native(struct ofi_ctx *c, enum fi_op op, enum fi_datatype dt, size_t size,
                         const void *operand, uint64_t raddr, uint64_t key, int pe,
                         uint64_t flags)
{
    if (ofi.mode.plain_amo_fetches) {
        plain_as_fetch(c, op, dt, size, operand, raddr, key, pe, flags);
        return;
    }
    /* fi_atomicmsg with FI_INJECT rather than fi_inject_atomic, whose completion
     * may not wait for delivery (see ofi_rma.c). */
    struct ofi_slot *s = NULL;
    struct fi_ioc src = { (void *)operand, 1 };
    void *desc = NULL, *context = NULL;
    if (size <= ofi.mode.inject_size) {
        flags |= FI_INJECT;
    } else {
        s = ofi_slot_get(c);
        s->pe = pe;
        memcpy(s->buf, operand, size);
        src.addr = s->buf;
        desc = c->slot_desc;
        context = &s->fctx;
        flags |= FI_COMPLETION;
    }
    struct fi_rma_ioc rma = { raddr, 1, key };
    struct fi_msg_atomic msg = ofi_amsg(&src, &desc, &rma, pe, dt, op, context);
    OFI_POST(c, "fi_atomicmsg", fi_atomicmsg(c->ep, &msg, flags | ofi.mode.op_flags));
    c->writes++;
}

/* Blocking native compare-and-swap of an unsigned word; returns the old value. */
static uint64_t cswap_word(struct ofi_ctx *c, size_t size, uint64_t compare, uint64_t swap,
                           uint64_t raddr, uint64_t key, int pe)
{
    uint64_t old = 0;
    uint32_t c32 = (uint32_t)compare, s32 = (uint32_t)swap, o32 = 0;
    volatile int done = 0;
    if (size == 4)
        fetch_native(c, FI_CSWAP, FI_UINT32, 4, &s32, &c32, &o32, raddr, key, pe, &done, 0);
    else
        fetch_native(c, FI_CSWAP, FI_UINT64, 8, &swap, &compare, &old, raddr, key, pe, &done,
                     0);
    ofi_wait_flag(c, &done);
    return size == 4 ? o32 : old;
}

/* new = old (op) operand, on the bits of the type (every AMO is on integer bits:
 * transport/amo.h). */
static uint64_t apply(const struct shoal_amo *a, uint64_t old)
{
    uint64_t v = 0;
    memcpy(&v, a->operand, size_of[a->type]);
    if (a->op == SHOAL_AMO_WRITE)
        return v;
    uint64_t r;
    switch (a->op) {
    case SHOAL_AMO_ADD: r = old + v; break;
    case SHOAL_AMO_AND: r = old & v; break;
    case SHOAL_AMO_OR: r = old | v; break;
    default: r = old ^ v; break;
    }
    return size_of[a->type] == 4 ? (uint32_t)r : r;
}

/* The fallback: read the word with a no-op compare-and-swap (0 -> 0), then swap
 * in the new value until no other update came between. Always blocking. */
static void amo_emulated(struct ofi_ctx *c, const struct shoal_amo *a, uint64_t raddr,
                         uint64_t key, int pe)
{
    size_t size = size_of[a->type];
    uint64_t old;
    if (a->op == SHOAL_AMO_CSWAP) {
        uint64_t cmp = 0, swp = 0;
        memcpy(&cmp, a->compare, size);
        memcpy(&swp, a->operand, size);
        old = cswap_word(c, size, cmp, swp, raddr, key, pe);
    } else {
        old = cswap_word(c, size, 0, 0, raddr, key, pe);
        while (a->op != SHOAL_AMO_READ) {
            uint64_t seen = cswap_word(c, size, old, apply(a, old), raddr, key, pe);
            if (seen == old)
                break;
            old = seen;
        }
    }
    if (a->fetch)
        memcpy(a->fetch, &old, size);
}

/* A single-transmit AMO (SHMEM_SESSION_UNRELIABLE): fi_inject_atomic on the
 * context's endpoint without counters, so nothing counts or waits for it one by
 * one; quiet, fence and the end of the session settle them (ofi_session.c). */
static void amo_single_transmit(struct ofi_ctx *c, const struct shoal_amo *a, int pe)
{
    OFI_POST(c, "fi_inject_atomic",
             fi_inject_atomic(c->uep, a->operand, 1, (fi_addr_t)pe,
                              ofi_raddr(a->seg, a->off, pe), ofi_rkey(a->seg, pe),
                              fi_type_of[a->type], fi_op_of[a->op]));
    if (!c->utouched[pe]) {
        c->utouched[pe] = 1;
        c->nutouched++;
    }
}

void ofi_unreliable_flush(struct ofi_ctx *c)
{
    c->uheld = 0;
    amo_single_transmit(c, &c->uamo, c->upe);
}

/* b folded into a, in the width's low bits: what applying a then b applies. */
static uint64_t fold(enum shoal_amo_op op, uint64_t a, uint64_t b)
{
    switch (op) {
    case SHOAL_AMO_ADD: return a + b;
    case SHOAL_AMO_AND: return a & b;
    case SHOAL_AMO_OR: return a | b;
    case SHOAL_AMO_XOR: return a ^ b;
    default: return b; /* set: the last one wins */
    }
}

/* Single-transmit AMOs fold while they hit one word with one operation: adds to a
 * counter, sets of a flag. Nothing may observe the steps between (no fetch, and
 * quiet or fence only settles them), so one message carrying their sum (or last
 * value) applies the same, at the same atomicity. Anything else of the context
 * sends the held one first, so their order with other operations is kept. */
static void amo_unreliable(struct ofi_ctx *c, const struct shoal_amo *a, int pe)
{
    size_t size = size_of[a->type];
    uint64_t v = 0;
    memcpy(&v, a->operand, size);
    const struct shoal_amo *h = &c->uamo;
    if (c->uheld && c->upe == pe && h->op == a->op && h->type == a->type &&
        h->seg == a->seg && h->off == a->off) {
        c->uval = fold(a->op, c->uval, v);
        if (size == 4)
            c->uval &= 0xffffffffu;
        return;
    }
    if (c->uheld)
        ofi_unreliable_flush(c);
    c->uamo = *a;
    c->uamo.operand = &c->uval; /* the low bytes: little-endian, as fi_*_atomic read */
    c->uval = v;
    c->upe = pe;
    c->uheld = 1;
}

void ofi_amo_locked(struct ofi_ctx *c, const struct shoal_amo *a, int pe, int nbi,
                    uint64_t flags)
{
    if (SHOAL_UNLIKELY(a->signal) && ofi_signal_as_write(a->op, pe)) {
        ofi_put_word(c, a->seg, a->off, a->operand, pe, flags);
        return;
    }
    uint64_t raddr = ofi_raddr(a->seg, a->off, pe), key = ofi_rkey(a->seg, pe);
    enum ofi_amo_kind kind = kind_of(a);
    /* Only native non-fetching AMOs to other PEs: this PE reads its own words
     * with loads, and must find its own updates there. */
    if (SHOAL_UNLIKELY(c->unreliable) && a->user && kind == OFI_AMO_PLAIN &&
        ofi.mode.native[kind][a->op][a->type] && pe != shoal.my_pe &&
        size_of[a->type] <= ofi.mode.inject_size && ofi_uep(c)) {
        amo_unreliable(c, a, pe);
        return;
    }
    ofi_before_write(c, pe);
    /* A fence after it waits for every earlier operation, at once where a store
     * could overtake it (ofi_order.c). A blocking fetching AMO is complete when this
     * returns. */
    if (nbi || kind == OFI_AMO_PLAIN) {
        c->amos_out = 1;
        c->amos_local |= shoal_pe_local(pe);
    }
    if (SHOAL_UNLIKELY(!ofi.mode.native[kind][a->op][a->type])) {
        amo_emulated(c, a, raddr, key, pe);
    } else if (kind == OFI_AMO_PLAIN) {
        plain_native(c, fi_op_of[a->op], fi_type_of[a->type], size_of[a->type], a->operand,
                     raddr, key, pe, flags);
        /* This PE reads its own words with loads: an update of its own must be
         * there when the call returns, as it would be on the shm path. */
        if (pe == shoal.my_pe && !nbi)
            ofi_wait_cntr(c, ofi.mode.plain_amo_fetches ? c->rcntr : c->wcntr,
                          ofi.mode.plain_amo_fetches ? c->reads : c->writes, "an AMO", pe);
    } else {
        volatile int done = 0;
        uint64_t discard;
        /* A compare-and-swap may be issued without wanting the old value. */
        void *dst = a->fetch ? a->fetch : nbi ? NULL : &discard;
        fetch_native(c, fi_op_of[a->op], fi_type_of[a->type], size_of[a->type], a->operand,
                     a->compare, dst, raddr, key, pe, nbi ? NULL : &done, 0);
        if (!nbi)
            ofi_wait_flag(c, &done);
    }
}

void ofi_amo(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    ofi_amo_locked(c, a, pe, 0, 0);
    ofi_unlock(c);
}

void ofi_amo_nbi(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe)
{
    struct ofi_ctx *c = ofi_ctx_use(ctx);
    ofi_amo_locked(c, a, pe, 1, 0);
    ofi_unlock(c);
}
