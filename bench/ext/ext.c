/* The Cray OpenSHMEMX extensions against their standard alternatives, in the
 * shapes of seed 001's figures, PE 0 -> PE 1 (other PEs idle):
 *   Fig. 14  local completion: per-operation blocking put, put_nbi + quiet,
 *            put_nbi + shmemx_local_complete, and put_nbi with no completion
 *            until the end (bandwidth, 8 B .. -m), source in private memory;
 *   Fig. 16  message rate of windows of put_nbi, without and with a bundling
 *            session, to adjacent elements and to scattered ones;
 *   Fig. 10/11  message rate of put_signal_nbi, plain, in a SHMEM_SESSION_OP_PWS
 *            session, the transform written by hand (puts, fence, signal_set), and
 *            triggered (a window posted, then fired by one trigger increment);
 *   Fig. 18  AMO rate: add and fetch-add with and without a single-transmit
 *            session, atomic_set against shmemx_signal_set.
 * A window is 64 operations followed by one quiet. PE 1 checks the last window's
 * data and the AMO totals, so a variant that loses or misplaces data fails. */
#include "bench.h"

#include <shmemx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define SCATTER 64 /* bytes between scattered targets (elements) */

static char *target;     /* symmetric, WINDOW * max(size, SCATTER) bytes */
static uint64_t *sigs;   /* symmetric, WINDOW signal words */
static uint64_t counter; /* symmetric AMO target */
static uint64_t adds;    /* symmetric: AMO adds PE 0 sent, broadcast for the check */
static long failures, total_failures;

static double rate_mops(long ops, double t)
{
    return (double)ops / t / 1e6;
}

/* ---- Fig. 14: completion ---- */
enum lc { LC_PUT, LC_NBI_QUIET, LC_NBI_LOCAL, LC_NBI_NONE, LC_KINDS };
static const char *const lc_names[LC_KINDS] = { "lc_put", "lc_nbi_quiet", "lc_nbi_local",
                                                "lc_nbi_none" };

static double lc_run(enum lc k, char *src, size_t size, long iters, long warm)
{
    double t0 = 0;
    for (long i = -warm; i < iters; i++) {
        if (i == 0)
            t0 = bench_now();
        src[0] = (char)i; /* the source changes between operations */
        switch (k) {
        case LC_PUT: shmem_putmem(target, src, size, 1); break;
        case LC_NBI_QUIET:
            shmem_putmem_nbi(target, src, size, 1);
            shmem_quiet();
            break;
        case LC_NBI_LOCAL:
            shmem_putmem_nbi(target, src, size, 1);
            shmemx_local_complete();
            break;
        case LC_NBI_NONE: shmem_putmem_nbi(target, src, size, 1); break;
        case LC_KINDS: break;
        }
    }
    shmem_quiet();
    return (double)size * (double)iters / (bench_now() - t0) / 1e6;
}

/* ---- Fig. 16: bundling ---- */
static double mr_run(size_t size, size_t stride, int session, long rounds, long warm,
                     char *src)
{
    double t0 = 0;
    for (long r = -warm; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        if (session)
            shmemx_ctx_session_start(SHMEM_CTX_DEFAULT,
                                     SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PUT);
        for (int w = 0; w < WINDOW; w++) {
            memset(src, (int)((r + w) & 0x7f), size);
            shmem_putmem_nbi(target + (size_t)w * stride, src, size, 1);
        }
        if (session)
            shmemx_ctx_session_stop(SHMEM_CTX_DEFAULT);
        shmem_quiet();
    }
    return rate_mops(rounds * WINDOW, bench_now() - t0);
}

/* ---- Fig. 10/11/17: put-with-signal ---- */
enum pws { PWS_PLAIN, PWS_SESSION, PWS_BY_HAND, PWS_FENCE_SET, PWS_TRIGGERED, PWS_KINDS };
static const char *const pws_names[PWS_KINDS] = { "pws_nbi", "pws_nbi_session",
                                                  "pws_transform_by_hand",
                                                  "pws_put_fence_set", "pws_triggered" };
static shmemx_trigger_t trigger;

