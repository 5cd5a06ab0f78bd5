/* What the reduction tests (team reductions, active-set to_all) feed in and check
 * against: V_OP(T, p, i), member p's element i for operator OP, and E_OP(a, b), the
 * fold the test applies itself, member by member, to get the expected result. The
 * values cannot overflow in any type of their column and are exact in floating
 * point: sums of eight stay in a signed char, and a product of eight has at most two
 * factors other than 1 or -1 (2, or i for complex types). Unsigned types get 1 where
 * signed, floating and complex ones get -1, so that signs are exercised wherever
 * there are any. */
#ifndef SHOAL_TEST_COLL_VALUES_H
#define SHOAL_TEST_COLL_VALUES_H

#include <complex.h>

#define IS_COMPLEX(T) _Generic((T)0, double _Complex : 1, float _Complex : 1, default : 0)
#define IS_SIGNED(T) (creall((long double _Complex)(T)-1) < 0)
#define IMAG(T) _Generic((T)0, double _Complex : I, float _Complex : I, default : 0)
#define MK(T, re, im) ((T)(re) + (T)((im)*IMAG(T)))

#define H(p, i) ((long)(p)*37 + (long)(i)*11 + 5)
#define V_and(T, p, i) ((T)(127 & ~(1 << ((p) + (i)) % 7)))
#define V_or(T, p, i) ((T)(1 << ((p) + (i)) % 7))
#define V_xor(T, p, i) ((T)(H(p, i) % 127))
#define V_max(T, p, i) ((T)(H(p, i) % 101 - (IS_SIGNED(T) ? 50 : 0)))
#define V_min(T, p, i) V_max(T, p, i)
#define V_sum(T, p, i)                                                                       \
    MK(T, H(p, i) % 15 - (IS_SIGNED(T) || IS_COMPLEX(T) ? 7 : 0), H(p, i) % 5)
#define V_prod(T, p, i)                                                                      \
    ((((p) + (i)) % 7 == 0)                            ? MK(T, 2, 0)                         \
             : (((p) + (i)) % 7 == 1 && IS_COMPLEX(T)) ? MK(T, 0, 1)                         \
                                                       : MK(T, IS_SIGNED(T) ? -1 : 1, 0))

#define E_and(a, b) ((a) & (b))
#define E_or(a, b) ((a) | (b))
#define E_xor(a, b) ((a) ^ (b))
#define E_max(a, b) ((a) > (b) ? (a) : (b))
#define E_min(a, b) ((a) < (b) ? (a) : (b))
#define E_sum(a, b) ((a) + (b))
#define E_prod(a, b) ((a) * (b))

#endif
