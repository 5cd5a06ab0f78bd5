/* Fuzz target: the checks a PE makes on oshrun's replies (src/bootstrap/wire.h,
 * used by boot_oshrun.c). Input: the PE's SHOAL_SIZE (4 bytes), the header it
 * receives, then the WELCOME payload. An accepted WELCOME must describe a
 * position the PE can index arrays with. */
#include "wire.h"
#include "fuzz_check.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t my_size;
    struct shoal_wire_hdr h;
    struct shoal_wire_welcome w;
    if (size < sizeof my_size + sizeof h + sizeof w)
        return 0;
    memcpy(&my_size, data, sizeof my_size);
    memcpy(&h, data + sizeof my_size, sizeof h);
    memcpy(&w, data + sizeof my_size + sizeof h, sizeof w);

    if (!shoal_wire_reply_error(&h, SHOAL_WIRE_WELCOME, sizeof w))
        FUZZ_CHECK(h.type == SHOAL_WIRE_WELCOME && h.len == sizeof w);
    if (!shoal_wire_welcome_error(&w, my_size)) {
        FUZZ_CHECK(w.size == my_size);
        FUZZ_CHECK(w.node_size >= 1 && w.node_size <= my_size);
        FUZZ_CHECK(w.node_rank >= 0 && w.node_rank < w.node_size);
    }
    return 0;
}
