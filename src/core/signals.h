/* Fatal signals end a PE with Shoal's message and the signal itself (core/signals.c). */
#ifndef SHOAL_SIGNALS_H
#define SHOAL_SIGNALS_H

/* Takes back fatal-signal handlers that are still the default or that a provider
 * library installed; leaves the program's own handlers alone. */
void shoal_signals_reclaim(void);

#endif
