/* Which public Shoal routine a thread is in, found from its stack when something goes
 * wrong (base/routine.c): the blocked-routine report, a collective that can never
 * complete, a network failure. Nothing on any fast path records it. */
#ifndef SHOAL_ROUTINE_H
#define SHOAL_ROUTINE_H

/* The shmem_* routine the program called that the calling thread is inside (its
 * outermost libshoal frame), skipping the caller's own skip innermost frames (a
 * signal handler's, which sit above the interrupted ones); NULL when none can be
 * found. *inside says whether the
 * thread is inside libshoal at all (it is, unless called from a signal handler that
 * interrupted the program). Not async-signal-safe (dladdr), which its callers accept:
 * the job is being diagnosed or ended. */
const char *shoal_routine_now(int skip, int *inside);

/* What shmem_init is doing now, for the blocked-PE report (base/signals.c): "shoal:
 * PE n: blocked in shmem_init: PHASE". Each layer names its own steps; phase is a
 * static string, NULL once shmem_init is done. The getter is async-signal-safe. */
void shoal_init_phase(const char *phase);
const char *shoal_init_phase_now(void);

/* The function that the call instruction ending just before return address r
 * called, through the PLT slot it went by where it went through one; NULL when the
 * bytes before r are not a call. One decoder per instruction set, each compiled
 * everywhere (tests/unit/test_routine.c feeds them both). */
const void *shoal_call_target_x86_64(const unsigned char *r);
const void *shoal_call_target_aarch64(const unsigned char *r);

#endif
