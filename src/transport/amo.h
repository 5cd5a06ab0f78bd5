/* The atomic operations every transport offers, named alike by all of them. */
#ifndef SHOAL_AMO_H
#define SHOAL_AMO_H

#include <stdint.h>

enum shoal_amo_op {
    SHOAL_AMO_READ,  /* fetch */
    SHOAL_AMO_WRITE, /* set; swap when fetching */
    SHOAL_AMO_CSWAP,
    SHOAL_AMO_ADD,
    SHOAL_AMO_AND,
    SHOAL_AMO_OR,
    SHOAL_AMO_XOR,
};

/* Every AMO is on the bits of a 4- or 8-byte word: OpenSHMEM's floating-point
 * atomics (fetch, set, swap) only move bits, and the signedness matters to no
 * operation (two's complement), only to which datatype the provider is asked for. */
enum shoal_amo_type { SHOAL_AMO_INT32, SHOAL_AMO_UINT32, SHOAL_AMO_INT64, SHOAL_AMO_UINT64 };

static inline unsigned shoal_amo_width(enum shoal_amo_type t)
{
    return t <= SHOAL_AMO_UINT32 ? 4 : 8;
}

/* One atomic on a remote symmetric location. */
struct shoal_amo {
    enum shoal_amo_op op;
    enum shoal_amo_type type;
    int seg;
    uint64_t off;
    const void *operand; /* value to add, set, swap in, or compare-swap in */
    const void *compare; /* CSWAP only */
    void *fetch;         /* old value; NULL for a non-fetching AMO */
    int user;            /* a program's AMO (not a signal, lock or library word): a
                              SHMEM_SESSION_UNRELIABLE session may send it single-transmit */
    int signal;          /* a signal update: atomic only with respect to other signal
                              updates, so a set may go as a plain write (ofi_signal.c) */
};

/* Or'ed into the nbi argument of shoal_tp_amo by the API's AMO routines: the AMO is
 * the program's own (struct shoal_amo.user). */
#define SHOAL_AMO_FROM_USER 2
/* Or'ed in likewise by the signal routines (struct shoal_amo.signal). */
#define SHOAL_AMO_SIGNAL 4

/* The memory orders a load, a store and a failed compare-and-swap may take for an
 * atomic of order mo (the C11 rules). */
#define SHOAL_CPU_LOAD_MO(mo) ((mo) == __ATOMIC_SEQ_CST ? __ATOMIC_SEQ_CST : __ATOMIC_ACQUIRE)
#define SHOAL_CPU_STORE_MO(mo)                                                               \
    ((mo) == __ATOMIC_SEQ_CST ? __ATOMIC_SEQ_CST : __ATOMIC_RELEASE)

/* One CPU atomic on the word at p (enum shoal_amo_op values); returns the old value:
 * the same-node path on a peer's mapped word, and any transport that applies an AMO
 * on this PE's own memory for a peer, so that the two stay atomic with each
 * other. A WRITE that fetches nothing is a plain atomic store. */
#define SHOAL_CPU_AMO(T, p, op, v, cmp, fetching, mo)                                        \
    do {                                                                                     \
        T *w_ = (T *)(p);                                                                    \
        switch (op) {                                                                        \
        case SHOAL_AMO_READ: return __atomic_load_n(w_, SHOAL_CPU_LOAD_MO(mo));              \
        case SHOAL_AMO_WRITE:                                                                \
            if (!(fetching)) {                                                               \
                __atomic_store_n(w_, (v), SHOAL_CPU_STORE_MO(mo));                           \
                return 0;                                                                    \
            }                                                                                \
            return __atomic_exchange_n(w_, (v), (mo));                                       \
        case SHOAL_AMO_CSWAP: {                                                              \
            T c_ = (cmp);                                                                    \
            __atomic_compare_exchange_n(w_, &c_, (v), 0, (mo), SHOAL_CPU_LOAD_MO(mo));       \
            return c_;                                                                       \
        }                                                                                    \
        case SHOAL_AMO_ADD: return __atomic_fetch_add(w_, (v), (mo));                        \
        case SHOAL_AMO_AND: return __atomic_fetch_and(w_, (v), (mo));                        \
        case SHOAL_AMO_OR: return __atomic_fetch_or(w_, (v), (mo));                          \
        default: return __atomic_fetch_xor(w_, (v), (mo));                                   \
        }                                                                                    \
    } while (0)

static inline uint32_t shoal_cpu_amo32(void *p, enum shoal_amo_op op, uint32_t v,
                                       uint32_t cmp, int fetching, int mo)
{
    SHOAL_CPU_AMO(uint32_t, p, op, v, cmp, fetching, mo);
}

static inline uint64_t shoal_cpu_amo64(void *p, enum shoal_amo_op op, uint64_t v,
                                       uint64_t cmp, int fetching, int mo)
{
    SHOAL_CPU_AMO(uint64_t, p, op, v, cmp, fetching, mo);
}

#endif
