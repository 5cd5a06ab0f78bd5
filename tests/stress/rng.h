/* A small seeded generator (splitmix64) so that every PE and the sequential
 * model can regenerate the same stream from (seed, phase, stream id). */
#ifndef SHOAL_STRESS_RNG_H
#define SHOAL_STRESS_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s;
};

static inline uint64_t rng_next(struct rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A uniform-enough number in [0, n). */
static inline unsigned rng_below(struct rng *r, unsigned n)
{
    return (unsigned)(rng_next(r) % n);
}

static inline struct rng rng_for(uint64_t seed, uint64_t phase, uint64_t stream)
{
    struct rng r = { seed * 0x100000001b3ULL ^ (phase << 20) ^ stream };
    rng_next(&r);
    return r;
}

#endif
