/* Randomized stress: every PE runs a long seeded mix of puts, gets, AMOs,
 * put-with-signal and collectives; a sequential model of the same seed predicts
 * what every PE must hold after each phase (see random_ops.h for why that is
 * independent of interleaving). A failure names the seed and how to replay it.
 *   stress_random [--seed N | --seeds FIRST:LAST] [--phases P] [--ops K] */
#include <shmem.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "random_coll.h"
#include "random_ops.h"

struct run {
    int me, npes;
    uint64_t seed;
    unsigned phase;
    struct sym_state *sym;   /* symmetric */
    struct sym_state *model; /* npes states, private */
    long *nbi_src;           /* sources of non-blocking puts, kept until the barrier */
    long ops_done;
};

static const char *prog_name;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void stress_fail(const struct run *r, const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "FAIL PE %d seed %llu phase %u: %s\n  replay: oshrun -n %d %s --seed %llu\n",
            r->me, (unsigned long long)r->seed, r->phase, why, r->npes, prog_name,
            (unsigned long long)r->seed);
    shmem_global_exit(1);
}

static void run_op(struct run *r, const struct op *op, unsigned index)
{
    struct sym_state *s = r->sym;
    unsigned cur = r->phase % 2, prev = cur ^ 1;
    int t = op->target;
    long vals[ROW];
    for (unsigned k = 0; k < op->n; k++)
        vals[k] = put_value(op->value, k);

    switch (op->kind) {
    case OP_PUT: shmem_long_put(&s->put_area[cur][r->me][op->slot], vals, op->n, t); break;
    case OP_PUT_NBI: {
        long *src = r->nbi_src + (size_t)index * ROW;
        memcpy(src, vals, op->n * sizeof *src);
        shmem_long_put_nbi(&s->put_area[cur][r->me][op->slot], src, op->n, t);
        break;
    }
    case OP_P: shmem_long_p(&s->put_area[cur][r->me][op->slot], vals[0], t); break;
    case OP_PUT_SIGNAL:
        shmem_long_put_signal(&s->sig_area[r->me][op->slot], vals, op->n, &s->sig[r->me], 1,
                              SHMEM_SIGNAL_ADD, t);
        break;
    case OP_GET:
    case OP_G: {
        long got[ROW];
        if (op->kind == OP_G)
            got[0] = shmem_long_g(&s->put_area[prev][op->writer][op->slot], t);
        else
            shmem_long_get(got, &s->put_area[prev][op->writer][op->slot], op->n, t);
        const long *want = &r->model[t].put_area[prev][op->writer][op->slot];
        for (unsigned k = 0; k < op->n; k++)
            if (got[k] != want[k])
                stress_fail(r, "get from PE %d, row %d, slot %u: %ld, model %ld", t,
                            op->writer, op->slot + k, got[k], want[k]);
        break;
    }
    case OP_ADD: shmem_long_atomic_add(&s->add_ctr[op->ctr], add_operand(op), t); break;
    case OP_FETCH_ADD:
        shmem_long_atomic_fetch_add(&s->add_ctr[op->ctr], add_operand(op), t);
        break;
    case OP_INC: shmem_long_atomic_inc(&s->add_ctr[op->ctr], t); break;
    case OP_CSWAP_ADD: { /* an add built from fetch and compare-and-swap */
        long old = shmem_long_atomic_fetch(&s->add_ctr[op->ctr], t), seen;
        while ((seen = shmem_long_atomic_compare_swap(&s->add_ctr[op->ctr], old,
                                                      old + add_operand(op), t)) != old)
            old = seen;
        break;
    }
    case OP_XOR: shmem_ulong_atomic_xor(&s->xor_ctr[op->ctr], op->value, t); break;
    case OP_FETCH_XOR:
        shmem_ulong_atomic_fetch_xor(&s->xor_ctr[op->ctr], op->value, t);
        break;
    case OP_OR: shmem_ulong_atomic_or(&s->or_ctr[op->ctr], or_operand(op), t); break;
    case OP_AND: shmem_ulong_atomic_and(&s->and_ctr[op->ctr], op->value, t); break;
    case OP_KINDS: break;
    }
    /* A later put of this PE may hit the same place: keep them in order. */
    if (op->kind == OP_PUT || op->kind == OP_PUT_NBI || op->kind == OP_P ||
        op->kind == OP_PUT_SIGNAL)
        shmem_fence();
}

/* Each PE waits for every writer's signal to reach the model's count, then its
 * data must be there: put-with-signal delivers the data first. */
