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

#endif
