/* The debug log: SHOAL_LOG=channel:level[,channel:level...] turns on messages of one
 * part of the library, e.g. SHOAL_LOG=ofi:debug,boot:info or all:trace. Each message
 * is one line, "shoal: PE n: [channel] text", on stderr or in the file SHOAL_LOG_FILE
 * names (a pattern: %p the PE, %h the host, %j the pid). Off, a log point is one test
 * of a bit in a word, and its arguments are not evaluated. It sits with env (below
 * the bootstrap) so that every layer, the bootstrap included, can log. */
#ifndef SHOAL_LOG_H
#define SHOAL_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "env/compiler.h"

#define SHOAL_LOG_SUBSYSTEMS(X)                                                              \
    X(BOOT, "boot", "start-up: bootstrap steps and exchanges, node layout, binding")         \
    X(MEM, "mem", "symmetric segments and the heap")                                         \
    X(SHM, "shm", "same-node transport: mapping peers")                                      \
    X(OFI, "ofi", "libfabric transport: provider, capabilities, contexts, retries")          \
    X(MPI, "mpi", "MPI transport: MPI start, windows, contexts")                             \
    X(DEVICE, "device", "device layer: backend, memory kinds, device heap")                  \
    X(COLL, "coll", "collectives, barriers, stalled waits")                                  \
    X(TEAM, "team", "teams, contexts, the path to each PE")                                  \
    X(API, "api", "user routines: entry and exit (debug), each transfer's path (trace)")

enum shoal_log_subsystem {
#define SHOAL_LOG_ENUM(id, name, help) SHOAL_LOG_##id,
    SHOAL_LOG_SUBSYSTEMS(SHOAL_LOG_ENUM)
#undef SHOAL_LOG_ENUM
            SHOAL_LOG_NSUB
};

/* info: what was set up, once per job; debug: per object (team, context, segment,
 * exchange); trace: per operation. */
enum shoal_log_level { SHOAL_LOG_OFF, SHOAL_LOG_INFO, SHOAL_LOG_DEBUG, SHOAL_LOG_TRACE };

/* Bit (channel, level) is set when the channel logs at that level: levels 1 to 3 of
 * channel c are bits 3c to 3c+2. */
#define SHOAL_LOG_BIT(sub, level) (UINT32_C(1) << (3 * (sub) + (level)-1))
_Static_assert(3 * SHOAL_LOG_NSUB <= 32, "the log mask has a bit per channel and level");

extern uint32_t shoal_log_mask;

/* Parses a SHOAL_LOG value into shoal_log_mask; -1 with a message in err. */
int shoal_log_parse(const char *spec, char *err, size_t len);
/* Cray OpenSHMEMX's SHMEM_DEBUG_LEVEL (0-5) and SHMEM_DEBUG_CATEGORIES onto
 * shoal_log_mask (for a SHOAL_LOG that is not set; nothing when both are unset),
 * and SHMEM_DEBUG_RANKS (the PEs that log, "" for all); -1 with a message in err, 1
 * with a warning in err (a category with no counterpart, skipped). */
int shoal_log_parse_cx(long level, const char *categories, const char *ranks, char *err,
                       size_t len);
/* Where lines go: SHOAL_LOG_FILE's pattern, or "" for stderr; -1 with a message in
 * err for a malformed one. With a file, lines logged before shoal_log_start are kept
 * (up to 8 KiB) and written when it opens the file. */
int shoal_log_target(const char *pattern, char *err, size_t len);
/* This PE's number, now known: opens the file (pe < 0: the bootstrap failed, and the
 * kept lines go to stderr). */
void shoal_log_start(int pe);
void shoal_log_emit(enum shoal_log_subsystem sub, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Seconds on the monotonic clock, and of CPU (user and system) this process has
 * used, for log lines that time a step: a step that took long with little CPU
 * waited, for peers or for a CPU. */
double shoal_log_now(void);
double shoal_log_cpu(void);

#define SHOAL_LOG_ON(sub, level)                                                             \
    SHOAL_UNLIKELY(shoal_log_mask &SHOAL_LOG_BIT(SHOAL_LOG_##sub, SHOAL_LOG_##level))
#define SHOAL_LOG(sub, level, ...)                                                           \
    do {                                                                                     \
        if (SHOAL_LOG_ON(sub, level))                                                        \
            shoal_log_emit(SHOAL_LOG_##sub, __VA_ARGS__);                                    \
    } while (0)

/* A user routine's entry and exit, at api:debug: SHOAL_LOG_SCOPE(fn) at the top of
 * the routine logs "enter fn" and, as the routine returns, "exit fn after T us". Off,
 * two bit tests and no clock read. */
struct shoal_log_scope {
    const char *fn; /* NULL: the channel was off at entry */
    double t0;
};

static inline struct shoal_log_scope shoal_log_enter(const char *fn)
{
    struct shoal_log_scope s = { NULL, 0 };
    if (SHOAL_LOG_ON(API, DEBUG)) {
        shoal_log_emit(SHOAL_LOG_API, "enter %s", fn);
        s.fn = fn;
        s.t0 = shoal_log_now();
    }
    return s;
}

static inline void shoal_log_exit(const struct shoal_log_scope *s)
{
    if (SHOAL_UNLIKELY(s->fn != NULL))
        shoal_log_emit(SHOAL_LOG_API, "exit %s after %.1f us", s->fn,
                       (shoal_log_now() - s->t0) * 1e6);
}

#define SHOAL_LOG_SCOPE(fn)                                                                  \
    const struct shoal_log_scope shoal_log_scope_                                            \
            __attribute__((cleanup(shoal_log_exit), unused)) = shoal_log_enter(fn)

#endif
