/* The randomized stress test's operations and its sequential model.
 *
 * Every PE owns disjoint places in every other PE's memory (its row of each
 * put area, its own signal), and the shared counters only see commutative
 * updates (add, xor, or, and; each counter one kind), so the state at the end
 * of a phase does not depend on how the PEs' operations interleave. The model
 * replays all PEs' streams one after the other and must arrive at that state. */
#ifndef SHOAL_STRESS_RANDOM_OPS_H
#define SHOAL_STRESS_RANDOM_OPS_H

#include <stdint.h>

#include "rng.h"

#define STRESS_MAX_PES 64
#define ROW 16 /* longs a PE owns in each put area of every PE */
#define NCTR 4 /* counters of each kind */

/* One PE's symmetric state (a shmem_malloc'd copy on every PE; the model keeps
 * one per PE). put_area[phase % 2] is written in a phase and read by gets in
 * the next, so that what a get sees is settled. */
struct sym_state {
    long put_area[2][STRESS_MAX_PES][ROW];
    long sig_area[STRESS_MAX_PES][ROW];
    uint64_t sig[STRESS_MAX_PES];
    long add_ctr[NCTR];
    unsigned long xor_ctr[NCTR], or_ctr[NCTR], and_ctr[NCTR];
};

enum op_kind {
    OP_PUT,
    OP_PUT_NBI,
    OP_P,
    OP_GET,
    OP_G,
    OP_ADD,
    OP_FETCH_ADD,
    OP_INC,
    OP_CSWAP_ADD,
    OP_XOR,
    OP_FETCH_XOR,
    OP_OR,
    OP_AND,
    OP_PUT_SIGNAL,
    OP_KINDS
};

struct op {
    enum op_kind kind;
    int target;
    int writer;       /* OP_GET/OP_G: whose row is read */
    unsigned slot, n; /* range in a row */
    unsigned ctr;
    uint64_t value; /* AMO operand; first put value (the rest follow from it) */
};

/* The k-th value of a put that starts with value v. */
static inline long put_value(uint64_t v, unsigned k)
{
    return (long)(v + 0x51ed27ULL * k);
}

/* What an add-kind operation adds: small enough that thousands never overflow. */
static inline long add_operand(const struct op *op)
{
    return (long)(op->value >> 40) - (1L << 23);
}

/* What an or operation ors in: sparse bits, so the counter fills slowly. */
static inline unsigned long or_operand(const struct op *op)
{
    return (unsigned long)(op->value & (op->value >> 7) & (op->value >> 13));
}

/* The state every PE starts a seed with. */
void sym_init(struct sym_state *s);

/* Draws the next operation of a PE's stream. */
void op_draw(struct rng *r, int npes, struct op *op);

/* Applies PE me's op to the model (an array of npes states), for the phase. */
void op_model(struct sym_state *model, int me, const struct op *op, unsigned phase);

#endif