static double pws_run(enum pws k, size_t size, long rounds, long warm, char *src)
{
    double t0 = 0;
    for (long r = -warm; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        memset(src, (int)(r & 0x7f), size);
        uint64_t v = (uint64_t)r + 1000;
        if (k == PWS_SESSION)
            shmemx_ctx_session_start(SHMEM_CTX_DEFAULT,
                                     SHMEM_SESSION_BUNDLE | SHMEM_SESSION_OP_PWS);
        for (int w = 0; w < WINDOW; w++) {
            char *d = target + (size_t)w * size;
            if (k == PWS_TRIGGERED) {
                /* Posted now, fired together by the one increment below. */
                shmemx_putmem_signal_triggered(d, src, size, &sigs[w], v, SHMEM_SIGNAL_SET, 1,
                                               trigger, shmemx_trigger_read(trigger) + 1);
            } else if (k == PWS_PLAIN || k == PWS_SESSION) {
                shmem_putmem_signal_nbi(d, src, size, &sigs[w], v, SHMEM_SIGNAL_SET, 1);
            } else if (k == PWS_BY_HAND) {
                shmem_putmem_nbi(d, src, size, 1);
            } else {
                shmem_putmem(d, src, size, 1);
                shmem_fence();
                shmem_uint64_atomic_set(&sigs[w], v, 1);
            }
        }
        if (k == PWS_BY_HAND) {
            shmem_fence();
            for (int w = 0; w < WINDOW; w++)
                shmemx_signal_set(&sigs[w], v, 1);
        }
        if (k == PWS_SESSION)
            shmemx_ctx_session_stop(SHMEM_CTX_DEFAULT);
        if (k == PWS_TRIGGERED)
            shmemx_trigger_increment(trigger, 1);
        shmem_quiet();
    }
    return rate_mops(rounds * WINDOW, bench_now() - t0);
}

/* ---- Fig. 18: AMOs ---- */
enum amo { AMO_ADD, AMO_ADD_ST, AMO_FADD, AMO_FADD_ST, AMO_SET, AMO_SIGNAL_SET, AMO_KINDS };
static const char *const amo_names[AMO_KINDS] = {
    "amo_add",       "amo_add_single_transmit",
    "amo_fetch_add", "amo_fetch_add_single_transmit",
    "amo_set",       "signal_set"
};

static double amo_run(enum amo k, long rounds, long warm, uint64_t *adds)
{
    double t0 = 0;
    int st = k == AMO_ADD_ST || k == AMO_FADD_ST;
    /* One session around the whole epoch, as in HRA: its stop settles once. */
    if (st)
        shmemx_ctx_session_start(SHMEM_CTX_DEFAULT,
                                 SHMEM_SESSION_UNRELIABLE | SHMEM_SESSION_OP_AMO);
    for (long r = -warm; r < rounds; r++) {
        if (r == 0)
            t0 = bench_now();
        for (int w = 0; w < WINDOW; w++) {
            switch (k) {
            case AMO_ADD:
            case AMO_ADD_ST:
                shmem_uint64_atomic_add(&counter, 1, 1);
                ++*adds;
                break;
            case AMO_FADD:
            case AMO_FADD_ST:
                (void)shmem_uint64_atomic_fetch_add(&counter, 1, 1);
                ++*adds;
                break;
            case AMO_SET: shmem_uint64_atomic_set(&sigs[w], (uint64_t)r, 1); break;
            case AMO_SIGNAL_SET: shmemx_signal_set(&sigs[w], (uint64_t)r, 1); break;
            case AMO_KINDS: break;
            }
        }
        shmem_quiet();
    }
    if (st)
        shmemx_ctx_session_stop(SHMEM_CTX_DEFAULT);
    return rate_mops(rounds * WINDOW, bench_now() - t0);
}

/* PE 1: the last window's data; per_op: each operation had its own pattern. */
static void check_target(size_t size, size_t stride, long last, int per_op)
{
    if (shmem_my_pe() != 1)
        return;
    for (int w = 0; w < WINDOW; w++)
        for (size_t b = 0; b < size; b++)
            if (target[(size_t)w * stride + b] != (char)((last + (per_op ? w : 0)) & 0x7f)) {
                failures++;
                return;
            }
}

