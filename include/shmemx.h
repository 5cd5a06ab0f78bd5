/* shmemx.h: Shoal's extensions to OpenSHMEM, the ones the HPE Cray OpenSHMEMX papers
 * describe (docs/extensions.md explains each). Routines carry the shmemx_ prefix, as
 * the specification requires of non-standard interfaces; the session options keep
 * the names that code written for Cray OpenSHMEMX uses. */
#ifndef SHMEMX_H
#define SHMEMX_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* ---- Local completion ------------------------------------------------------------
 * Returns once the source buffers of every put_nbi (and put_signal_nbi) issued so far
 * on the context may be reused; unlike quiet it does not wait for delivery. */
void shmemx_local_complete(void);
void shmemx_ctx_local_complete(shmem_ctx_t ctx);

/* ---- Sessions --------------------------------------------------------------------
 * Between start and stop, the context's operations of the kinds named may be
 * bundled (coalesced) by the transport. Options are hints: a transport may honour
 * fewer of them. */
#define SHMEM_SESSION_BUNDLE      (1L << 0)  /* coalesce operations into fewer messages */
#define SHMEM_SESSION_OP_PUT      (1L << 1)  /* the session carries puts */
#define SHMEM_SESSION_OP_PWS      (1L << 2)  /* ... puts with signal */
#define SHMEM_SESSION_OP_AMO      (1L << 3)  /* ... non-fetching AMOs */
#define SHMEM_SESSION_UNRELIABLE  (1L << 4)  /* with OP_AMO: AMOs may be sent once, unacknowledged */
void shmemx_ctx_session_start(shmem_ctx_t ctx, long options);
void shmemx_ctx_session_stop(shmem_ctx_t ctx);

/* ---- Signals ---------------------------------------------------------------------
 * Sets a remote signal word, atomically with respect to other signal operations on
 * it (the 1.6 shmem_signal_set, under the name Cray OpenSHMEMX uses). */
void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe);
void shmemx_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);

/* ---- Triggered (deferred) put-with-signal ----------------------------------------
 * A trigger is a counter this PE increments. A put-with-signal posted against it
 * (source, destination and signal fixed now) is issued once the trigger reaches
 * the threshold: by the NIC where the provider offers triggered operations
 * (FI_TRIGGER), otherwise by the library inside shmemx_trigger_increment. The
 * source must stay unchanged until then. quiet on the context completes the ones
 * that fired; calling it while one still waits for its trigger is an error. */
typedef struct shoal_trigger *shmemx_trigger_t;
int shmemx_trigger_create(shmemx_trigger_t *trigger);
void shmemx_trigger_increment(shmemx_trigger_t trigger, uint64_t n);
uint64_t shmemx_trigger_read(shmemx_trigger_t trigger);
void shmemx_trigger_destroy(shmemx_trigger_t trigger);
void shmemx_putmem_signal_triggered(void *dest, const void *source, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                    shmemx_trigger_t trigger, uint64_t threshold);
void shmemx_ctx_putmem_signal_triggered(shmem_ctx_t ctx, void *dest, const void *source,
                                        size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe, shmemx_trigger_t trigger,
                                        uint64_t threshold);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif
