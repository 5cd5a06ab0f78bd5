/* shmem.h: the OpenSHMEM 1.5 interface (with the 1.6 additions) as implemented by Shoal.
 *
 * Where to look things up:
 *   constants, types and handles ... this file
 *   every routine ................... shoal/api.h (one section per specification chapter)
 *   type tables (TYPE, TYPENAME) .... shoal/type_tables.h
 *   C11 type-generic names .......... shoal/generic.h
 *   C++ overloads of those names .... shoal/cxx.h
 *   extensions ...................... shmemx.h */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include <shoal/type_tables.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Shoal builds with hidden visibility; what is declared here is the exported ABI. */
#pragma GCC visibility push(default)

/* ---- Version and vendor ------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "Shoal"

/* Shoal's own version: the one place it is written (CMake reads it from here).
 * SHOAL_NUMVERSION is MAJOR*10000 + MINOR*100 + PATCH, for #if comparisons; tools
 * that adapt to an implementation (e.g. shmem4py) can key on SHOAL_NUMVERSION. */
#define SHOAL_VERSION_MAJOR 0
#define SHOAL_VERSION_MINOR 1
#define SHOAL_VERSION_PATCH 0
#define SHOAL_NUMVERSION \
    (SHOAL_VERSION_MAJOR * 10000 + SHOAL_VERSION_MINOR * 100 + SHOAL_VERSION_PATCH)

/* ---- Thread levels (strictly increasing, as the specification requires) ------- */
#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* ---- Comparison operators for wait/test ----------------------------------------- */
#define SHMEM_CMP_EQ 1
#define SHMEM_CMP_NE 2
#define SHMEM_CMP_GT 3
#define SHMEM_CMP_GE 4
#define SHMEM_CMP_LT 5
#define SHMEM_CMP_LE 6

/* ---- Signal operators ------------------------------------------------------------ */
#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* ---- Contexts, teams, sessions, allocation hints ---------------------------------- */
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)
#define SHMEM_CTX_SESSION_BATCH     (1L << 0)
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)

/* ---- Deprecated active-set collective work arrays --------------------------------- */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE   4
#define SHMEM_BCAST_SYNC_SIZE     4
#define SHMEM_COLLECT_SYNC_SIZE   4
#define SHMEM_REDUCE_SYNC_SIZE    4
#define SHMEM_ALLTOALL_SYNC_SIZE  4
#define SHMEM_ALLTOALLS_SYNC_SIZE 4
#define SHMEM_SYNC_SIZE           4
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* Names deprecated in 1.3, still accepted. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---- Types and handles ------------------------------------------------------------ */
typedef struct shoal_ctx *shmem_ctx_t;
typedef struct shoal_team *shmem_team_t;
typedef struct { int num_contexts; } shmem_team_config_t;
typedef struct { size_t total_ops; } shmem_ctx_session_config_t;

extern struct shoal_ctx shoal_ctx_default;
extern struct shoal_team shoal_team_world;
extern struct shoal_team shoal_team_shared;
#define SHMEM_CTX_DEFAULT  (&shoal_ctx_default)
#define SHMEM_TEAM_WORLD   (&shoal_team_world)
#define SHMEM_TEAM_SHARED  (&shoal_team_shared)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)
#define SHOAL_NORETURN _Noreturn
#elif defined(__GNUC__)
#define SHOAL_NORETURN __attribute__((noreturn))
#else
#define SHOAL_NORETURN
#endif

/* ---- Routines ----------------------------------------------------------------------- */
#define SHOAL_API(name) shmem_##name
#include <shoal/api.h>
#undef SHOAL_API

/* Names deprecated in 1.2, still required. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ---- C11 type-generic interface ----------------------------------------------------- */
/* The library's own sources define the functions these macros would rename. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus) && \
    !defined(SHOAL_BUILDING_LIBRARY)
#include <shoal/generic.h>
#endif

/* ---- C++ overloads of the generic names --------------------------------------------- */
#if defined(__cplusplus) && !defined(SHOAL_BUILDING_LIBRARY)
#include <shoal/cxx.h>
#endif

#endif
