/* The network transport interface: how a PE reaches PEs on other nodes.
 *
 * A transport is a table of operations; the API layer never calls a provider
 * directly, only the one-line dispatchers at the end of this file. Symmetric
 * locations are named by (segment, offset), which mean the same on every PE; the
 * transport turns them into whatever its network wants (virtual address or offset,
 * and a key), from what it exchanged at init.
 *
 * Completion, as OpenSHMEM and libfabric define it:
 *   put            returns once the source buffer may be reused (local completion);
 *   put_nbi        the source may be reused only after local_complete or quiet;
 *   get            returns with the data in dst;
 *   get_nbi        dst holds the data after quiet;
 *   amo            fetch != NULL: returns with the old value in *fetch;
 *                  fetch == NULL: non-fetching, complete at quiet;
 *   amo_nbi        fetching, *fetch written by quiet;
 *   fence          puts and AMOs to one PE issued after it land after those before;
 *   quiet          every operation of the context is complete at its target;
 *   progress       drives the provider, for peers' operations that target this PE.
 * Operations take world PE numbers of PEs that this transport reaches. */
#ifndef SHOAL_NET_H
#define SHOAL_NET_H

#include <stddef.h>
#include <stdint.h>

struct shoal_ctx;

enum shoal_amo_op {
    SHOAL_AMO_READ,     /* fetch */
    SHOAL_AMO_WRITE,    /* set; swap when fetching */
    SHOAL_AMO_CSWAP,
    SHOAL_AMO_ADD,
    SHOAL_AMO_AND,
    SHOAL_AMO_OR,
    SHOAL_AMO_XOR,
};

enum shoal_amo_type {
    SHOAL_AMO_INT32, SHOAL_AMO_UINT32, SHOAL_AMO_INT64, SHOAL_AMO_UINT64,
    SHOAL_AMO_FLOAT, SHOAL_AMO_DOUBLE,
};

/* One atomic on a remote symmetric location. */
struct shoal_amo {
    enum shoal_amo_op op;
    enum shoal_amo_type type;
    int seg;
    uint64_t off;
    const void *operand;   /* value to add, set, swap in, or compare-swap in */
    const void *compare;   /* CSWAP only */
    void *fetch;           /* old value; NULL for a non-fetching AMO */
    int user;              /* a program's AMO (not a signal, lock or library word): a
                              SHMEM_SESSION_UNRELIABLE session may send it single-transmit */
};

struct shoal_net_ops {
    const char *name;
    /* Collective over every PE of the job (through the bootstrap), after the
     * segments exist and shoal.node[] is known. Sets up the default context.
     * Returns 0, or nonzero after printing why. */
    int  (*init)(void);
    void (*fini)(void);
    /* Gives ctx its own transmit resources (ctx->net); 0 or -1. */
    int  (*ctx_create)(struct shoal_ctx *ctx);
    void (*ctx_destroy)(struct shoal_ctx *ctx);

    void (*put)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len, int pe);
    void (*put_nbi)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                    int pe);
    void (*get)(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
    void (*get_nbi)(struct shoal_ctx *ctx, void *dst, int seg, uint64_t off, size_t len, int pe);
    void (*amo)(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
    void (*amo_nbi)(struct shoal_ctx *ctx, const struct shoal_amo *a, int pe);
    /* Payload, then the 64-bit signal update (SHOAL_AMO_WRITE or SHOAL_AMO_ADD) at
     * (sig_seg, sig_off), which lands after the payload. nbi: like put_nbi. */
    void (*put_signal)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src, size_t len,
                       int sig_seg, uint64_t sig_off, uint64_t signal,
                       enum shoal_amo_op sig_op, int nbi, int pe);

    void (*fence)(struct shoal_ctx *ctx);
    void (*quiet)(struct shoal_ctx *ctx);
    /* Waits until the source buffers of this context's put_nbi may be reused. */
    void (*local_complete)(struct shoal_ctx *ctx);
    /* Session hints (SHMEM_CTX_SESSION_BATCH): operations may be coalesced until stop. */
    void (*session_start)(struct shoal_ctx *ctx, long options);
    void (*session_stop)(struct shoal_ctx *ctx);
    void (*progress)(void);
    /* Triggered operations, NULL where the transport has none. trigger_open gives
     * a network counter (NULL when the provider offers none); put_signal_triggered
     * posts a put-with-signal the network issues once that counter reaches
     * threshold, complete at the quiet after that. */
    void *(*trigger_open)(void);
    void (*trigger_add)(void *counter, uint64_t n);
    void (*trigger_close)(void *counter);
    void (*put_signal_triggered)(struct shoal_ctx *ctx, int seg, uint64_t off, const void *src,
                                 size_t len, int sig_seg, uint64_t sig_off, uint64_t signal,
                                 enum shoal_amo_op sig_op, int pe, void *counter,
                                 uint64_t threshold);
};

/* Transports built into this library; a NULL entry where one was not built. */
extern const struct shoal_net_ops *const shoal_net_ofi;
/* The one used when every PE is on this node: every operation reports a bug. */
extern const struct shoal_net_ops shoal_net_none;

#endif
