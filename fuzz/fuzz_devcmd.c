/* Fuzz target: the device proxy's check of ring commands (src/api/devcmd.c), which
 * stands between what any kernel may write into the ring and the host operations the
 * proxy issues. Input: n_pes (4 bytes), the device heap's size (8 bytes), then one
 * command (struct shmemx_dev_cmd). An accepted command must be one the proxy can carry
 * out: its width fits the 8-byte answer, its PE is a PE, and every range it names lies
 * in the heap, checked here with 128-bit arithmetic and again by touching the ranges of
 * a real heap of at most 4 KiB (ASan reports a byte outside it). */
#include "api/devcmd.h"
#include "fuzz_check.h"

#include <string.h>

static unsigned char heap[4096];

/* [off, off + n) inside size bytes, in arithmetic that cannot wrap. */
static int fits(uint64_t off, uint64_t n, uint64_t size)
{
    return (unsigned __int128)off + n <= size;
}

/* Reads (and for local destinations writes) each byte range an accepted command names,
 * as the proxy would, on a heap of size bytes. */
static void touch(const struct shmemx_dev_cmd *c, uint64_t size)
{
    unsigned kind = c->op & 0xff, w = (c->op >> 16) & 0xff;
    uint64_t v = 0;
    unsigned char *h = heap + sizeof heap - size; /* the heap's end is the array's */
    switch (kind) {
    case SHMEMX_DEV_OP_PUT:
    case SHMEMX_DEV_OP_GET:
    case SHMEMX_DEV_OP_PUT_SIGNAL:
        memmove(h + c->dst, h + c->src, c->len);
        if (kind == SHMEMX_DEV_OP_PUT_SIGNAL)
            memcpy(&v, h + c->sig, sizeof v);
        break;
    case SHMEMX_DEV_OP_P: memcpy(h + c->dst, &v, w); break;
    case SHMEMX_DEV_OP_G: memcpy(&v, h + c->src, w); break;
    default: memcpy(&v, h + c->dst, w); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t n_pes;
    uint64_t heap_size;
    struct shmemx_dev_cmd c;
    char why[200];
    if (size < sizeof n_pes + sizeof heap_size + sizeof c)
        return 0;
    memcpy(&n_pes, data, sizeof n_pes);
    memcpy(&heap_size, data + sizeof n_pes, sizeof heap_size);
    memcpy(&c, data + sizeof n_pes + sizeof heap_size, sizeof c);

    char desc[256];
    shoal_devcmd_describe(&c, desc, sizeof desc);
    FUZZ_CHECK(memchr(desc, 0, sizeof desc) != NULL);

    unsigned kind = c.op & 0xff, amo = (c.op >> 8) & 0xff, w = (c.op >> 16) & 0xff;
    for (int pass = 0; pass < 2; pass++) {
        /* The input's heap, then one small enough to touch. */
        uint64_t hs = pass ? heap_size % (sizeof heap + 1) : heap_size;
        why[0] = 0;
        if (shoal_devcmd_check(&c, hs, n_pes, why, sizeof why)) {
            FUZZ_CHECK(why[0] != 0 && memchr(why, 0, sizeof why) != NULL);
            continue;
        }
        FUZZ_CHECK(c.pe >= 0 && c.pe < n_pes);
        FUZZ_CHECK(kind >= SHMEMX_DEV_OP_PUT && kind <= SHMEMX_DEV_OP_PUT_SIGNAL);
        FUZZ_CHECK((c.op & ~(0xffffffu | SHMEMX_DEV_WAIT | SHMEMX_DEV_SIG_ADD)) == 0);
        switch (kind) {
        case SHMEMX_DEV_OP_PUT:
        case SHMEMX_DEV_OP_GET:
        case SHMEMX_DEV_OP_PUT_SIGNAL:
            FUZZ_CHECK(w == 0 && amo == 0);
            FUZZ_CHECK(fits(c.dst, c.len, hs) && fits(c.src, c.len, hs));
            if (kind == SHMEMX_DEV_OP_PUT_SIGNAL)
                FUZZ_CHECK(fits(c.sig, 8, hs) && c.sig % 8 == 0);
            else
                FUZZ_CHECK(!(c.op & SHMEMX_DEV_SIG_ADD));
            break;
        case SHMEMX_DEV_OP_P:
        case SHMEMX_DEV_OP_G:
            FUZZ_CHECK(amo == 0 && (w == 1 || w == 2 || w == 4 || w == 8));
            FUZZ_CHECK(fits(kind == SHMEMX_DEV_OP_P ? c.dst : c.src, w, hs));
            FUZZ_CHECK(!!(c.op & SHMEMX_DEV_WAIT) == (kind == SHMEMX_DEV_OP_G));
            break;
        default:
            FUZZ_CHECK(amo <= SHMEMX_DEV_AMO_XOR && (w == 4 || w == 8));
            FUZZ_CHECK(fits(c.dst, w, hs) && c.dst % w == 0);
            break;
        }
        if (pass)
            touch(&c, hs);
    }
    return 0;
}
