/* Drawing operations and applying them to the sequential model. */
#include "random_ops.h"

#include <string.h>

void sym_init(struct sym_state *s)
{
    memset(s, 0, sizeof *s);
    for (unsigned c = 0; c < NCTR; c++)
        s->and_ctr[c] = ~0UL;
}

void op_draw(struct rng *r, int npes, struct op *op)
{
    op->kind = (enum op_kind)rng_below(r, OP_KINDS);
    op->target = (int)rng_below(r, (unsigned)npes);
    op->writer = (int)rng_below(r, (unsigned)npes);
    op->slot = rng_below(r, ROW);
    op->n = 1 + rng_below(r, ROW - op->slot);
    op->ctr = rng_below(r, NCTR);
    op->value = rng_next(r);
    if (op->kind == OP_P || op->kind == OP_G)
        op->n = 1;
    /* An and clears at most one bit, so the counter does not reach 0 at once. */
    if (op->kind == OP_AND)
        op->value |= ~(1ULL << rng_below(r, 64));
}

void op_model(struct sym_state *model, int me, const struct op *op, unsigned phase)
{
    struct sym_state *t = &model[op->target];
    switch (op->kind) {
    case OP_PUT:
    case OP_PUT_NBI:
    case OP_P:
        for (unsigned k = 0; k < op->n; k++)
            t->put_area[phase % 2][me][op->slot + k] = put_value(op->value, k);
        break;
    case OP_PUT_SIGNAL:
        for (unsigned k = 0; k < op->n; k++)
            t->sig_area[me][op->slot + k] = put_value(op->value, k);
        t->sig[me] += 1;
        break;
    case OP_GET:
    case OP_G: break;
    case OP_ADD:
    case OP_FETCH_ADD:
    case OP_CSWAP_ADD: t->add_ctr[op->ctr] += add_operand(op); break;
    case OP_INC: t->add_ctr[op->ctr] += 1; break;
    case OP_XOR:
    case OP_FETCH_XOR: t->xor_ctr[op->ctr] ^= op->value; break;
    case OP_OR: t->or_ctr[op->ctr] |= or_operand(op); break;
    case OP_AND: t->and_ctr[op->ctr] &= op->value; break;
    case OP_KINDS: break;
    }
}