static void await_signals(struct run *r)
{
    const struct sym_state *want = &r->model[r->me];
    for (int w = 0; w < r->npes; w++) {
        if (w % 2)
            shmem_uint64_wait_until(&r->sym->sig[w], SHMEM_CMP_EQ, want->sig[w]);
        else
            shmem_signal_wait_until(&r->sym->sig[w], SHMEM_CMP_EQ, want->sig[w]);
        if (!shmem_uint64_test(&r->sym->sig[w], SHMEM_CMP_EQ, want->sig[w]))
            stress_fail(r, "signal from PE %d changed after the wait", w);
        for (unsigned k = 0; k < ROW; k++)
            if (r->sym->sig_area[w][k] != want->sig_area[w][k])
                stress_fail(r, "signalled data from PE %d slot %u: %ld, model %ld", w, k,
                            r->sym->sig_area[w][k], want->sig_area[w][k]);
    }
}

static void compare_state(struct run *r)
{
    const struct sym_state *got = r->sym, *want = &r->model[r->me];
    for (int b = 0; b < 2; b++)
        for (int w = 0; w < r->npes; w++)
            for (unsigned k = 0; k < ROW; k++)
                if (got->put_area[b][w][k] != want->put_area[b][w][k])
                    stress_fail(r, "put area %d, row of PE %d, slot %u: %ld, model %ld", b, w,
                                k, got->put_area[b][w][k], want->put_area[b][w][k]);
    for (unsigned c = 0; c < NCTR; c++) {
        if (got->add_ctr[c] != want->add_ctr[c])
            stress_fail(r, "add counter %u: %ld, model %ld", c, got->add_ctr[c],
                        want->add_ctr[c]);
        if (got->xor_ctr[c] != want->xor_ctr[c])
            stress_fail(r, "xor counter %u: %#lx, model %#lx", c, got->xor_ctr[c],
                        want->xor_ctr[c]);
        if (got->or_ctr[c] != want->or_ctr[c])
            stress_fail(r, "or counter %u: %#lx, model %#lx", c, got->or_ctr[c],
                        want->or_ctr[c]);
        if (got->and_ctr[c] != want->and_ctr[c])
            stress_fail(r, "and counter %u: %#lx, model %#lx", c, got->and_ctr[c],
                        want->and_ctr[c]);
    }
}

static void run_phase(struct run *r, unsigned nops)
{
    /* The model first: gets are checked against it while the phase runs. */
    for (int p = 0; p < r->npes; p++) {
        struct rng g = rng_for(r->seed, r->phase, (uint64_t)p);
        for (unsigned i = 0; i < nops; i++) {
            struct op op;
            op_draw(&g, r->npes, &op);
            op_model(r->model, p, &op, r->phase);
        }
    }
    struct rng g = rng_for(r->seed, r->phase, (uint64_t)r->me);
    for (unsigned i = 0; i < nops; i++) {
        struct op op;
        op_draw(&g, r->npes, &op);
        run_op(r, &op, i);
    }
    r->ops_done += nops;
    await_signals(r);
    shmem_barrier_all();
    compare_state(r);
    run_collective(r, r->seed, r->phase, r->me, r->npes);
    shmem_barrier_all();
}

static void run_seed(struct run *r, uint64_t seed, unsigned phases, unsigned nops)
{
    r->seed = seed;
    r->phase = 0;
    sym_init(r->sym);
    for (int p = 0; p < r->npes; p++)
        sym_init(&r->model[p]);
    shmem_barrier_all();
    for (r->phase = 0; r->phase < phases; r->phase++)
        run_phase(r, nops);
}

int main(int argc, char **argv)
{
    uint64_t first = 1, last = 3;
    unsigned phases = 30, nops = 200;
    prog_name = argv[0];
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--seed"))
            first = last = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seeds"))
            sscanf(argv[i + 1], "%llu:%llu", (unsigned long long *)&first,
                   (unsigned long long *)&last);
        else if (!strcmp(argv[i], "--phases"))
            phases = (unsigned)atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--ops"))
            nops = (unsigned)atoi(argv[i + 1]);
    }

    shmem_init();
    struct run r = { .me = shmem_my_pe(), .npes = shmem_n_pes() };
    CHECK(r.npes <= STRESS_MAX_PES);
    r.sym = shmem_malloc(sizeof *r.sym);
    r.model = malloc((size_t)r.npes * sizeof *r.model);
    r.nbi_src = malloc((size_t)nops * ROW * sizeof *r.nbi_src);
    CHECK(r.sym && r.model && r.nbi_src);
    coll_setup(r.npes);

    double t0 = now_s();
    for (uint64_t seed = first; seed <= last; seed++)
        run_seed(&r, seed, phases, nops);
    if (r.me == 0)
        printf("stress_random: seeds %llu..%llu, %u phases of %u ops on %d PEs: %ld ops per "
               "PE, "
               "all states match the model (%.2f s)\n",
               (unsigned long long)first, (unsigned long long)last, phases, nops, r.npes,
               r.ops_done, now_s() - t0);

    coll_teardown();
    shmem_free(r.sym);
    free(r.model);
    free(r.nbi_src);
    shmem_finalize();
    return 0;
}
