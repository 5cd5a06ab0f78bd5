/* Cray OpenSHMEMX's names, so that programs written for HPE Cray OpenSHMEMX compile
 * and run unchanged: each is the standard routine (or Shoal extension) of the same
 * meaning, called directly. Included by shmemx.h twice: with SHOAL_CX(n) =
 * shmemx_##n and SHOAL_CX_STD(n) = shmem_##n, then with pshmemx_ and pshmem_, so a
 * profiling tool sees every call as the standard routine it is.
 * docs/extensions.md ("Coming from Cray OpenSHMEMX") lists them and what differs. */
#if !defined(SHOAL_CX) || !defined(SHOAL_CX_STD) || !defined(SHOAL_CX_X)
#error "include <shmemx.h>, not shoal/cx.h"
#endif

/* ---- Non-blocking RMA: shmemx_[ctx_]TYPENAME_{put,get}_nb, {put,get}SIZE_nb, mem ----
 * The _nbi routines under CX's names: posted on return, complete at the next quiet. */
#define SHOAL_CX_NB(TYPE, N)                                                                 \
    static inline void SHOAL_CX(N##_put_nb)(TYPE *dest, const TYPE *src, size_t n, int pe)   \
    { SHOAL_CX_STD(N##_put_nbi)(dest, src, n, pe); }                                         \
    static inline void SHOAL_CX(N##_get_nb)(TYPE *dest, const TYPE *src, size_t n, int pe)   \
    { SHOAL_CX_STD(N##_get_nbi)(dest, src, n, pe); }                                         \
    static inline void SHOAL_CX(ctx_##N##_put_nb)(shmem_ctx_t ctx, TYPE *dest,               \
                                                  const TYPE *src, size_t n, int pe)         \
    { SHOAL_CX_STD(ctx_##N##_put_nbi)(ctx, dest, src, n, pe); }                              \
    static inline void SHOAL_CX(ctx_##N##_get_nb)(shmem_ctx_t ctx, TYPE *dest,               \
                                                  const TYPE *src, size_t n, int pe)         \
    { SHOAL_CX_STD(ctx_##N##_get_nbi)(ctx, dest, src, n, pe); }
SHMEM_RMA_TYPES(SHOAL_CX_NB)
#undef SHOAL_CX_NB
#define SHOAL_CX_NB_SIZED(S)                                                                 \
    static inline void SHOAL_CX(put##S##_nb)(void *dest, const void *src, size_t n, int pe)  \
    { SHOAL_CX_STD(put##S##_nbi)(dest, src, n, pe); }                                        \
    static inline void SHOAL_CX(get##S##_nb)(void *dest, const void *src, size_t n, int pe)  \
    { SHOAL_CX_STD(get##S##_nbi)(dest, src, n, pe); }                                        \
    static inline void SHOAL_CX(ctx_put##S##_nb)(shmem_ctx_t ctx, void *dest,                \
                                                 const void *src, size_t n, int pe)          \
    { SHOAL_CX_STD(ctx_put##S##_nbi)(ctx, dest, src, n, pe); }                               \
    static inline void SHOAL_CX(ctx_get##S##_nb)(shmem_ctx_t ctx, void *dest,                \
                                                 const void *src, size_t n, int pe)          \
    { SHOAL_CX_STD(ctx_get##S##_nbi)(ctx, dest, src, n, pe); }
SHMEM_RMA_SIZES(SHOAL_CX_NB_SIZED)
SHOAL_CX_NB_SIZED(mem)
#undef SHOAL_CX_NB_SIZED

/* ---- Non-blocking AMOs with a transfer handle ---------------------------------------
 * The handle is documented as unused (callers pass NULL). Fetched values are valid
 * after the next quiet, as with the standard _nbi AMOs these call; add and inc are
 * the standard non-fetching AMOs, which also complete at quiet. */
#define SHOAL_CX_AMO_NB(TYPE, N)                                                             \
    static inline void SHOAL_CX(N##_add_nb)(TYPE *target, TYPE value, int pe, void **h)      \
    { (void)h; SHOAL_CX_STD(N##_atomic_add)(target, value, pe); }                            \
    static inline void SHOAL_CX(N##_inc_nb)(TYPE *target, int pe, void **h)                  \
    { (void)h; SHOAL_CX_STD(N##_atomic_inc)(target, pe); }                                   \
    static inline void SHOAL_CX(N##_fadd_nb)(TYPE *fetch, TYPE *target, TYPE value, int pe,  \
                                             void **h)                                       \
    { (void)h; SHOAL_CX_STD(N##_atomic_fetch_add_nbi)(fetch, target, value, pe); }           \
    static inline void SHOAL_CX(N##_finc_nb)(TYPE *fetch, TYPE *target, int pe, void **h)    \
    { (void)h; SHOAL_CX_STD(N##_atomic_fetch_inc_nbi)(fetch, target, pe); }                  \
    static inline void SHOAL_CX(N##_swap_nb)(TYPE *fetch, TYPE *target, TYPE value, int pe,  \
                                             void **h)                                       \
    { (void)h; SHOAL_CX_STD(N##_atomic_swap_nbi)(fetch, target, value, pe); }                \
    static inline void SHOAL_CX(N##_cswap_nb)(TYPE *fetch, TYPE *target, TYPE cond,          \
                                              TYPE value, int pe, void **h)                  \
    { (void)h; SHOAL_CX_STD(N##_atomic_compare_swap_nbi)(fetch, target, cond, value, pe); }
SHMEM_AMO_STD_TYPES(SHOAL_CX_AMO_NB)
#undef SHOAL_CX_AMO_NB

/* ---- Put-with-signal, pre-1.5 spelling: the signal is set ---------------------------- */
#define SHOAL_CX_PUT_SIGNAL(TYPE, N)                                                         \
    static inline void SHOAL_CX(N##_put_signal)(TYPE *dest, const TYPE *src, size_t n,       \
                                                uint64_t *sig, uint64_t signal, int pe)      \
    { SHOAL_CX_STD(N##_put_signal)(dest, src, n, sig, signal, SHMEM_SIGNAL_SET, pe); }       \
    static inline void SHOAL_CX(N##_put_signal_nb)(TYPE *dest, const TYPE *src, size_t n,    \
                                                   uint64_t *sig, uint64_t signal, int pe)   \
    { SHOAL_CX_STD(N##_put_signal_nbi)(dest, src, n, sig, signal, SHMEM_SIGNAL_SET, pe); }
SHMEM_RMA_TYPES(SHOAL_CX_PUT_SIGNAL)
#undef SHOAL_CX_PUT_SIGNAL
#define SHOAL_CX_PUT_SIGNAL_SIZED(S)                                                         \
    static inline void SHOAL_CX(put##S##_signal)(void *dest, const void *src, size_t n,      \
                                                 uint64_t *sig, uint64_t signal, int pe)     \
    { SHOAL_CX_STD(put##S##_signal)(dest, src, n, sig, signal, SHMEM_SIGNAL_SET, pe); }      \
    static inline void SHOAL_CX(put##S##_signal_nb)(void *dest, const void *src, size_t n,   \
                                                    uint64_t *sig, uint64_t signal, int pe)  \
    { SHOAL_CX_STD(put##S##_signal_nbi)(dest, src, n, sig, signal, SHMEM_SIGNAL_SET, pe); }
SHMEM_RMA_SIZES(SHOAL_CX_PUT_SIGNAL_SIZED)
SHOAL_CX_PUT_SIGNAL_SIZED(mem)
#undef SHOAL_CX_PUT_SIGNAL_SIZED

/* ---- Completion, sessions, threads ----------------------------------------------------
 * shmemx_pe_quiet(pe) is 1.6's shmem_pe_quiet for one PE. */
static inline void SHOAL_CX(pe_quiet)(int target_pe)
{
    SHOAL_CX_STD(pe_quiet)(&target_pe, 1);
}
static inline void SHOAL_CX(session_start)(shmem_ctx_t ctx, long options)
{
    SHOAL_CX_X(ctx_session_start)(ctx, options);
}
static inline void SHOAL_CX(session_stop)(shmem_ctx_t ctx)
{
    SHOAL_CX_X(ctx_session_stop)(ctx);
}
static inline int SHOAL_CX(init_thread)(int requested, int *provided)
{
    return SHOAL_CX_STD(init_thread)(requested, provided);
}
static inline void SHOAL_CX(query_thread)(int *provided)
{
    SHOAL_CX_STD(query_thread)(provided);
}

/* ---- Teams, pre-1.5 names ---------------------------------------------------------------
 * The same handles as the 1.5 teams. The splits return nothing: a failed split
 * leaves SHMEM_TEAM_INVALID, as the 1.5 routines do. */
static inline int SHOAL_CX(team_my_pe)(shmem_team_t team)
{
    return SHOAL_CX_STD(team_my_pe)(team);
}
static inline int SHOAL_CX(team_mype)(shmem_team_t team)
{
    return SHOAL_CX_STD(team_my_pe)(team);
}
static inline int SHOAL_CX(team_n_pes)(shmem_team_t team)
{
    return SHOAL_CX_STD(team_n_pes)(team);
}
static inline int SHOAL_CX(team_npes)(shmem_team_t team)
{
    return SHOAL_CX_STD(team_n_pes)(team);
}
static inline int SHOAL_CX(team_translate_pe)(shmem_team_t src_team, int src_pe,
                                              shmem_team_t dest_team)
{
    return SHOAL_CX_STD(team_translate_pe)(src_team, src_pe, dest_team);
}
static inline void SHOAL_CX(team_destroy)(shmem_team_t *team)
{
    SHOAL_CX_STD(team_destroy)(*team);
    *team = SHMEM_TEAM_INVALID;
}
static inline void SHOAL_CX(team_split_strided)(shmem_team_t parent, int start, int stride,
                                                int size, shmem_team_t *new_team)
{
    (void)SHOAL_CX_STD(team_split_strided)(parent, start, stride, size, NULL, 0, new_team);
}
static inline int SHOAL_CX(team_get_config)(shmem_team_t team, long config_mask,
                                            shmem_team_config_t *config)
{
    return SHOAL_CX_STD(team_get_config)(team, config_mask, config);
}
static inline int SHOAL_CX(team_ctx_create)(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    return SHOAL_CX_STD(team_create_ctx)(team, options, ctx);
}
static inline int SHOAL_CX(ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team)
{
    return SHOAL_CX_STD(ctx_get_team)(ctx, team);
}
/* A barrier: this PE's default-context operations complete, then the team syncs. */
static inline int SHOAL_CX(team_barrier)(shmem_team_t team)
{
    SHOAL_CX_STD(quiet)();
    return SHOAL_CX_STD(team_sync)(team);
}
