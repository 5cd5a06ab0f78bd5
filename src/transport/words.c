/* The library's own words and copies (barriers, collectives, team agreement): each
 * resolves its address and takes the dispatchers of transport.h. */
#include "transport/transport.h"

#include "base/routine.h"

/* A library-internal symmetric address is always symmetric. */
static struct shoal_rref own(const void *addr, int pe)
{
    struct shoal_rref r;
    if (SHOAL_UNLIKELY(shoal_resolve(addr, pe, &r) < 0))
        shoal_bad_addr("shoal", addr, pe);
    return r;
}

uint64_t shoal_word_fetch_op(enum shoal_amo_op op, uint64_t *word, uint64_t v, int pe)
{
    struct shoal_rref r = own(word, pe);
    uint64_t old;
    shoal_tp_amo(SHMEM_CTX_DEFAULT, &r, op, SHOAL_AMO_UINT64, v, 0, &old, 0,
                 __ATOMIC_ACQ_REL);
    return old;
}

uint64_t shoal_word_read(const uint64_t *word, int pe)
{
    return shoal_word_fetch_op(SHOAL_AMO_READ, (uint64_t *)word, 0, pe);
}

/* A same-node PE may sleep on the word just stored to (base/backoff.h). */
static void wake(const void *word, int pe)
{
    struct shoal_rref s;
    if (shoal_sleepers && shoal_resolve(shoal_sleepers, pe, &s) == 0 && s.ptr)
        shoal_backoff_wake(word, (const uint64_t *)s.ptr);
}

void shoal_word_add(uint64_t *word, uint64_t v, int pe)
{
    struct shoal_rref r = own(word, pe);
    shoal_tp_amo(SHMEM_CTX_DEFAULT, &r, SHOAL_AMO_ADD, SHOAL_AMO_UINT64, v, 0, NULL, 0,
                 __ATOMIC_RELEASE);
    if (r.ptr)
        wake(r.ptr, pe);
}

void shoal_word_store(uint64_t *word, uint64_t v, int pe, size_t payload)
{
    struct shoal_rref r = own(word, pe);
    /* Each such word has one writer at a time and no AMO in flight when it is
     * stored, so a CPU store cannot break the network's atomicity. */
    if (r.ptr) {
        shoal_shm_release_after(payload);
        __atomic_store_n((uint64_t *)r.ptr, v, __ATOMIC_RELEASE);
        wake(r.ptr, pe);
        return;
    }
    /* The payload put before it must land first. */
    if (payload)
        r.tp->fence(SHMEM_CTX_DEFAULT);
    shoal_net_amo(SHMEM_CTX_DEFAULT, &r, SHOAL_AMO_WRITE, SHOAL_AMO_UINT64, v, 0, NULL, 0);
}

void shoal_word_signal(int pe, void *dest_sym, const void *src, size_t len, uint64_t *word,
                       uint64_t count)
{
    struct shoal_rref w = own(word, pe);
    if (w.ptr) {
        if (len)
            shoal_shm_copy(own(dest_sym, pe).ptr, src, len);
        shoal_shm_release_after(len);
        __atomic_store_n((uint64_t *)w.ptr, count, __ATOMIC_RELEASE);
        wake(w.ptr, pe);
        return;
    }
    /* Adds commute: signals of one writer need no order among themselves. */
    if (len) {
        struct shoal_rref d = own(dest_sym, pe);
        shoal_shm_release_after(0); /* this thread's same-node stores first, as for AMOs */
        struct shoal_put_signal ps = {
            .dst = d, .sig = w, .src = src, .len = len, .signal = 1, .sig_op = SHOAL_AMO_ADD
        };
        d.tp->put_signal(SHMEM_CTX_DEFAULT, &ps);
    } else {
        shoal_net_amo(SHMEM_CTX_DEFAULT, &w, SHOAL_AMO_ADD, SHOAL_AMO_UINT64, 1, 0, NULL, 0);
    }
}

int shoal_word_put_set(int pe, const struct shoal_rref *dst, const void *src, size_t len,
                       uint64_t *word, uint64_t v, int nbi)
{
    struct shoal_rref w = own(word, pe);
    if (w.ptr) {
        if (len)
            shoal_shm_copy(dst->ptr, src, len);
        shoal_shm_release_after(len);
        __atomic_store_n((uint64_t *)w.ptr, v, __ATOMIC_RELEASE);
        wake(w.ptr, pe);
        return 0;
    }
    if (len) {
        shoal_shm_release_after(0); /* this thread's same-node stores first, as for AMOs */
        struct shoal_put_signal ps = { .dst = *dst,
                                       .sig = w,
                                       .src = src,
                                       .len = len,
                                       .signal = v,
                                       .sig_op = SHOAL_AMO_WRITE,
                                       .nbi = nbi };
        w.tp->put_signal(SHMEM_CTX_DEFAULT, &ps);
    } else {
        shoal_net_amo(SHMEM_CTX_DEFAULT, &w, SHOAL_AMO_WRITE, SHOAL_AMO_UINT64, v, 0, NULL,
                      0);
    }
    return 1;
}

void shoal_copy_to(int pe, void *dest_sym, const void *src, size_t len)
{
    struct shoal_rref r = own(dest_sym, pe);
    shoal_copy_path->put(SHMEM_CTX_DEFAULT, &r, src, len, 0);
}

void shoal_copy_from(int pe, void *dst, const void *src_sym, size_t len)
{
    struct shoal_rref r = own(src_sym, pe);
    shoal_copy_path->get(SHMEM_CTX_DEFAULT, dst, &r, len, 0);
}
