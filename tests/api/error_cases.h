/* Every case of test_errors.c, listed once. amo.cmake registers a test per case from
 * this file, test_errors.c runs a case, and test_errors.sh asks test_errors.c
 * (--spec CASE) how to run and judge it.
 *
 *   X(CASE, PES, ENV, STATUS, REGEX)
 *     PES     the PE counts to run at
 *     ENV     extra environment, VAR=VAL words ("" for none)
 *     STATUS  "nonzero" or the exact exit status
 *     REGEX   an extended regular expression some output line must match ("": none)
 *
 * Disagreement cases (*_mismatch) need two PEs, and SHMEM_DEBUG compares the
 * arguments: NAME differs across the PEs (LOW on PE 0, HIGH on the last PE). */
#define DBG "SHMEM_DEBUG=1"
#define MISMATCH(name, what) name ": " what
#define DIFFERS "differs across the PEs \\("
#define ON_LAST " on PE [13]\\)"
#define GLOBAL_EXIT_7 "^oshrun: PE [0-9]+ called shmem_global_exit\\(7\\); ending the job$"

#define ERROR_CASES(X)                                                                       \
    X(before_init, "1 2 4", "", "nonzero", "shmem_my_pe: called before shmem_init")          \
    X(after_finalize, "1 2 4", "", "nonzero", "called after shmem_finalize")                 \
    X(finalize_twice, "1 2 4", "", "0",                                                      \
      "^shoal: PE [0-9]+: warning: shmem_finalize: called again after the last "             \
      "shmem_finalize")                                                                      \
    X(pe_range, "1 2 4", "", "nonzero", "shmem_int_p: PE [0-9]+ is out of range")            \
    X(pe_negative, "1 2 4", "", "nonzero", "shmem_int_atomic_inc: PE -1 is out of range")    \
    X(not_symmetric, "1 2 4", "", "nonzero",                                                 \
      "shmem_int_p: address 0x[0-9a-f]+ is not symmetric")                                   \
    X(not_symmetric_malloc, "1 2 4", "", "nonzero",                                          \
      "shmem_int_put: address 0x[0-9a-f]+ is not symmetric")                                 \
    X(debug_range, "1 2 4", DBG " SHMEM_SYMMETRIC_SIZE=1M", "nonzero",                       \
      "shmem_putmem: 4194304 bytes at 0x[0-9a-f]+ run past the end of the symmetric heap")   \
    X(debug_range_static, "1 2 4", DBG, "nonzero",                                           \
      "shmem_getmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric static "  \
      "data")                                                                                \
    X(misaligned, "1 2 4", "", "nonzero", "shmem_int_atomic_fetch_add: .*not aligned")       \
    X(misaligned_global, "1 2 4", "", "nonzero", "shmem_long_atomic_set: .*not aligned")     \
    X(bad_size, "1 2 4", "SHMEM_SYMMETRIC_SIZE=abc", "nonzero",                              \
      "(shmem_init|oshrun): .*SHMEM_SYMMETRIC_SIZE")                                         \
    X(bad_size_suffix, "1 2 4", "SHMEM_SYMMETRIC_SIZE=12Q", "nonzero",                       \
      "(shmem_init|oshrun): .*SHMEM_SYMMETRIC_SIZE")                                         \
    X(bad_cmp, "1 2 4", "", "nonzero", "shmem_int_wait_until: cmp 42 is not one of")         \
    X(ctx_invalid, "1 2 4", "", "nonzero", "shmem_ctx_int_atomic_inc: .*SHMEM_CTX_INVALID")  \
    X(pcntr_null, "1 2 4", "", "nonzero",                                                    \
      "PE [0-9]+: shmemx_pcntr_get_issued_write: the result pointer is NULL; pass")          \
    X(pcntr_ctx_invalid, "1 2 4", "", "nonzero",                                             \
      "PE [0-9]+: shmemx_pcntr_get_all: the context is SHMEM_CTX_INVALID")                   \
    X(global_exit, "1 2 4", "", "7", GLOBAL_EXIT_7)                                          \
    X(global_exit_all, "1 2 4", "", "7", GLOBAL_EXIT_7)                                      \
    X(free_nonheap, "1 2 4", "", "nonzero",                                                  \
      "shmem_free: .*was not returned by shmem_malloc")                                      \
    X(free_global, "1 2 4", "", "nonzero", "shmem_free: .*was not returned by shmem_malloc") \
    X(free_twice, "1 2 4", "", "nonzero", "shmem_free: .*already freed")                     \
    X(free_interior, "1 2 4", "", "nonzero",                                                 \
      "shmem_free: .*was not returned by shmem_malloc")                                      \
    X(realloc_nonheap, "1 2 4", "", "nonzero",                                               \
      "shmem_realloc: .*was not returned by shmem_malloc")                                   \
    /* contexts used after shmem_ctx_destroy / shmem_team_destroy */                         \
    X(ctx_destroyed, "1 2 4", DBG, "nonzero",                                                \
      "shmem_ctx_long_put: the context was destroyed")                                       \
    X(ctx_destroyed_nodebug, "1 2 4", "", "nonzero",                                         \
      "shmem_ctx_long_put: the context was destroyed")                                       \
    X(ctx_destroyed_quiet, "1 2 4", DBG, "nonzero",                                          \
      "shmem_ctx_quiet: the context was destroyed")                                          \
    X(ctx_destroy_twice, "1 2 4", "", "nonzero",                                             \
      "shmem_ctx_destroy: the context was already destroyed")                                \
    X(ctx_team_destroyed, "1 2 4", "", "nonzero",                                            \
      "shmem_ctx_int_atomic_inc: the context was destroyed")                                 \
    X(team_destroyed, "1 2 4", "", "nonzero", "shmem_team_n_pes: the team was destroyed")    \
    X(team_destroyed_coll, "1 2 4", "", "nonzero",                                           \
      "shmem_team_sync: the team was destroyed")                                             \
    X(typed_overflow, "1 2 4", "", "nonzero",                                                \
      "shmem_long_put: nelems [0-9]+ of 8-byte elements overflows")                          \
    /* arguments of collective routines that differ between PEs (SHMEM_DEBUG) */             \
    X(malloc_mismatch, "2 4", DBG, "nonzero",                                                \
      MISMATCH("shmem_malloc", "size " DIFFERS "16 on PE 0, (32|64)" ON_LAST))               \
    X(malloc_zero_mismatch, "2 4", DBG, "nonzero",                                           \
      MISMATCH("shmem_malloc", "size " DIFFERS "64 on PE 0, 0" ON_LAST))                     \
    X(free_null_alone, "2 4", DBG, "nonzero",                                                \
      "shmem_(free|barrier_all): PE [0-9]+ made another collective call than this one")      \
    X(calloc_mismatch, "2 4", DBG, "nonzero",                                                \
      MISMATCH("shmem_calloc", "count " DIFFERS "4 on PE 0, 3" ON_LAST))                     \
    X(align_mismatch, "2 4", DBG, "nonzero",                                                 \
      MISMATCH("shmem_align", "alignment " DIFFERS "64 on PE 0, 128" ON_LAST))               \
    X(realloc_mismatch, "2 4", DBG, "nonzero",                                               \
      MISMATCH("shmem_realloc", "size " DIFFERS "4096 on PE 0, 8192" ON_LAST))               \
    X(free_mismatch, "2 4", DBG, "nonzero",                                                  \
      MISMATCH("shmem_free", "ptr .* " DIFFERS "[0-9]+ on PE 0, [0-9]+" ON_LAST))            \
    X(bcast_root_mismatch, "2 4", DBG, "nonzero",                                            \
      MISMATCH("shmem_broadcastmem", "PE_root " DIFFERS "0 on PE 0, 1" ON_LAST))             \
    X(reduce_mismatch, "2 4", DBG, "nonzero",                                                \
      MISMATCH("shmem_long_sum_reduce", "nreduce " DIFFERS "4 on PE 0, 2" ON_LAST))          \
    X(fcollect_mismatch, "2 4", DBG, "nonzero",                                              \
      MISMATCH("shmem_int_fcollect",                                                         \
               "nelems differs across the team \\(2 on PE 0, 1" ON_LAST))                    \
    X(alltoalls_mismatch, "2 4", DBG, "nonzero",                                             \
      MISMATCH("shmem_int_alltoalls", "dst " DIFFERS "1 on PE 0, 2" ON_LAST))                \
    X(scan_mismatch, "2 4", DBG, "nonzero",                                                  \
      MISMATCH("shmem_int_sum_inscan", "nelems " DIFFERS "3 on PE 0, 0" ON_LAST))            \
    /* zero and huge sizes: not errors. Empty transfers are no-ops, huge allocations \
       return NULL with a warning naming SHMEM_SYMMETRIC_SIZE, the program ends normally */       \
    X(put_overflow, "1 2 4", DBG, "nonzero",                                                 \
      "shmem_putmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap")    \
    X(zero_and_huge, "1 2 4", "", "0",                                                       \
      "shmem_malloc: [0-9]+ bytes requested, symmetric heap "                                \
      "exhausted.*SHMEM_SYMMETRIC_SIZE")                                                     \
    X(zero_and_huge_debug, "1 2 4", DBG, "0",                                                \
      "shmem_malloc: [0-9]+ bytes requested, symmetric heap "                                \
      "exhausted.*SHMEM_SYMMETRIC_SIZE")                                                     \
    /* each family before shmem_init and after shmem_finalize */                             \
    X(before_init_put, "1 2", "", "nonzero",                                                 \
      "^shoal: shmem_long_put: called before shmem_init")                                    \
    X(before_init_p, "1 2", "", "nonzero", "^shoal: shmem_long_p: called before shmem_init") \
    X(before_init_get, "1 2", "", "nonzero",                                                 \
      "^shoal: shmem_long_get: called before shmem_init")                                    \
    X(before_init_ctx_put, "1 2", "", "nonzero",                                             \
      "^shoal: shmem_ctx_long_put: called before shmem_init")                                \
    X(before_init_amo, "1 2", "", "nonzero",                                                 \
      "^shoal: shmem_long_atomic_fetch_add: called before shmem_init")                       \
    X(before_init_reduce, "1 2", "", "nonzero",                                              \
      "^shoal: shmem_long_sum_reduce: called before shmem_init")                             \
    X(before_init_bcast, "1 2", "", "nonzero",                                               \
      "^shoal: shmem_long_broadcast: called before shmem_init")                              \
    X(before_init_malloc, "1 2", "", "nonzero",                                              \
      "^shoal: shmem_malloc: called before shmem_init")                                      \
    X(before_init_free, "1 2", "", "nonzero",                                                \
      "^shoal: shmem_free: called before shmem_init")                                        \
    X(after_finalize_put, "1 2", "", "nonzero",                                              \
      "^shoal: PE [0-9]+: shmem_long_put: called after shmem_finalize")                      \
    X(after_finalize_p, "1 2", "", "nonzero",                                                \
      "^shoal: PE [0-9]+: shmem_long_p: called after shmem_finalize")                        \
    X(after_finalize_get, "1 2", "", "nonzero",                                              \
      "^shoal: PE [0-9]+: shmem_long_get: called after shmem_finalize")                      \
    X(after_finalize_ctx_put, "1 2", "", "nonzero",                                          \
      "^shoal: PE [0-9]+: shmem_ctx_long_put: called after shmem_finalize")                  \
    X(after_finalize_amo, "1 2", "", "nonzero",                                              \
      "^shoal: PE [0-9]+: shmem_long_atomic_fetch_add: called after shmem_finalize")         \
    /* quiet on the default context is checked only under SHMEM_DEBUG */                     \
    X(after_finalize_quiet, "1 2", DBG, "nonzero",                                           \
      "^shoal: PE [0-9]+: shmem_quiet: called after shmem_finalize")                         \
    X(after_finalize_reduce, "1 2", "", "nonzero",                                           \
      "^shoal: PE [0-9]+: shmem_long_sum_reduce: called after shmem_finalize")               \
    X(after_finalize_bcast, "1 2", "", "nonzero",                                            \
      "^shoal: PE [0-9]+: shmem_long_broadcast: called after shmem_finalize")                \
    X(after_finalize_malloc, "1 2", "", "nonzero",                                           \
      "^shoal: PE [0-9]+: shmem_malloc: called after shmem_finalize")                        \
    X(after_finalize_free, "1 2", "", "nonzero",                                             \
      "^shoal: PE [0-9]+: shmem_free: called after shmem_finalize")                          \
    /* extents past the segment without SHMEM_DEBUG: wrapping lengths, strides of \
       either sign, collectives' strided destinations (one block at 1 PE: no error) */          \
    X(put_wrap, "1 2 4", "", "nonzero",                                                      \
      "shmem_putmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap")    \
    X(get_wrap, "1 2 4", "", "nonzero",                                                      \
      "shmem_getmem: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric heap")    \
    X(iput_past_end, "1 2 4", "", "nonzero",                                                 \
      "shmem_long_iput: 2 blocks of 8 bytes at stride 134217728 .* run past the end of the " \
      "symmetric heap")                                                                      \
    X(iput_negative, "1 2 4", "", "nonzero",                                                 \
      "shmem_long_iput: 2 blocks at stride -1048576 .* start before the symmetric heap")     \
    X(iget_past_end, "1 2 4", "", "nonzero",                                                 \
      "shmem_long_iget: 2 blocks of 8 bytes at stride 134217728 .* run past the end of the " \
      "symmetric heap")                                                                      \
    X(ibput_wrap, "1 2 4", "", "nonzero",                                                    \
      "shmem_long_ibput: 2 blocks of 16 bytes at stride [0-9]+ .* run past the end of the "  \
      "symmetric heap")                                                                      \
    X(alltoalls_past_end, "2 4", "", "nonzero",                                              \
      "shmem_long_alltoalls: [0-9]+ blocks of 8 bytes at stride 134217728 .* run past the "  \
      "end of the symmetric heap")                                                           \
    /* waits that could never end, locks cleared by a PE that does not hold them */          \
    X(wait_nonsym, "1 2 4", DBG, "nonzero",                                                  \
      "shmem_int_wait_until: ivar 0x[0-9a-f]+ is not symmetric")                             \
    X(test_nonsym, "1 2 4", DBG, "nonzero",                                                  \
      "shmem_int_test: ivar 0x[0-9a-f]+ is not symmetric")                                   \
    X(clear_unheld, "1 2 4", "", "nonzero",                                                  \
      "shmem_clear_lock: the lock at 0x[0-9a-f]+ is not held by this PE")                    \
    X(clear_other, "1 2 4", "", "nonzero",                                                   \
      "shmem_clear_lock: the lock at 0x[0-9a-f]+ is not held by this PE")                    \
    X(set_lock_twice, "1 2 4", "", "nonzero",                                                \
      "shmem_set_lock: this PE already holds the lock at 0x[0-9a-f]+; shmem_set_lock waits") \
    X(set_lock_twice_debug, "1 2 4", DBG, "nonzero",                                         \
      "shmem_set_lock: this PE already holds the lock at 0x[0-9a-f]+")                       \
    X(lock_garbage, "1 2 4", "", "nonzero",                                                  \
      "shmem_set_lock: the lock at 0x[0-9a-f]+ does not hold a lock's state \\(its queue "   \
      "names 0xabababab, not a PE\\); a lock must be 0 before its first use")                \
    X(test_any_huge, "1 2 4", "", "nonzero",                                                 \
      "shmem_int_test_any: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric "   \
      "heap")                                                                                \
    X(test_any_huge_debug, "1 2 4", DBG, "nonzero",                                          \
      "shmem_int_test_any: [0-9]+ bytes at 0x[0-9a-f]+ run past the end of the symmetric "   \
      "heap")                                                                                \
    X(signal_misaligned, "1 2 4", "", "nonzero",                                             \
      "shmem_putmem_signal: signal address 0x[0-9a-f]+ is not aligned to 8 bytes")           \
    /* re-initialisation: said so, not blamed on the launcher */                             \
    X(init_after_finalize, "1 2 4", "", "nonzero",                                           \
      "^shoal: PE [0-9]+: shmem_init: called after the last shmem_finalize; Shoal cannot "   \
      "be initialized again")