int main(int argc, char **argv)
{
    struct bench_opts o = { 8, 1 << 20, 2000, 20 };
    int me = bench_init(argc, argv, &o, NULL, "ext", 2, 0);
    size_t small_max = o.max_size < 8192 ? o.max_size : 8192;
    size_t span = WINDOW * (2 * small_max > SCATTER ? 2 * small_max : SCATTER);
    if (span < o.max_size)
        span = o.max_size;
    target = shmem_malloc(span);
    sigs = shmem_calloc(WINDOW, sizeof *sigs);
    char *src = malloc(o.max_size);
    if (!target || !sigs || !src) {
        fprintf(stderr, "ext: allocation of %zu bytes failed\n", span);
        shmem_global_exit(1);
    }
    memset(src, 0, o.max_size);
    if (shmemx_trigger_create(&trigger)) {
        fprintf(stderr, "ext: shmemx_trigger_create failed\n");
        shmem_global_exit(1);
    }
    if (me == 0)
        bench_header("extensions vs standard",
                     "# bench                         size     value");

    /* Fig. 14 */
    for (size_t s = o.min_size; s <= o.max_size; s *= 2) {
        long it = bench_iters_for(&o, s);
        for (int k = 0; k < LC_KINDS; k++) {
            shmem_barrier_all();
            if (me == 0) {
                double bw = lc_run(k, src, s, it, o.warmup);
                printf("  %-28s %8zu %10.2f MB/s\n", lc_names[k], s, bw);
                bench_result(lc_names[k], s, "bw_MBps", bw);
            }
        }
    }
    /* Fig. 16 and 10/11: small messages only, where bundling can matter. */
    long rounds = o.iters / 16 > 10 ? o.iters / 16 : 10;
    for (size_t s = o.min_size; s <= small_max; s *= 4) {
        for (int v = 0; v < 4; v++) {
            size_t stride = v < 2 ? s : (s < SCATTER ? SCATTER : 2 * s);
            int session = v % 2;
            static const char *const names[4] = { "mr_put_nbi", "mr_put_nbi_session",
                                                  "mr_put_nbi_scattered",
                                                  "mr_put_nbi_scattered_session" };
            shmem_barrier_all();
            if (me == 0) {
                double m = mr_run(s, stride, session, rounds, o.warmup, src);
                printf("  %-28s %8zu %10.3f Mops/s\n", names[v], s, m);
                bench_result(names[v], s, "rate_Mops", m);
            }
            shmem_barrier_all();
            check_target(s, stride, rounds - 1, 1);
        }
        for (int k = 0; k < PWS_KINDS; k++) {
            shmem_barrier_all();
            if (me == 0) {
                double m = pws_run(k, s, rounds, o.warmup, src);
                printf("  %-28s %8zu %10.3f Mops/s\n", pws_names[k], s, m);
                bench_result(pws_names[k], s, "rate_Mops", m);
            }
            shmem_barrier_all();
            if (me == 1)
                for (int w = 0; w < WINDOW; w++)
                    failures += sigs[w] != (uint64_t)(rounds - 1) + 1000;
            check_target(s, s, rounds - 1, 0);
        }
    }
    /* Fig. 18 */
    for (int k = 0; k < AMO_KINDS; k++) {
        shmem_barrier_all();
        if (me == 0) {
            double m = amo_run(k, o.iters / 4 > 10 ? o.iters / 4 : 10, o.warmup, &adds);
            printf("  %-28s %8d %10.3f Mops/s\n", amo_names[k], 8, m);
            bench_result(amo_names[k], 8, "rate_Mops", m);
        }
    }
    shmem_barrier_all();
    shmem_uint64_broadcast(SHMEM_TEAM_WORLD, &adds, &adds, 1, 0);
    if (me == 1 && counter != adds)
        failures++;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total_failures, &failures, 1);
    long total = total_failures;
    if (me == 0)
        printf("# check: %s\n", total ? "FAILED" : "PASSED");
    shmemx_trigger_destroy(trigger);
    free(src);
    shmem_free(sigs);
    shmem_free(target);
    shmem_finalize();
    return total != 0;
}
