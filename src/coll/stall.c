/* Collectives that can never complete because a PE has already finalized.
 *
 * A PE that made one collective call more than the others waits for them forever:
 * its partners matched their shmem_finalize's barrier with its extra one and left.
 * Each PE therefore publishes, through the bootstrap (oshrun, or the PMIx server), how
 * many synchronisations of the world team it made when it makes its last (the
 * barrier of its final shmem_finalize), and a PE whose collective wait has gone on
 * for a while asks for the smallest such count. The world team's barriers are
 * numbered alike on every PE (team->barrier_epoch), so:
 *   waiting in the world team's barrier number v, a PE that finalized after fewer
 *   than v synchronisations will never arrive; one that finalized after v or more
 *   simply left this same barrier first, which is fine;
 *   waiting in any other collective (a team's, or an active set's in its pSync),
 *   after this PE's world synchronisation number e, a PE that finalized after e or
 *   fewer will never meet this PE's own shmem_finalize.
 * Either way the job ends with a message that says so. Only the slow polls look,
 * and not before CHECK_NS, so waits that end quickly never ask. Where the network
 * transport runs the collectives (MPI), its barriers are polled from here too
 * (coll_net_barrier); its other collectives wait inside MPI, unwatched. */
#include <sched.h>
#include <stdio.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "coll/coll_common.h"
#include "base/routine.h"
#include "env/log.h"

/* A wait looks first CHECK_NS after it stopped spinning, then at doubling intervals
 * up to CHECK_MAX_NS: a mismatch ends the job within about a second, and a PE that
 * legitimately waits for minutes asks the bootstrap (a round trip to oshrun, or PMIx
 * lookups) once every two seconds. */
#define CHECK_NS 100000000L      /* 100 ms */
#define CHECK_MAX_NS 2000000000L /* 2 s */

static const char *ordinal(uint64_t n)
{
    if (n % 100 >= 11 && n % 100 <= 13)
        return "th";
    return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static _Noreturn void left_early(int pe, uint64_t left, int barrier, uint64_t mine)
{
    int inside;
    const char *routine = shoal_routine_now(0, &inside);
    const char *remedy =
            "the PEs made different numbers of collective calls: every PE must make the "
            "same collective calls (barriers, shmem_malloc/shmem_free, collectives and team "
            "creation on SHMEM_TEAM_WORLD; shmem_init and shmem_finalize count too) in the "
            "same order";
    if (barrier)
        shoal_fatal(
                routine ? routine : "a barrier",
                "PE %d has already finalized after %llu synchronisations of "
                "SHMEM_TEAM_WORLD (its shmem_init's and shmem_finalize's included), while "
                "this PE waits in its %llu%s; %s",
                pe, (unsigned long long)left, (unsigned long long)mine, ordinal(mine),
                remedy);
    shoal_fatal(routine ? routine : "a collective",
                "PE %d has already finalized, at its %llu%s synchronisation of "
                "SHMEM_TEAM_WORLD, which this PE made as its %llu%s and passed before this "
                "collective, so this PE's own shmem_finalize can never match it; %s",
                pe, (unsigned long long)left, ordinal(left), (unsigned long long)mine,
                ordinal(mine), remedy);
}

static __thread struct timespec next_check; /* of the calling thread's current wait */
static __thread long check_ns;

static void after(struct timespec *t, long ns)
{
    t->tv_nsec += ns;
    t->tv_sec += t->tv_nsec / 1000000000L;
    t->tv_nsec %= 1000000000L;
}

/* barrier: the wait is in the world team's barrier number v; otherwise in a
 * collective after this PE's latest world synchronisation. */
static void check_left(int barrier, uint64_t v)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec < next_check.tv_sec ||
        (now.tv_sec == next_check.tv_sec && now.tv_nsec < next_check.tv_nsec))
        return;
    check_ns = check_ns * 2 < CHECK_MAX_NS ? check_ns * 2 : CHECK_MAX_NS;
    next_check = now;
    after(&next_check, check_ns);
    SHOAL_LOG(COLL, DEBUG,
              "%s still waiting (word %llu); asking the bootstrap whether a PE has left, "
              "next look in %.1f s",
              barrier ? "a barrier is" : "a collective is", (unsigned long long)v,
              (double)check_ns * 1e-9);
    uint64_t left;
    int pe = shoal.boot->first_left(&left);
    if (pe < 0 || pe == shoal.my_pe)
        return;
    uint64_t mine =
            barrier ? v : __atomic_load_n(&shoal_team_world.barrier_epoch, __ATOMIC_RELAXED);
    if (barrier ? left < mine : left <= mine)
        left_early(pe, left, barrier, mine);
}

/* One slow poll's pause (pause: backs off, counting the poll), and now and then a
 * look. */
static void wait_slow(struct shoal_backoff *b, int barrier, uint64_t v,
                      void (*pause)(struct shoal_backoff *b))
{
    if (b->polls == shoal_wait.spin_polls) {
        /* This wait's first slow poll: the first look is CHECK_NS from now. */
        check_ns = CHECK_NS;
        clock_gettime(CLOCK_MONOTONIC, &next_check);
        after(&next_check, CHECK_NS);
    }
    pause(b);
    if ((b->polls & 15) == 0)
        check_left(barrier, v);
}

static void backoff(struct shoal_backoff *b)
{
    shoal_backoff_spin(b, shoal_wait.spin_polls, shoal_net_nap());
}

void coll_wait_slow(struct shoal_backoff *b, const void *word, uint64_t v)
{
    /* The world team's barrier words: the rest of its sync words are never waited on
     * (coll_common.h). */
    const uint64_t *sync = shoal_team_world.res->sync;
    int barrier =
            (const uint64_t *)word >= sync && (const uint64_t *)word < sync + COLL_READY_WORD;
    wait_slow(b, barrier, v, backoff);
}

/* MPI moves its messages only inside its calls: a PE asleep would hold up the barrier
 * of every peer it forwards for. It polls on as MPI's own blocking waits do, giving
 * the core away now and then. */
static void poll_on(struct shoal_backoff *b)
{
    if (++b->polls % 1024 == 0)
        sched_yield();
    else
        shoal_cpu_relax();
}

/* A barrier the network transport runs (MPI's): spins, then the slow polls above,
 * which look now and then as coll_wait_slow does. */
struct net_wait {
    struct shoal_coll_wait w; /* first: poll gets its address */
    struct shoal_backoff b;
    uint64_t epoch;
};

static void net_poll(struct shoal_coll_wait *w)
{
    struct net_wait *nw = (struct net_wait *)w;
    if (nw->b.polls < shoal_wait.spin_polls)
        shoal_backoff_spin(&nw->b, shoal_wait.spin_polls, NULL); /* never sleeps here */
    else
        wait_slow(&nw->b, nw->epoch != 0, nw->epoch, poll_on);
}

int coll_net_barrier(const struct shoal_members *m, uint64_t epoch)
{
    struct net_wait nw = { { net_poll }, { 0 }, epoch };
    return coll_net()->barrier(m, &nw.w);
}
