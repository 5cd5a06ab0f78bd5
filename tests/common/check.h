/* Assertions for multi-PE tests: a failed check names the PE, file, line and the
 * values involved, then ends the whole job with a nonzero status. */
#ifndef SHOAL_TEST_CHECK_H
#define SHOAL_TEST_CHECK_H

#include <shmem.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* "FAIL PE n file:line: ..." and the end of the job. */
static inline void check_failed(const char *file, int line, const char *fmt, ...)
        __attribute__((noreturn, format(printf, 3, 4)));
static inline void check_failed(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL PE %d %s:%d: ", shmem_my_pe(), file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    shmem_global_exit(1);
}

/* "PE n: while ...": what the test was doing, said before a failed check's line. */
static inline void check_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void check_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "PE %d: while ", shmem_my_pe());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* shmem_malloc for a test's buffers: a heap too small for them ends the job. */
static inline void *test_malloc(size_t bytes)
{
    void *p = shmem_malloc(bytes);
    if (!p) {
        fprintf(stderr, "FAIL PE %d: shmem_malloc(%zu) returned NULL\n", shmem_my_pe(),
                bytes);
        shmem_global_exit(1);
    }
    return p;
}

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond))                                                                         \
            check_failed(__FILE__, __LINE__, "%s", #cond);                                   \
    } while (0)

#define CHECK_EQ(a, b)                                                                       \
    do {                                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                                  \
        if (a_ != b_)                                                                        \
            check_failed(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, a_, b_);     \
    } while (0)

/* CHECK and CHECK_EQ that first say what the test was doing (a printf format and its
 * arguments, e.g. "testing %s", type): for checks inside loops over cases. Each
 * operand is evaluated once. */
#define CHECK_WHILE(cond, ...)                                                               \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            check_note(__VA_ARGS__);                                                         \
            check_failed(__FILE__, __LINE__, "%s", #cond);                                   \
        }                                                                                    \
    } while (0)

#define CHECK_EQ_WHILE(a, b, ...)                                                            \
    do {                                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                                  \
        if (a_ != b_) {                                                                      \
            check_note(__VA_ARGS__);                                                         \
            check_failed(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, a_, b_);     \
        }                                                                                    \
    } while (0)

#endif
