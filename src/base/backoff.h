/* Polling with growing politeness: spin, then yield the core, then sleep briefly, so
 * that more PEs than cores still make progress. No network here: core/progress.h
 * adds driving the network to each poll. */
#ifndef SHOAL_BACKOFF_H
#define SHOAL_BACKOFF_H

#include <sched.h>
#include <stdint.h>

#include "env/compiler.h"

struct shoal_backoff {
    unsigned polls;
    /* A wait for one of the library's words on this PE (collectives), or NULL: the word
     * and what it waits for (until 0: nonzero; else at least until). Its sleeps then
     * end as soon as a writer on this node stores to the word (shoal_backoff_wake). */
    const uint64_t *word;
    uint64_t until;
    /* The word's writers share this node: across nodes too the wait sleeps on it
     * rather than on the network, where shoal_wait.net_served. */
    int local;
};
/* This PE's count of its threads asleep on such a word: a symmetric word (the world
 * team's, core/team.h) that a writer on this node reads at the target after its
 * store, and wakes the target if nonzero. NULL before the teams exist. */
extern uint64_t *shoal_sleepers;
/* Wakes the threads asleep on word (this process's mapping of a same-node PE's word,
 * just stored to) if that PE's count of sleepers, at peer_sleepers, is nonzero. A
 * writer does not fence between its store and this read: a wake-up lost to the race
 * ends at the sleep's timeout, as every sleep did without wake-ups. */
void shoal_backoff_wake_slow(const uint64_t *word);
static inline void shoal_backoff_wake(const uint64_t *word, const uint64_t *peer_sleepers)
{
    if (SHOAL_UNLIKELY(__atomic_load_n(peer_sleepers, __ATOMIC_RELAXED)))
        shoal_backoff_wake_slow(word);
}

/* The waiting policy of this PE: the facts it comes from, which start-up finds
 * (core/topology.c, the network transport), and the polls a wait spins before it
 * gives the core away (shoal_backoff_setup). */
struct shoal_wait_policy {
    /* No other PE of this host can run on this PE's CPUs and the host was not busy
     * at start-up, or only the latter failed (topology.c). */
    int own_core;
    int host_busy;
    /* The network moves data by itself, in a thread of its own on this PE's CPUs
     * (libfabric's sockets): a waiting PE must leave it the core. */
    int net_self_progress;
    /* A thread of the network transport serves the peers' operations while this
     * PE sleeps (libfabric's progress thread): a wait may sleep on a word then. */
    int net_served;
    unsigned spin_polls;
};
extern struct shoal_wait_policy shoal_wait;
/* How a wait sleeps up to us microseconds once it sleeps, woken early by traffic for
 * this PE: the network transport's nap, which the caller knows and this layer does
 * not (transport.h: shoal_net_nap); NULL: a plain sleep. */
typedef void shoal_nap_fn(long us);
/* How long a sleep of us may be where something other than the timer ends it (a
 * same-node store on the word, the network's wait object): 64 times longer, up to
 * 4 ms. Where PEs outnumber cores, shorter sleeps only spend the CPU that the PEs
 * being waited for need. */
static inline long shoal_backoff_woken_us(long us)
{
    return us > 4000 / 64 ? 4000 : us * 64;
}
void shoal_backoff_slow(struct shoal_backoff *b, unsigned spins, shoal_nap_fn *nap);
/* Sets shoal_wait.spin_polls, the spins of every wait, from whether this PE owns a
 * core and SHOAL_SPIN_COUNT (backoff.c); once the topology is known. */
void shoal_backoff_setup(void);
/* A PE that oshrun pinned beside others of its job (crowded, spread over the
 * cores) widens its CPU mask to cpus, all of its job's CPUs on this host, the
 * first time a yield shows a task outside the job holding its CPU (backoff.c);
 * set once at start-up (topology.c). */
void shoal_backoff_unpin_to(const cpu_set_t *cpus);

static inline void shoal_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* One poll: a pause instruction for the first spins polls, then the slow path. */
static inline void shoal_backoff_spin(struct shoal_backoff *b, unsigned spins,
                                      shoal_nap_fn *nap)
{
    if (SHOAL_LIKELY(b->polls++ < spins)) {
        shoal_cpu_relax();
        return;
    }
    shoal_backoff_slow(b, spins, nap);
}

#endif
