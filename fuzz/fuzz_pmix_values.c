/* Fuzz target: the checks on what a PMIx server tells a PE (src/bootstrap/
 * pmix_value.c, used by boot_pmix.c): the job size, in whatever type the server
 * stored it, and whether this PE's rank fits the job. Input: the value's type
 * (1 byte), its bytes (8), this PE's rank (4). What the PMIx variables of the
 * environment hold is fuzz_env's part. */
#include "pmix_value.h"
#include "fuzz_check.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 13)
        return 0;
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = data[0];
    memcpy(&v.data, data + 1, 8);
    pmix_rank_t rank;
    memcpy(&rank, data + 9, sizeof rank);

    /* The value the plain way: the integer types, read at their own width. */
    int64_t want;
    int is_int = 1;
    switch (data[0]) {
    case PMIX_UINT8: want = data[1]; break;
    case PMIX_UINT16: want = (int64_t)(data[1] | data[2] << 8); break;
    case PMIX_UINT32:
    case PMIX_UINT: {
        uint32_t u;
        memcpy(&u, data + 1, 4);
        want = u;
        break;
    }
    case PMIX_INT32:
    case PMIX_INT: {
        int32_t i;
        memcpy(&i, data + 1, 4);
        want = i;
        break;
    }
    default: is_int = 0; want = 0;
    }
    long got = 7;
    int rc = shoal_pmix_count(&v, &got);
    FUZZ_CHECK(rc == (is_int ? 0 : -1));
    FUZZ_CHECK(rc ? got == 7 : got == want);
    if (rc)
        return 0;

    /* An accepted job can be indexed by int PE numbers, this PE among them. */
    const char *why = shoal_pmix_job_error(got, rank);
    int possible = got >= 1 && got <= INT_MAX && (int64_t)rank < got;
    FUZZ_CHECK((why == NULL) == possible);
    return 0;
}
