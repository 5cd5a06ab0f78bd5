/* The debug log: SHOAL_LOG=subsystem:level[,subsystem:level...] turns on messages of
 * one part of the library, e.g. SHOAL_LOG=ofi:debug,boot:info or all:trace. Each
 * message is one line on stderr, "shoal: PE n: [subsystem] text". Off, a log point
 * costs one predictable branch on a byte. */
#ifndef SHOAL_LOG_H
#define SHOAL_LOG_H

#include <stddef.h>

#include "env/compiler.h"

#define SHOAL_LOG_SUBSYSTEMS(X)                                                              \
    X(BOOT, "boot", "bootstrap: launcher, rank, size")                                       \
    X(MEM, "mem", "symmetric segments and the heap")                                         \
    X(SHM, "shm", "same-node transport: mapping peers")                                      \
    X(OFI, "ofi", "libfabric transport: provider, capabilities, contexts")                   \
    X(COLL, "coll", "collectives and barriers")                                              \
    X(TEAM, "team", "teams and contexts")

enum shoal_log_subsystem {
#define SHOAL_LOG_ENUM(id, name, help) SHOAL_LOG_##id,
    SHOAL_LOG_SUBSYSTEMS(SHOAL_LOG_ENUM)
#undef SHOAL_LOG_ENUM
            SHOAL_LOG_NSUB
};

/* info: what was set up, once per job; debug: per object (team, context, segment);
 * trace: per operation. */
enum shoal_log_level { SHOAL_LOG_OFF, SHOAL_LOG_INFO, SHOAL_LOG_DEBUG, SHOAL_LOG_TRACE };

extern unsigned char shoal_log_level[SHOAL_LOG_NSUB];

/* Parses a SHOAL_LOG value into shoal_log_level; -1 with a message in err. */
int shoal_log_parse(const char *spec, char *err, size_t len);
void shoal_log_emit(enum shoal_log_subsystem sub, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

#define SHOAL_LOG(sub, level, ...)                                                           \
    do {                                                                                     \
        if (SHOAL_UNLIKELY(shoal_log_level[SHOAL_LOG_##sub] >= SHOAL_LOG_##level))           \
            shoal_log_emit(SHOAL_LOG_##sub, __VA_ARGS__);                                    \
    } while (0)

#endif
