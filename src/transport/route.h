/* The way to a PE that is not mapped here: the network transport. The API layer
 * takes the load/store path inline when shoal_remote() gives it a pointer, and
 * calls these otherwise; they are out of line because a network operation costs
 * far more than the call. Symmetric addresses are this PE's own (checked by the
 * caller); pe is a world PE number. */
#ifndef SHOAL_ROUTE_H
#define SHOAL_ROUTE_H

#include "core/state.h"

/* AMOs take one path for the whole job so they stay atomic with respect to each
 * other: CPU atomics when every PE shares this node, the network otherwise. */
static inline int shoal_amo_via_net(void)
{
    return shoal.multi_node;
}

/* The atomic type of a C type, for the network's AMOs. */
#define SHOAL_AMO_TYPE_OF(T)                                                            \
    _Generic((T)0, float: SHOAL_AMO_FLOAT, double: SHOAL_AMO_DOUBLE,                    \
             default: sizeof(T) == 4 ? ((T)-1 < (T)1 ? SHOAL_AMO_INT32 : SHOAL_AMO_UINT32) \
                                     : ((T)-1 < (T)1 ? SHOAL_AMO_INT64 : SHOAL_AMO_UINT64))

void shoal_net_put(shmem_ctx_t ctx, void *dest, const void *src, size_t len, int pe, int nbi);
void shoal_net_get(shmem_ctx_t ctx, void *dst, const void *src, size_t len, int pe, int nbi);
/* One AMO on dest at pe. fetch NULL: non-fetching. nbi: *fetch is written by quiet. */
void shoal_net_amo(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type, void *dest,
                   const void *operand, const void *compare, void *fetch, int pe, int nbi);
/* The same for a program's own AMO (shmem_*_atomic_*), which a session may send
 * single-transmit; signals, locks and the library's words never are. */
void shoal_net_amo_user(shmem_ctx_t ctx, enum shoal_amo_op op, enum shoal_amo_type type,
                        void *dest, const void *operand, const void *compare, void *fetch, int pe,
                        int nbi);
void shoal_net_put_signal(shmem_ctx_t ctx, void *dest, const void *src, size_t len,
                          uint64_t *sig, uint64_t signal, enum shoal_amo_op sig_op, int pe,
                          int nbi);

/* Library-internal 64-bit words (barriers, collectives, team agreement) on world PE
 * pe, on the default context, whichever way that PE is reached. */
uint64_t shoal_word_fetch_op(enum shoal_amo_op op, uint64_t *word, uint64_t v, int pe);
uint64_t shoal_word_read(const uint64_t *word, int pe);
/* Non-fetching: returns without waiting for the update to land (barrier arrivals,
 * whose target waits for them anyway). */
void shoal_word_add(uint64_t *word, uint64_t v, int pe);
/* Stores v once the payload put to pe before it (payload bytes) is visible there. */
void shoal_word_store(uint64_t *word, uint64_t v, int pe, size_t payload);
/* Blocking copies for the collectives. */
void shoal_copy_to(int pe, void *dest_sym, const void *src, size_t len);
void shoal_copy_from(int pe, void *dst, const void *src_sym, size_t len);

#endif
