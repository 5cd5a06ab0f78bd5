/* Compiler helpers every layer uses: branch hints, symbol visibility, and the
 * weak-shmem_/strong-pshmem_ pair each public routine is defined as. */
#ifndef SHOAL_COMPILER_H
#define SHOAL_COMPILER_H

#define SHOAL_LIKELY(x) __builtin_expect(!!(x), 1)
#define SHOAL_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the few helpers of the same-node RMA fast path, which GCC's heuristics would
 * otherwise leave out of line in files that call them many times. */
#define SHOAL_INLINE inline __attribute__((always_inline))
#define SHOAL_EXPORT __attribute__((visibility("default")))
#define SHOAL_STR_(x) #x
#define SHOAL_STR(x) SHOAL_STR_(x)

/* GCC's copy attribute gives the alias its target's attributes (noreturn, format);
 * clang has none and warns of an unknown attribute. */
#if defined(__has_attribute) && __has_attribute(copy)
#define SHOAL_COPY_ATTRS(name) , copy(name)
#else
#define SHOAL_COPY_ATTRS(name)
#endif

/* Every public routine is defined under its shmem_ name as a weak symbol, and gets a
 * strong pshmem_ twin, so a profiling tool can interpose shmem_X and call pshmem_X. */
#define SHOAL_PROFILED(name)                                                                 \
    _Pragma(SHOAL_STR(weak name)) extern __typeof__(name) p##name SHOAL_EXPORT               \
            __attribute__((alias(#name) SHOAL_COPY_ATTRS(name)));

#endif
