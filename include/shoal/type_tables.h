/* The OpenSHMEM type tables, once. Every typed routine family in shmem.h, pshmem.h,
 * the C11 generic interface and the library itself is generated from these lists.
 * Each row is X(TYPE, TYPENAME); the table names follow the specification. */
#ifndef SHOAL_TYPE_TABLES_H
#define SHOAL_TYPE_TABLES_H

/* Standard RMA types: put/get/p/g/iput/iget/ibput/ibget/nbi, put_signal,
 * broadcast, collect, fcollect, alltoall(s). */
#define SHMEM_RMA_TYPES(X)                                                         \
    X(float, float) X(double, double) X(long double, longdouble)                   \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)  \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)       \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)          \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)  \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Sized RMA: shmem_putSIZE etc., SIZE in bits. */
#define SHMEM_RMA_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* Standard AMO types: compare_swap, fetch_inc, inc, fetch_add, add; also every
 * point-to-point synchronization routine. */
#define SHMEM_AMO_STD_TYPES(X)                                                 \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                   \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size) X(ptrdiff_t, ptrdiff)

/* Extended AMO types: fetch, set, swap. */
#define SHMEM_AMO_EXT_TYPES(X) SHMEM_AMO_STD_TYPES(X) X(float, float) X(double, double)

/* Bitwise AMO types: and, or, xor and their fetching forms. */
#define SHMEM_AMO_BIT_TYPES(X)                                                  \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)

/* Point-to-point synchronization: the standard AMO types, plus the deprecated
 * short/ushort forms that survive only for wait_until and test. */
#define SHMEM_SYNC_TYPES(X) SHMEM_AMO_STD_TYPES(X)
#define SHMEM_SYNC_DEPR_TYPES(X) X(short, short) X(unsigned short, ushort)

/* Deprecated AMO names (no ctx forms). */
#define SHMEM_DEPR_AMO_EXT_TYPES(X) \
    X(float, float) X(double, double) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_DEPR_AMO_STD_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_DEPR_WAIT_TYPES(X) \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)

/* Team reductions, by operator column. */
#define SHMEM_REDUCE_BITWISE_TYPES(X)                                           \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                    \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)       \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) \
    X(size_t, size)
#define SHMEM_REDUCE_SIGNED_TYPES(X)                                            \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long) \
    X(long long, longlong) X(ptrdiff_t, ptrdiff)
#define SHMEM_REDUCE_MINMAX_TYPES(X)                                            \
    SHMEM_REDUCE_SIGNED_TYPES(X) SHMEM_REDUCE_BITWISE_TYPES(X)                  \
    X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_REDUCE_ARITH_TYPES(X) \
    SHMEM_REDUCE_MINMAX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

/* Reductions from device code (shmemx_device.h): the standard ones, less long double
 * and the complex types, which GPU device code does not have. */
#define SHMEMX_DEV_REDUCE_BITWISE_TYPES(X) SHMEM_REDUCE_BITWISE_TYPES(X)
#define SHMEMX_DEV_REDUCE_MINMAX_TYPES(X) \
    SHMEM_REDUCE_SIGNED_TYPES(X) SHMEM_REDUCE_BITWISE_TYPES(X) X(float, float) X(double, double)
#define SHMEMX_DEV_REDUCE_ARITH_TYPES(X) SHMEMX_DEV_REDUCE_MINMAX_TYPES(X)

/* Deprecated active-set reductions (shmem_TYPENAME_OP_to_all). */
#define SHMEM_TO_ALL_BITWISE_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_TO_ALL_MINMAX_TYPES(X) \
    SHMEM_TO_ALL_BITWISE_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
#define SHMEM_TO_ALL_ARITH_TYPES(X) \
    SHMEM_TO_ALL_MINMAX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

/* The C11 generic interface can name each distinct C type only once. On LP64
 * Linux the fixed-width, size_t and ptrdiff_t types are typedefs of these, so the
 * generic tables list the distinct types and the family each dispatches to. */
#define SHMEM_C11_RMA_TYPES(X)                                                     \
    X(float, float) X(double, double) X(long double, longdouble)                   \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)  \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)       \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_C11_AMO_STD_TYPES(X)                                             \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_C11_AMO_EXT_TYPES(X) SHMEM_C11_AMO_STD_TYPES(X) X(float, float) X(double, double)
#define SHMEM_C11_AMO_BIT_TYPES(X)                                              \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong) \
    X(int, int32) X(long, int64)
#define SHMEM_C11_SYNC_TYPES(X) SHMEM_C11_AMO_STD_TYPES(X)
/* Team reductions. The bitwise column has no plain signed types, only the fixed-width
 * ones, which on LP64 are signed char, short, int and long. Every distinct type of
 * the min/max column is already an RMA type (and every RMA type is in it). */
#define SHMEM_C11_REDUCE_BITWISE_TYPES(X)                                          \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)        \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)                       \
    X(signed char, int8) X(short, int16) X(int, int32) X(long, int64)
#define SHMEM_C11_REDUCE_MINMAX_TYPES(X) SHMEM_C11_RMA_TYPES(X)
#define SHMEM_C11_REDUCE_ARITH_TYPES(X) \
    SHMEM_C11_REDUCE_MINMAX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

#endif
