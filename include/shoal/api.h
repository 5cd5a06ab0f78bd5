/* Every OpenSHMEM 1.5/1.6 routine, one section per chapter of the specification.
 * Included by shmem.h with SHOAL_API(name) = shmem_##name and by pshmem.h with
 * pshmem_##name, so the profiling twins can never drift from the real names.
 * Typed families are expanded from shoal/type_tables.h; the comment above each
 * family shows the prototype with TYPE/TYPENAME spelled out. */
#ifndef SHOAL_API
#error "include <shmem.h> or <pshmem.h>, not shoal/api.h"
#endif

/* ---- Library setup, exit and query -------------------------------------- */
void SHOAL_API(init)(void);
void SHOAL_API(finalize)(void);
void SHOAL_API(query_initialized)(int *initialized);
int  SHOAL_API(my_pe)(void);
int  SHOAL_API(n_pes)(void);
SHOAL_NORETURN void SHOAL_API(global_exit)(int status);
int  SHOAL_API(pe_accessible)(int pe);
int  SHOAL_API(addr_accessible)(const void *addr, int pe);
void *SHOAL_API(ptr)(const void *dest, int pe);
void *SHOAL_API(team_ptr)(shmem_team_t team, const void *dest, int pe);
void SHOAL_API(info_get_version)(int *major, int *minor);
void SHOAL_API(info_get_name)(char *name);
int  SHOAL_API(init_thread)(int requested, int *provided);
void SHOAL_API(query_thread)(int *provided);

/* ---- Memory management (collective over the world team) ------------------ */
void *SHOAL_API(malloc)(size_t size);
void *SHOAL_API(calloc)(size_t count, size_t size);
void *SHOAL_API(align)(size_t alignment, size_t size);
void *SHOAL_API(realloc)(void *ptr, size_t size);
void *SHOAL_API(malloc_with_hints)(size_t size, long hints);
void  SHOAL_API(free)(void *ptr);

