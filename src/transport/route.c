/* The network paths of the API layer (route.h): symmetric address to (segment,
 * offset), then one call through the transport's table. */
#include "transport/route.h"
#include "transport/shm/shm.h"

static int seg_off(const void *addr, uint64_t *off)
{
    int s = shoal_seg_of(addr, off);
    if (SHOAL_UNLIKELY(s < 0))
        shoal_bad_addr("shoal", addr, -1);
    return s;
}

void shoal_net_put(shmem_ctx_t ctx, void *dest, const void *src, size_t len, int pe, int nbi)
{
    uint64_t off;
    int s = seg_off(dest, &off);
    if (nbi)
        shoal.net->put_nbi(ctx, s, off, src, len, pe);
    else
        shoal.net->put(ctx, s, off, src, len, pe);
}

void shoal_net_get(shmem_ctx_t ctx, void *dst, const void *src, size_t len, int pe, int nbi)
{
    uint64_t off;
    int s = seg_off(src, &off);
    if (nbi)
        shoal.net->get_nbi(ctx, dst, s, off, len, pe);
    else
        shoal.net->get(ctx, dst, s, off, len, pe);
}

static void net_amo(shmem_ctx_t ctx, struct shoal_amo *a, void *dest, int pe, int nbi)
{
    a->seg = seg_off(dest, &a->off);
    /* Stores of this thread to same-node memory come before the AMO that may
     * announce them. */
    shoal_shm_release_after(0);
    if (nbi && a->fetch)
        shoal.net->amo_nbi(ctx, a, pe);
    else
        shoal.net->amo(ctx, a, pe);
}

void shoal_net_amo(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type, void *dest,
                   const void *operand, const void *compare, void *fetch, int pe, int nbi)
{
    struct shoal_amo a = { .op = op, .type = type, .operand = operand, .compare = compare,
                           .fetch = fetch };
    net_amo(ctx, &a, dest, pe, nbi);
}

void shoal_net_amo_user(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type,
                        void *dest, const void *operand, const void *compare, void *fetch, int pe,
                        int nbi)
{
    struct shoal_amo a = { .op = op, .type = type, .operand = operand, .compare = compare,
                           .fetch = fetch, .user = 1 };
    net_amo(ctx, &a, dest, pe, nbi);
}

void shoal_net_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t len,
                          uint64_t *sig, uint64_t signal, enum shoal_amo_op sig_op, int pe,
                          int nbi)
{
    uint64_t off, sig_off;
    int s = seg_off(dest, &off), ss = seg_off(sig, &sig_off);
    shoal.net->put_signal(ctx, s, off, src, len, ss, sig_off, signal, sig_op, nbi, pe);
}

uint64_t shoal_word_fetch_op(enum shoal_amo_op op, uint64_t *word, uint64_t v, int pe)
{
    uint64_t old;
    if (shoal_amo_via_net()) {
        shoal_net_amo(SHMEM_CTX_DEFAULT, op, SHOAL_AMO_UINT64, word, &v, NULL, &old, pe, 0);
        return old;
    }
    uint64_t *w = (uint64_t *)shoal_xlate(word, pe);
    switch (op) {
    case SHOAL_AMO_ADD: return __atomic_fetch_add(w, v, __ATOMIC_ACQ_REL);
    case SHOAL_AMO_OR:  return __atomic_fetch_or(w, v, __ATOMIC_ACQ_REL);
    case SHOAL_AMO_AND: return __atomic_fetch_and(w, v, __ATOMIC_ACQ_REL);
    case SHOAL_AMO_XOR: return __atomic_fetch_xor(w, v, __ATOMIC_ACQ_REL);
    case SHOAL_AMO_WRITE: return __atomic_exchange_n(w, v, __ATOMIC_ACQ_REL);
    case SHOAL_AMO_READ: return __atomic_load_n(w, __ATOMIC_ACQUIRE);
    case SHOAL_AMO_CSWAP: break;
    }
    shoal_fatal("shoal", "internal: word operation %d", (int)op);
}

void shoal_word_add(uint64_t *word, uint64_t v, int pe)
{
    if (shoal_amo_via_net())
        shoal_net_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_ADD, SHOAL_AMO_UINT64, word, &v, NULL, NULL,
                      pe, 0);
    else
        __atomic_fetch_add((uint64_t *)shoal_xlate(word, pe), v, __ATOMIC_RELEASE);
}

uint64_t shoal_word_read(const uint64_t *word, int pe)
{
    uint64_t zero = 0;
    return shoal_word_fetch_op(SHOAL_AMO_READ, (uint64_t *)word, zero, pe);
}

void shoal_word_store(uint64_t *word, uint64_t v, int pe, size_t payload)
{
    /* Each such word has one writer at a time and no AMO in flight when it is
     * stored, so a CPU store cannot break the network's atomicity. */
    uint64_t *w = (uint64_t *)shoal_xlate(word, pe);
    if (w) {
        shoal_shm_release_after(payload);
        __atomic_store_n(w, v, __ATOMIC_RELEASE);
        return;
    }
    /* The payload put before it must land first. */
    shoal.net->fence(SHMEM_CTX_DEFAULT);
    shoal_net_amo(SHMEM_CTX_DEFAULT, SHOAL_AMO_WRITE, SHOAL_AMO_UINT64, word, &v, NULL, NULL,
                  pe, 0);
}

void shoal_copy_to(int pe, void *dest_sym, const void *src, size_t len)
{
    char *d = shoal_xlate(dest_sym, pe);
    if (d)
        shoal_shm_copy(d, src, len);
    else
        shoal_net_put(SHMEM_CTX_DEFAULT, dest_sym, src, len, pe, 0);
}

void shoal_copy_from(int pe, void *dst, const void *src_sym, size_t len)
{
    const char *s = shoal_xlate(src_sym, pe);
    if (s)
        shoal_shm_copy(dst, s, len);
    else
        shoal_net_get(SHMEM_CTX_DEFAULT, dst, src_sym, len, pe, 0);
}
