/* The proxy's check of device-ring commands (devcmd.h). */
#include <stdarg.h>
#include <stdio.h>

#include "api/devcmd.h"

#define FLAGS_KNOWN (SHMEMX_DEV_WAIT | SHMEMX_DEV_SIG_ADD)

static const char *kind_name(unsigned kind)
{
    static const char *const names[] = { NULL, "put", "get", "p", "g", "amo", "put_signal" };
    return kind < sizeof names / sizeof *names ? names[kind] : NULL;
}

static const char *amo_name(unsigned op)
{
    static const char *const names[] = { "fetch",     "set",       "swap",     "compare_swap",
                                         "fetch_add", "fetch_and", "fetch_or", "fetch_xor" };
    return op < sizeof names / sizeof *names ? names[op] : "unknown";
}

/* [off, off + n) inside a heap of size bytes, without computing off + n (it may wrap). */
static int inside(uint64_t off, uint64_t n, uint64_t size)
{
    return off <= size && n <= size - off;
}

__attribute__((format(printf, 3, 4))) static int refuse(char *why, size_t len,
                                                        const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* A range the command names: which side and what it is, for the message. */
static int range_bad(const char *what, uint64_t off, uint64_t n, uint64_t size, char *why,
                     size_t len)
{
    if (inside(off, n, size))
        return 0;
    return refuse(why, len,
                  "%s (offset 0x%llx, %llu bytes) is not inside the device heap (%llu bytes)",
                  what, (unsigned long long)off, (unsigned long long)n,
                  (unsigned long long)size);
}

int shoal_devcmd_check(const struct shmemx_dev_cmd *c, uint64_t heap_size, int n_pes,
                       char *why, size_t len)
{
    uint32_t op = c->op;
    unsigned kind = op & 0xff, amo = (op >> 8) & 0xff, w = (op >> 16) & 0xff;
    uint32_t flags = op & 0xff000000u;
    int wait = (op & SHMEMX_DEV_WAIT) != 0;
    if (!kind_name(kind))
        return refuse(why, len, "kind %u is no command of the ring", kind);
    if (flags & ~FLAGS_KNOWN)
        return refuse(why, len, "unknown flag bits 0x%x", (unsigned)(flags & ~FLAGS_KNOWN));
    if ((op & SHMEMX_DEV_SIG_ADD) && kind != SHMEMX_DEV_OP_PUT_SIGNAL)
        return refuse(why, len, "the signal-add flag is only for put_signal");
    if (amo && kind != SHMEMX_DEV_OP_AMO)
        return refuse(why, len, "an AMO operation (%u) on a command that is no AMO", amo);
    if (c->pe < 0 || c->pe >= n_pes)
        return refuse(why, len, "PE %d is out of range (0 to %lld)", (int)c->pe,
                      (long long)n_pes - 1);
    switch (kind) {
    case SHMEMX_DEV_OP_PUT:
    case SHMEMX_DEV_OP_GET:
    case SHMEMX_DEV_OP_PUT_SIGNAL: {
        if (w)
            return refuse(why, len, "width %u on a command that moves len bytes", w);
        int get = kind == SHMEMX_DEV_OP_GET;
        if (range_bad(get ? "the local destination" : "the remote destination", c->dst,
                      c->len, heap_size, why, len) ||
            range_bad(get ? "the remote source" : "the local source", c->src, c->len,
                      heap_size, why, len))
            return -1;
        if (kind != SHMEMX_DEV_OP_PUT_SIGNAL)
            return 0;
        if (range_bad("the remote signal word", c->sig, 8, heap_size, why, len))
            return -1;
        if (c->sig & 7)
            return refuse(why, len, "the signal word (offset 0x%llx) is not 8-byte aligned",
                          (unsigned long long)c->sig);
        return 0;
    }
    case SHMEMX_DEV_OP_P:
    case SHMEMX_DEV_OP_G: {
        if (w != 1 && w != 2 && w != 4 && w != 8)
            return refuse(why, len, "width %u: p and g move 1, 2, 4 or 8 bytes", w);
        /* g's producer waits for the value; p's never takes an answer, so one would
         * hold its slot for ever. */
        if (wait != (kind == SHMEMX_DEV_OP_G))
            return refuse(why, len, "%s",
                          kind == SHMEMX_DEV_OP_G ? "g without the wait flag"
                                                  : "p with the wait flag");
        int p = kind == SHMEMX_DEV_OP_P;
        return range_bad("the remote word", p ? c->dst : c->src, w, heap_size, why, len);
    }
    default: /* SHMEMX_DEV_OP_AMO */
        if (amo > SHMEMX_DEV_AMO_XOR)
            return refuse(why, len, "AMO operation %u is unknown", amo);
        if (w != 4 && w != 8)
            return refuse(why, len, "width %u: AMOs act on 4 or 8 bytes", w);
        if (range_bad("the remote word", c->dst, w, heap_size, why, len))
            return -1;
        if (c->dst & (w - 1))
            return refuse(why, len, "the AMO's word (offset 0x%llx) is not %u-byte aligned",
                          (unsigned long long)c->dst, w);
        return 0;
    }
}

void shoal_devcmd_describe(const struct shmemx_dev_cmd *c, char *buf, size_t len)
{
    unsigned kind = c->op & 0xff, amo = (c->op >> 8) & 0xff, w = (c->op >> 16) & 0xff;
    const char *name = kind_name(kind);
    char k[32];
    if (!name)
        snprintf(k, sizeof k, "kind %u", kind);
    else if (kind == SHMEMX_DEV_OP_AMO)
        snprintf(k, sizeof k, "amo %s", amo_name(amo));
    else
        snprintf(k, sizeof k, "%s", name);
    snprintf(
            buf, len,
            "%s%s, width %u, to PE %d, dst 0x%llx, src 0x%llx, len %llu, sig 0x%llx (op word "
            "0x%x)",
            k, c->op & SHMEMX_DEV_WAIT ? " (blocking)" : "", w, (int)c->pe,
            (unsigned long long)c->dst, (unsigned long long)c->src,
            (unsigned long long)c->len, (unsigned long long)c->sig, (unsigned)c->op);
}
