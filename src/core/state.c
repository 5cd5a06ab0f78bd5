/* The process-wide state (base/state.h). */
#include "base/state.h"

struct shoal_state shoal = {
    .my_pe = -1,
    .seg = { [SHOAL_SEG_HEAP] = { .fd = -1 },
             [SHOAL_SEG_DATA] = { .fd = -1 },
             [SHOAL_SEG_DEVICE] = { .fd = -1 } },
};
