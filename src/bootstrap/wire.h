/* Messages on the oshrun channel: one AF_UNIX stream socket per PE, created by
 * oshrun and inherited by the PE as SHOAL_BOOT_FD. Both ends run on the same
 * machine from the same build, so fields are in host byte order.
 *
 * Every message is a shoal_wire_hdr followed by hdr.len payload bytes.
 *   PE -> oshrun: HELLO (once, first), BARRIER, ALLGATHER, LAST_SYNC, LEFT_QUERY,
 *                 FINALIZE, ABORT.
 *   oshrun -> PE: WELCOME (answers HELLO), BARRIER_DONE, ALLGATHER_DONE, LEFT
 *                 (answers LEFT_QUERY).
 * A PE has at most one request outstanding; oshrun answers a collective once
 * every PE of the job has sent the same one. */
#ifndef SHOAL_WIRE_H
#define SHOAL_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Bumped whenever a message changes, so a program built against one Shoal and
 * run by another's oshrun fails with a message instead of misreading bytes. */
#define SHOAL_WIRE_VERSION 2

/* Largest payload either side accepts: bounds what a corrupt header can make
 * the reader allocate. Setup exchanges are far smaller. */
#define SHOAL_WIRE_MAX_LEN ((uint64_t)1 << 30)

enum shoal_wire_type {
    SHOAL_WIRE_HELLO = 1,      /* payload: struct shoal_wire_hello */
    SHOAL_WIRE_WELCOME,        /* payload: struct shoal_wire_welcome */
    SHOAL_WIRE_BARRIER,        /* no payload */
    SHOAL_WIRE_BARRIER_DONE,   /* no payload */
    SHOAL_WIRE_ALLGATHER,      /* payload: this PE's contribution */
    SHOAL_WIRE_ALLGATHER_DONE, /* payload: size * len bytes in rank order */
    SHOAL_WIRE_FINALIZE,       /* no payload: the PE's exit is now expected */
    SHOAL_WIRE_ABORT,     /* arg: exit status; payload: message text, no NUL (may be empty) */
    SHOAL_WIRE_LAST_SYNC, /* payload: uint64_t, the world synchronisations this PE made */
    SHOAL_WIRE_LEFT_QUERY, /* no payload: who published the fewest (LAST_SYNC)? */
    SHOAL_WIRE_LEFT,       /* payload: struct shoal_wire_left */
};

/* The answer to LEFT_QUERY: the PE with the fewest synchronisations among those that
 * sent LAST_SYNC, and that count; pe is -1 when none has. */
struct shoal_wire_left {
    int32_t pe;
    int32_t reserved;
    uint64_t syncs;
};

struct shoal_wire_hdr {
    uint32_t type;
    int32_t arg;
    uint64_t len;
};

struct shoal_wire_hello {
    uint32_t version; /* SHOAL_WIRE_VERSION */
    int32_t rank;     /* SHOAL_RANK as the PE read it: checks the fd belongs to that PE */
};

struct shoal_wire_welcome {
    int32_t size;
    int32_t node_rank;
    int32_t node_size;
    int32_t reserved;
};

/* The checks a PE makes on what oshrun sends, as pure functions so that the
 * fuzz targets (fuzz/) can drive them without a channel. Each returns NULL when
 * the message is acceptable, else why it is not. */

/* h is the header of the reply to a request that expects type and len bytes. */
static inline const char *shoal_wire_reply_error(const struct shoal_wire_hdr *h,
                                                 uint32_t type, uint64_t len)
{
    if (h->type != type)
        return "unexpected message type";
    if (h->len != len)
        return "unexpected payload length";
    return NULL;
}

/* w answers the HELLO of a PE that read SHOAL_SIZE=size. */
static inline const char *shoal_wire_welcome_error(const struct shoal_wire_welcome *w,
                                                   int size)
{
    if (w->size != size)
        return "job size differs from SHOAL_SIZE";
    if (w->node_size < 1 || w->node_size > w->size)
        return "PEs on this node out of range";
    if (w->node_rank < 0 || w->node_rank >= w->node_size)
        return "rank on this node out of range";
    return NULL;
}

#endif