/* ---- Teams ---------------------------------------------------------------- */
int  SHOAL_API(team_my_pe)(shmem_team_t team);
int  SHOAL_API(team_n_pes)(shmem_team_t team);
int  SHOAL_API(team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int  SHOAL_API(team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int  SHOAL_API(team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                                   const shmem_team_config_t *config, long config_mask,
                                   shmem_team_t *new_team);
int  SHOAL_API(team_split_2d)(shmem_team_t parent_team, int xrange,
                              const shmem_team_config_t *xaxis_config, long xaxis_mask,
                              shmem_team_t *xaxis_team,
                              const shmem_team_config_t *yaxis_config, long yaxis_mask,
                              shmem_team_t *yaxis_team);
void SHOAL_API(team_destroy)(shmem_team_t team);

/* ---- Communication contexts ------------------------------------------------ */
int  SHOAL_API(ctx_create)(long options, shmem_ctx_t *ctx);
int  SHOAL_API(team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
void SHOAL_API(ctx_destroy)(shmem_ctx_t ctx);
int  SHOAL_API(ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- Remote memory access ------------------------------------------------ */
/* void shmem_[ctx_]TYPENAME_put(TYPE *dest, const TYPE *source, size_t nelems, int pe)
 * (get, put_nbi, get_nbi alike); void shmem_[ctx_]TYPENAME_p(TYPE *dest, TYPE value, int pe);
 * TYPE shmem_[ctx_]TYPENAME_g(const TYPE *source, int pe);
 * void shmem_[ctx_]TYPENAME_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,
 *                                size_t nelems, int pe) (iget alike);
 * void shmem_[ctx_]TYPENAME_ibput(TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst,
 *                                 size_t bsize, size_t nblocks, int pe) (ibget alike; 1.6) */
#define SHOAL_DECL_RMA_CTX(C, CA, TYPE, N)                                                     \
    void SHOAL_API(C##N##_put)(CA TYPE *dest, const TYPE *source, size_t nelems, int pe);      \
    void SHOAL_API(C##N##_get)(CA TYPE *dest, const TYPE *source, size_t nelems, int pe);      \
    void SHOAL_API(C##N##_put_nbi)(CA TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void SHOAL_API(C##N##_get_nbi)(CA TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void SHOAL_API(C##N##_p)(CA TYPE *dest, TYPE value, int pe);                               \
    TYPE SHOAL_API(C##N##_g)(CA const TYPE *source, int pe);                                   \
    void SHOAL_API(C##N##_iput)(CA TYPE *dest, const TYPE *source, ptrdiff_t dst,              \
                                ptrdiff_t sst, size_t nelems, int pe);                         \
    void SHOAL_API(C##N##_iget)(CA TYPE *dest, const TYPE *source, ptrdiff_t dst,              \
                                ptrdiff_t sst, size_t nelems, int pe);                         \
    void SHOAL_API(C##N##_ibput)(CA TYPE *dest, const TYPE *source, ptrdiff_t dst,             \
                                 ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);         \
    void SHOAL_API(C##N##_ibget)(CA TYPE *dest, const TYPE *source, ptrdiff_t dst,             \
                                 ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);         \
    void SHOAL_API(C##N##_put_signal)(CA TYPE *dest, const TYPE *source, size_t nelems,        \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);\
    void SHOAL_API(C##N##_put_signal_nbi)(CA TYPE *dest, const TYPE *source, size_t nelems,    \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                          int pe);
#define SHOAL_CTX_ARG shmem_ctx_t ctx,
#define SHOAL_DECL_RMA(TYPE, N) \
    SHOAL_DECL_RMA_CTX(, , TYPE, N) SHOAL_DECL_RMA_CTX(ctx_, SHOAL_CTX_ARG, TYPE, N)
SHMEM_RMA_TYPES(SHOAL_DECL_RMA)

/* Sized and byte forms: shmem_[ctx_]putSIZE, getSIZE, putSIZE_nbi, getSIZE_nbi,
 * iputSIZE, igetSIZE, ibputSIZE, ibgetSIZE, putSIZE_signal[_nbi] (SIZE in bits)
 * and shmem_[ctx_]putmem, getmem, putmem_nbi, getmem_nbi, putmem_signal[_nbi]. */
#define SHOAL_DECL_SIZED_CTX(C, CA, S)                                                          \
    void SHOAL_API(C##put##S)(CA void *dest, const void *source, size_t nelems, int pe);        \
    void SHOAL_API(C##get##S)(CA void *dest, const void *source, size_t nelems, int pe);        \
    void SHOAL_API(C##put##S##_nbi)(CA void *dest, const void *source, size_t nelems, int pe);  \
    void SHOAL_API(C##get##S##_nbi)(CA void *dest, const void *source, size_t nelems, int pe);  \
    void SHOAL_API(C##put##S##_signal)(CA void *dest, const void *source, size_t nelems,        \
                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);\
    void SHOAL_API(C##put##S##_signal_nbi)(CA void *dest, const void *source, size_t nelems,    \
                                           uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                           int pe);
#define SHOAL_DECL_STRIDED_CTX(C, CA, S)                                                        \
    void SHOAL_API(C##iput##S)(CA void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int pe);                                          \
    void SHOAL_API(C##iget##S)(CA void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, \
                               size_t nelems, int pe);                                          \
    void SHOAL_API(C##ibput##S)(CA void *dest, const void *source, ptrdiff_t dst,               \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);           \
    void SHOAL_API(C##ibget##S)(CA void *dest, const void *source, ptrdiff_t dst,               \
                                ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);
#define SHOAL_DECL_SIZED(S)                                       \
    SHOAL_DECL_SIZED_CTX(, , S) SHOAL_DECL_SIZED_CTX(ctx_, SHOAL_CTX_ARG, S) \
    SHOAL_DECL_STRIDED_CTX(, , S) SHOAL_DECL_STRIDED_CTX(ctx_, SHOAL_CTX_ARG, S)
SHMEM_RMA_SIZES(SHOAL_DECL_SIZED)
SHOAL_DECL_SIZED_CTX(, , mem)
SHOAL_DECL_SIZED_CTX(ctx_, SHOAL_CTX_ARG, mem)

/* ---- Atomic memory operations -------------------------------------------- */
/* TYPE shmem_[ctx_]TYPENAME_atomic_fetch_add(TYPE *dest, TYPE value, int pe) and the rest of
 * the standard family; void ..._atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe). */
#define SHOAL_DECL_AMO_STD_CTX(C, CA, TYPE, N)                                                  \
    TYPE SHOAL_API(C##N##_atomic_compare_swap)(CA TYPE *dest, TYPE cond, TYPE value, int pe);   \
    TYPE SHOAL_API(C##N##_atomic_fetch_inc)(CA TYPE *dest, int pe);                             \
    void SHOAL_API(C##N##_atomic_inc)(CA TYPE *dest, int pe);                                   \
    TYPE SHOAL_API(C##N##_atomic_fetch_add)(CA TYPE *dest, TYPE value, int pe);                 \
    void SHOAL_API(C##N##_atomic_add)(CA TYPE *dest, TYPE value, int pe);                       \
    void SHOAL_API(C##N##_atomic_compare_swap_nbi)(CA TYPE *fetch, TYPE *dest, TYPE cond,       \
                                                   TYPE value, int pe);                         \
    void SHOAL_API(C##N##_atomic_fetch_inc_nbi)(CA TYPE *fetch, TYPE *dest, int pe);            \
    void SHOAL_API(C##N##_atomic_fetch_add_nbi)(CA TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define SHOAL_DECL_AMO_EXT_CTX(C, CA, TYPE, N)                                                  \
    TYPE SHOAL_API(C##N##_atomic_fetch)(CA const TYPE *source, int pe);                         \
    void SHOAL_API(C##N##_atomic_set)(CA TYPE *dest, TYPE value, int pe);                       \
    TYPE SHOAL_API(C##N##_atomic_swap)(CA TYPE *dest, TYPE value, int pe);                      \
    void SHOAL_API(C##N##_atomic_fetch_nbi)(CA TYPE *fetch, const TYPE *source, int pe);        \
    void SHOAL_API(C##N##_atomic_swap_nbi)(CA TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define SHOAL_DECL_AMO_BIT_CTX(C, CA, TYPE, N)                                                  \
    TYPE SHOAL_API(C##N##_atomic_fetch_and)(CA TYPE *dest, TYPE value, int pe);                 \
    void SHOAL_API(C##N##_atomic_and)(CA TYPE *dest, TYPE value, int pe);                       \
    TYPE SHOAL_API(C##N##_atomic_fetch_or)(CA TYPE *dest, TYPE value, int pe);                  \
    void SHOAL_API(C##N##_atomic_or)(CA TYPE *dest, TYPE value, int pe);                        \
    TYPE SHOAL_API(C##N##_atomic_fetch_xor)(CA TYPE *dest, TYPE value, int pe);                 \
    void SHOAL_API(C##N##_atomic_xor)(CA TYPE *dest, TYPE value, int pe);                       \
    void SHOAL_API(C##N##_atomic_fetch_and_nbi)(CA TYPE *fetch, TYPE *dest, TYPE value, int pe);\
    void SHOAL_API(C##N##_atomic_fetch_or_nbi)(CA TYPE *fetch, TYPE *dest, TYPE value, int pe); \
    void SHOAL_API(C##N##_atomic_fetch_xor_nbi)(CA TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define SHOAL_DECL_AMO_STD(T, N) SHOAL_DECL_AMO_STD_CTX(, , T, N) SHOAL_DECL_AMO_STD_CTX(ctx_, SHOAL_CTX_ARG, T, N)
#define SHOAL_DECL_AMO_EXT(T, N) SHOAL_DECL_AMO_EXT_CTX(, , T, N) SHOAL_DECL_AMO_EXT_CTX(ctx_, SHOAL_CTX_ARG, T, N)
#define SHOAL_DECL_AMO_BIT(T, N) SHOAL_DECL_AMO_BIT_CTX(, , T, N) SHOAL_DECL_AMO_BIT_CTX(ctx_, SHOAL_CTX_ARG, T, N)
SHMEM_AMO_STD_TYPES(SHOAL_DECL_AMO_STD)
SHMEM_AMO_EXT_TYPES(SHOAL_DECL_AMO_EXT)
SHMEM_AMO_BIT_TYPES(SHOAL_DECL_AMO_BIT)

/* Deprecated AMO names (1.4), kept because the specification still requires them. */
#define SHOAL_DECL_DEPR_AMO_EXT(TYPE, N)                        \
    TYPE SHOAL_API(N##_fetch)(const TYPE *source, int pe);      \
    void SHOAL_API(N##_set)(TYPE *dest, TYPE value, int pe);    \
    TYPE SHOAL_API(N##_swap)(TYPE *dest, TYPE value, int pe);
#define SHOAL_DECL_DEPR_AMO_STD(TYPE, N)                                   \
    TYPE SHOAL_API(N##_cswap)(TYPE *dest, TYPE cond, TYPE value, int pe);  \
    TYPE SHOAL_API(N##_finc)(TYPE *dest, int pe);                          \
    void SHOAL_API(N##_inc)(TYPE *dest, int pe);                           \
    TYPE SHOAL_API(N##_fadd)(TYPE *dest, TYPE value, int pe);              \
    void SHOAL_API(N##_add)(TYPE *dest, TYPE value, int pe);
SHMEM_DEPR_AMO_EXT_TYPES(SHOAL_DECL_DEPR_AMO_EXT)
SHMEM_DEPR_AMO_STD_TYPES(SHOAL_DECL_DEPR_AMO_STD)

/* ---- Signaling -------------------------------------------------------------- */
uint64_t SHOAL_API(signal_fetch)(const uint64_t *sig_addr);
void SHOAL_API(signal_add)(uint64_t *sig_addr, uint64_t signal, int pe);
void SHOAL_API(ctx_signal_add)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void SHOAL_API(signal_set)(uint64_t *sig_addr, uint64_t signal, int pe);
void SHOAL_API(ctx_signal_set)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

/* ---- Sessions (1.6) ---------------------------------------------------------- */
void SHOAL_API(ctx_session_start)(shmem_ctx_t ctx, long options,
                                  const shmem_ctx_session_config_t *config, long config_mask);
void SHOAL_API(ctx_session_stop)(shmem_ctx_t ctx);

/* ---- Collectives --------------------------------------------------------------- */
void SHOAL_API(barrier_all)(void);
void SHOAL_API(sync_all)(void);
int  SHOAL_API(team_sync)(shmem_team_t team);
int  SHOAL_API(alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int  SHOAL_API(alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems);
int  SHOAL_API(broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems,
                             int PE_root);
int  SHOAL_API(collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int  SHOAL_API(fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
/* int shmem_TYPENAME_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems)
 * and alltoalls, broadcast (+ int PE_root), collect, fcollect. */
#define SHOAL_DECL_COLL(TYPE, N)                                                                \
    int SHOAL_API(N##_alltoall)(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems); \
    int SHOAL_API(N##_alltoalls)(shmem_team_t team, TYPE *dest, const TYPE *source,             \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems);                  \
    int SHOAL_API(N##_broadcast)(shmem_team_t team, TYPE *dest, const TYPE *source,             \
                                 size_t nelems, int PE_root);                                   \
    int SHOAL_API(N##_collect)(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems); \
    int SHOAL_API(N##_fcollect)(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nelems);
SHMEM_RMA_TYPES(SHOAL_DECL_COLL)
/* int shmem_TYPENAME_OP_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce);
 * int shmem_TYPENAME_sum_inscan / sum_exscan (1.6), same arguments. */
#define SHOAL_DECL_REDUCE_OP(TYPE, N, OP) \
    int SHOAL_API(N##_##OP##_reduce)(shmem_team_t team, TYPE *dest, const TYPE *source, size_t nreduce);
#define SHOAL_DECL_REDUCE_BITWISE(T, N) \
    SHOAL_DECL_REDUCE_OP(T, N, and) SHOAL_DECL_REDUCE_OP(T, N, or) SHOAL_DECL_REDUCE_OP(T, N, xor)
#define SHOAL_DECL_REDUCE_MINMAX(T, N) SHOAL_DECL_REDUCE_OP(T, N, max) SHOAL_DECL_REDUCE_OP(T, N, min)
#define SHOAL_DECL_REDUCE_ARITH(T, N)                                    \
    SHOAL_DECL_REDUCE_OP(T, N, sum) SHOAL_DECL_REDUCE_OP(T, N, prod)     \
    int SHOAL_API(N##_sum_inscan)(shmem_team_t team, T *dest, const T *source, size_t nelems); \
    int SHOAL_API(N##_sum_exscan)(shmem_team_t team, T *dest, const T *source, size_t nelems);
SHMEM_REDUCE_BITWISE_TYPES(SHOAL_DECL_REDUCE_BITWISE)
SHMEM_REDUCE_MINMAX_TYPES(SHOAL_DECL_REDUCE_MINMAX)
SHMEM_REDUCE_ARITH_TYPES(SHOAL_DECL_REDUCE_ARITH)

/* Deprecated active-set collectives (pSync/pWrk). */
void SHOAL_API(barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
void SHOAL_API(sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define SHOAL_DECL_ACTIVE_SET(S)                                                                \
    void SHOAL_API(alltoall##S)(void *dest, const void *source, size_t nelems, int PE_start,     \
                                int logPE_stride, int PE_size, long *pSync);                    \
    void SHOAL_API(alltoalls##S)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                 size_t nelems, int PE_start, int logPE_stride, int PE_size,    \
                                 long *pSync);                                                  \
    void SHOAL_API(broadcast##S)(void *dest, const void *source, size_t nelems, int PE_root,     \
                                 int PE_start, int logPE_stride, int PE_size, long *pSync);     \
    void SHOAL_API(collect##S)(void *dest, const void *source, size_t nelems, int PE_start,      \
                               int logPE_stride, int PE_size, long *pSync);                     \
    void SHOAL_API(fcollect##S)(void *dest, const void *source, size_t nelems, int PE_start,     \
                                int logPE_stride, int PE_size, long *pSync);
SHOAL_DECL_ACTIVE_SET(32)
SHOAL_DECL_ACTIVE_SET(64)
#define SHOAL_DECL_TO_ALL_OP(TYPE, N, OP)                                                     \
    void SHOAL_API(N##_##OP##_to_all)(TYPE *dest, const TYPE *source, int nreduce, int PE_start, \
                                      int logPE_stride, int PE_size, TYPE *pWrk, long *pSync);
#define SHOAL_DECL_TO_ALL_BITWISE(T, N) \
    SHOAL_DECL_TO_ALL_OP(T, N, and) SHOAL_DECL_TO_ALL_OP(T, N, or) SHOAL_DECL_TO_ALL_OP(T, N, xor)
#define SHOAL_DECL_TO_ALL_MINMAX(T, N) SHOAL_DECL_TO_ALL_OP(T, N, max) SHOAL_DECL_TO_ALL_OP(T, N, min)
#define SHOAL_DECL_TO_ALL_ARITH(T, N) SHOAL_DECL_TO_ALL_OP(T, N, sum) SHOAL_DECL_TO_ALL_OP(T, N, prod)
SHMEM_TO_ALL_BITWISE_TYPES(SHOAL_DECL_TO_ALL_BITWISE)
SHMEM_TO_ALL_MINMAX_TYPES(SHOAL_DECL_TO_ALL_MINMAX)
SHMEM_TO_ALL_ARITH_TYPES(SHOAL_DECL_TO_ALL_ARITH)

/* ---- Point-to-point synchronization --------------------------------------- */
/* void shmem_TYPENAME_wait_until(TYPE *ivar, int cmp, TYPE cmp_value); int ..._test(...);
 * the _all/_any/_some forms take (TYPE *ivars, size_t nelems, [size_t *indices,]
 * const int *status, int cmp, TYPE cmp_value), and _vector forms const TYPE *cmp_values. */
#define SHOAL_DECL_SYNC_BASIC(TYPE, N)                                      \
    void SHOAL_API(N##_wait_until)(TYPE *ivar, int cmp, TYPE cmp_value);    \
    int  SHOAL_API(N##_test)(TYPE *ivar, int cmp, TYPE cmp_value);
#define SHOAL_DECL_SYNC(TYPE, N)                                                                \
    SHOAL_DECL_SYNC_BASIC(TYPE, N)                                                              \
    void   SHOAL_API(N##_wait_until_all)(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                         TYPE cmp_value);                                       \
    size_t SHOAL_API(N##_wait_until_any)(TYPE *ivars, size_t nelems, const int *status, int cmp, \
                                         TYPE cmp_value);                                       \
    size_t SHOAL_API(N##_wait_until_some)(TYPE *ivars, size_t nelems, size_t *indices,           \
                                          const int *status, int cmp, TYPE cmp_value);          \
    void   SHOAL_API(N##_wait_until_all_vector)(TYPE *ivars, size_t nelems, const int *status,  \
                                                int cmp, const TYPE *cmp_values);               \
    size_t SHOAL_API(N##_wait_until_any_vector)(TYPE *ivars, size_t nelems, const int *status,  \
                                                int cmp, const TYPE *cmp_values);               \
    size_t SHOAL_API(N##_wait_until_some_vector)(TYPE *ivars, size_t nelems, size_t *indices,   \
                                                 const int *status, int cmp,                    \
                                                 const TYPE *cmp_values);                       \
    int    SHOAL_API(N##_test_all)(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                   TYPE cmp_value);                                             \
    size_t SHOAL_API(N##_test_any)(TYPE *ivars, size_t nelems, const int *status, int cmp,      \
                                   TYPE cmp_value);                                             \
    size_t SHOAL_API(N##_test_some)(TYPE *ivars, size_t nelems, size_t *indices,                \
                                    const int *status, int cmp, TYPE cmp_value);                \
    int    SHOAL_API(N##_test_all_vector)(TYPE *ivars, size_t nelems, const int *status,        \
                                          int cmp, const TYPE *cmp_values);                     \
    size_t SHOAL_API(N##_test_any_vector)(TYPE *ivars, size_t nelems, const int *status,        \
                                          int cmp, const TYPE *cmp_values);                     \
    size_t SHOAL_API(N##_test_some_vector)(TYPE *ivars, size_t nelems, size_t *indices,         \
                                           const int *status, int cmp, const TYPE *cmp_values);
SHMEM_SYNC_TYPES(SHOAL_DECL_SYNC)
SHMEM_SYNC_DEPR_TYPES(SHOAL_DECL_SYNC_BASIC)
uint64_t SHOAL_API(signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
/* Deprecated (1.4) waits. */
void SHOAL_API(wait_until)(long *ivar, int cmp, long cmp_value);
void SHOAL_API(wait)(long *ivar, long cmp_value);
#define SHOAL_DECL_DEPR_WAIT(TYPE, N) void SHOAL_API(N##_wait)(TYPE *ivar, TYPE cmp_value);
SHMEM_DEPR_WAIT_TYPES(SHOAL_DECL_DEPR_WAIT)

/* ---- Memory ordering --------------------------------------------------------- */
void SHOAL_API(fence)(void);
void SHOAL_API(ctx_fence)(shmem_ctx_t ctx);
void SHOAL_API(quiet)(void);
void SHOAL_API(ctx_quiet)(shmem_ctx_t ctx);
void SHOAL_API(pe_quiet)(const int *target_pes, size_t npes);
void SHOAL_API(ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- Distributed locking ----------------------------------------------------- */
void SHOAL_API(set_lock)(long *lock);
void SHOAL_API(clear_lock)(long *lock);
int  SHOAL_API(test_lock)(long *lock);

/* ---- Profiling ------------------------------------------------------------------ */
void SHOAL_API(pcontrol)(int level, ...);
