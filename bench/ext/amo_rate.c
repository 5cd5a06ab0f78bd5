/* The AMO rows of seed 001's Fig. 18 alone, short enough to repeat and interleave:
 * PE 0 -> PE 1, windows of 64 operations closed by one quiet, rate in Mops/s:
 *   amo_set             shmem_uint64_atomic_set
 *   signal_set          shmemx_signal_set (SHMEM_OFI_SIGNAL_WRITE chooses how)
 *   put_signal_set      8-byte shmem_putmem_signal_nbi with SHMEM_SIGNAL_SET
 *   amo_add             shmem_uint64_atomic_add
 *   amo_add_single_transmit  the same inside a SHMEM_SESSION_UNRELIABLE session
 *   amo_fetch_add       shmem_uint64_atomic_fetch_add
 * Each row runs twice, in ABBA order, and reports its mean. PE 1 checks the final
 * signal words and the add total, so a variant that loses or misplaces an update
 * fails. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 64

enum kind { SET, SIGNAL_SET, PUT_SIGNAL_SET, ADD, ADD_ST, FADD, KINDS };
static const char *const names[KINDS] = {
    "amo_set",      "signal_set", "put_signal_set", "amo_add", "amo_add_single_transmit",
    "amo_fetch_add"
};

static uint64_t counter;      /* symmetric: the adds land here */
static uint64_t sigs[WINDOW]; /* symmetric: the sets land here */
static uint64_t data[WINDOW]; /* symmetric: put_signal_set's payloads */
static uint64_t adds;         /* symmetric: adds PE 0 sent, broadcast for the check */
static long failures, total_failures;

static double run(enum kind k, long rounds, long warm)
{
    double t0 = 0;
    if (k == ADD_ST)
        shmemx_ctx_session_start(SHMEM_CTX_DEFAULT,
                                 SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO);
    for (long r = -warm; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        uint64_t v = (uint64_t)(r + warm + 1);
        for (int w = 0; w < WINDOW; w++) {
            switch (k) {
            case SET: shmem_uint64_atomic_set(&sigs[w], v, 1); break;
            case SIGNAL_SET: shmemx_signal_set(&sigs[w], v, 1); break;
            case PUT_SIGNAL_SET:
                shmem_putmem_signal_nbi(&data[w], &v, sizeof v, &sigs[w], v, SHMEM_SIGNAL_SET,
                                        1);
                break;
            case ADD:
            case ADD_ST: shmem_uint64_atomic_add(&counter, 1, 1); break;
            case FADD: (void)shmem_uint64_atomic_fetch_add(&counter, 1, 1); break;
            case KINDS: break;
            }
        }
        shmem_quiet();
    }
    if (k == ADD_ST)
        shmemx_ctx_session_stop(SHMEM_CTX_DEFAULT);
    return (double)(rounds * WINDOW) / (bench_now() - t0) / 1e6;
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 8, 400, 4 };
    int me = bench_init(argc, argv, &o, NULL, "amo_rate", 2, 0);
    if (me == 0)
        bench_header("Fig. 18 AMO rows (windows of 64, one quiet each)",
                     "# bench                          size     value");
    /* Every row twice, forwards then backwards (ABBA), and their mean reported: a
     * row's place in the job (warm-up, the load's drift) then biases no ratio. */
    double sum[KINDS] = { 0 };
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < KINDS; i++) {
            int k = pass ? KINDS - 1 - i : i;
            shmem_barrier_all();
            long rounds = o.iters;
            if (me == 0) {
                sum[k] += run(k, rounds, o.warmup);
                if (k == ADD || k == ADD_ST || k == FADD)
                    adds += (uint64_t)((rounds + o.warmup) * WINDOW);
            }
            shmem_barrier_all();
            uint64_t last = (uint64_t)(rounds + o.warmup);
            if (me == 1 && (k == SET || k == SIGNAL_SET || k == PUT_SIGNAL_SET))
                for (int w = 0; w < WINDOW; w++)
                    failures += sigs[w] != last || (k == PUT_SIGNAL_SET && data[w] != last);
            if (me == 1)
                for (int w = 0; w < WINDOW; w++)
                    sigs[w] = data[w] = 0;
            shmem_barrier_all();
        }
    for (int k = 0; k < KINDS && me == 0; k++) {
        printf("  %-30s %6d %10.4f Mops/s\n", names[k], 8, sum[k] / 2);
        bench_result(names[k], 8, "rate_Mops", sum[k] / 2);
    }
    shmem_uint64_broadcast(SHMEM_TEAM_WORLD, &adds, &adds, 1, 0);
    if (me == 1 && counter != adds)
        failures++;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_failures, &failures, 1);
    if (me == 0)
        printf("# check: %s\n", total_failures ? "FAILED" : "PASSED");
    shmem_finalize();
    return total_failures != 0;
}
