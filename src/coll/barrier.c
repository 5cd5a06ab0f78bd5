/* Team barriers, over the team's symmetric sync words (zeroed when the team is made).
 *
 * Flat: a dissemination barrier. In round r each member bumps word r of member
 * (me + 2^r) mod n to the barrier's epoch and waits for its own word r to reach it:
 * ceil(log2 n) rounds of one message each.
 * Node-aware (SHOAL_COLL_NODE_AWARE, for a team over several nodes with more than
 * one member on some node): the members of each node run the dissemination barrier
 * among themselves through shared memory (words LOCAL_WORD + r), the node leaders
 * (each node's lowest member) run it over the network (words r), and each leader
 * releases its node's members (word DOWN_WORD). One PE per node then uses the
 * network, and each network round carries one message per node.
 *
 * Every word has one writer for the team's life (the shape of a team never
 * changes), so shoal_word_signal may store to it when the writer shares the node and
 * add to it over the network otherwise; each barrier bumps it once, so its value is
 * the count of barriers: it only grows, is never reset, and back-to-back barriers
 * cannot confuse rounds. */
#include "coll/coll_common.h"
#include "env/log.h"

#define LOCAL_WORD 20  /* words 20..25: rounds among one node's members */
#define LOCAL_ROUNDS 6 /* so up to 64 members per node */
#define DOWN_WORD 26   /* release from the node leader */
_Static_assert(COLL_KMAX <= LOCAL_WORD && DOWN_WORD < COLL_READY_WORD,
               "the node-aware barrier's words overlap others");
_Static_assert(COLL_LOCAL_MAX <= 1 << LOCAL_ROUNDS, "too few rounds for a node's members");

/* Dissemination over n participants, this one being me; participant i is member
 * idx[i] of the team (idx NULL: member i). */
static void dissemination(const struct shoal_team *t, const int *idx, int n, int me,
                          uint64_t *words, uint64_t epoch, int local)
{
    for (int r = 0, dist = 1; dist < n; r++, dist <<= 1) {
        int to = (me + dist) % n;
        int peer = shoal_team_pe(t, idx ? idx[to] : to);
        shoal_word_signal(peer, NULL, NULL, 0, &words[r], epoch);
        coll_wait_ge_from(&words[r], epoch, local);
    }
}

void shoal_team_barrier(struct shoal_team *team)
{
    uint64_t epoch = ++team->barrier_epoch;
    SHOAL_LOG(COLL, TRACE, "barrier %llu on the team of %d in slot %d",
              (unsigned long long)epoch, team->size, team->slot);
    uint64_t *words = team->res->sync;
    /* The collectives' puts before it (default context) are complete when it ends. */
    SHOAL_LOG(COLL, TRACE, "barrier: the default context's operations complete first");
    shoal_tp_quiet(SHMEM_CTX_DEFAULT);
    if (coll_net() &&
        coll_net_barrier(&(struct shoal_members){ team->start, team->stride, team->size,
                                                  team->pes },
                         team == &shoal_team_world ? epoch : 0) == 0)
        return;
    if (!shoal.multi_node || team->size < 3) {
        dissemination(team, NULL, team->size, team->my_pe, words, epoch, 0);
        return;
    }
    const struct coll_shape *s = coll_shape(team);
    if (!s->node_aware) {
        dissemination(team, NULL, team->size, team->my_pe, words, epoch, 0);
        return;
    }
    dissemination(team, s->local, s->nlocal, s->lrank, &words[LOCAL_WORD], epoch, 1);
    if (s->lrank) {
        coll_wait_ge_from(&words[DOWN_WORD], epoch, 1);
        return;
    }
    dissemination(team, s->lead, s->nlead, s->lead_rank, words, epoch, 0);
    for (int i = 1; i < s->nlocal; i++)
        shoal_word_signal(shoal_team_pe(team, s->local[i]), NULL, NULL, 0, &words[DOWN_WORD],
                          epoch);
}

void shoal_barrier_world(void)
{
    shoal_team_barrier(&shoal_team_world);
}

/* SHMEM_DEBUG: the PEs compare their calls first (coll_debug_agree), so that a PE
 * in another collective routine is named rather than waited for. */
static void agree_call(const char *fn)
{
    struct coll c;
    if (SHOAL_UNLIKELY(shoal.cfg.debug) && coll_team_begin(fn, SHMEM_TEAM_WORLD, &c) == 0 &&
        c.n > 1)
        coll_debug_agree(fn, &c, NULL, 0);
}

void shmem_barrier_all(void)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    agree_call(__func__);
    shoal_barrier_world(); /* completes the default context's operations */
}
SHOAL_PROFILED(shmem_barrier_all)

void shmem_sync_all(void)
{
    SHOAL_LOG_SCOPE(__func__);
    shoal_require_init(__func__);
    agree_call(__func__);
    shoal_barrier_world();
}
SHOAL_PROFILED(shmem_sync_all)
