/* Fatal signals end a PE with Shoal's message and the signal itself (base/signals.c). */
#ifndef SHOAL_SIGNALS_H
#define SHOAL_SIGNALS_H

#include <signal.h>

/* Takes back fatal-signal handlers that are still the default or that a provider
 * library installed; leaves the program's own handlers alone. */
void shoal_signals_reclaim(void);

/* oshrun asks every PE which routine it is blocked in with this signal, whose default
 * action (ignore) is harmless to programs that are not Shoal's (tools/oshrun). */
#define SHOAL_REPORT_SIGNAL SIGURG
/* Installs the report handler, unless the program handles SIGURG itself. Called
 * first thing in shmem_init (fn: "shmem_init" or "shmem_init_thread"), so that a PE
 * still starting up answers too, naming the phase it is in. */
void shoal_signals_report_on(const char *fn);

#endif
