/* Bootstrap from a PMIx launcher (Open MPI's mpirun, prterun, srun --mpi=pmix).
 * The launcher's PMIx server already knows the job: rank, size and node layout
 * come from it, and its fence is our barrier and (with data collection) our
 * allgather. PMIx_Init/PMIx_Finalize are reference counted inside libpmix, so a
 * hybrid MPI+SHMEM program shares one connection with MPI and either library may
 * finalize first. */
#include "bootstrap.h"
#include "env.h"
#include "log.h"
#include "pmix_value.h"

#include <pmix.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static int my_size;
static bool connected;
/* Numbers the allgathers: each publishes under a key of its own, so a later
 * call never reads an earlier call's data from a slower peer. */
static unsigned allgather_seq;

static void report(const char *call, pmix_status_t rc, const char *remedy)
{
    fprintf(shoal_error_stream(), "shoal: PE %d: %s failed (%s); %s\n", (int)me.rank, call,
            PMIx_Error_string(rc), remedy);
}

/* Reads an integer-valued key; PMIx servers differ in the width they store. */
static int get_count(const pmix_proc_t *who, const char *key, long *out)
{
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(who, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: the PMIx launcher did not provide %s (%s); launch with "
                "a PMIx launcher that describes the job (mpirun, prterun, srun --mpi=pmix)\n",
                (int)me.rank, key, PMIx_Error_string(rc));
        return -1;
    }
    int ok = !shoal_pmix_count(v, out);
    if (!ok)
        fprintf(shoal_error_stream(),
                "shoal: PE %d: the PMIx launcher gave %s as %s, not a number; this "
                "launcher is not supported: use mpirun, prterun or oshrun\n",
                (int)me.rank, key, PMIx_Data_type_string(v->type));
    PMIX_VALUE_RELEASE(v);
    return ok ? 0 : -1;
}

/* The launcher (the PMIx server: mpirun, prted, slurmstepd) went away, killed or
 * crashed: nobody will end this PE, and its peers are going too. */
static void on_lost_launcher(size_t id, pmix_status_t status, const pmix_proc_t *source,
                             pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                             size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                             void *cbdata)
{
    (void)id, (void)source, (void)info, (void)ninfo, (void)results, (void)nresults;
    (void)cbfunc, (void)cbdata;
    fprintf(shoal_error_stream(),
            "shoal: PE %d: lost the connection to the PMIx launcher (%s): mpirun or "
            "its daemon has died; ending this PE\n",
            (int)me.rank, PMIx_Error_string(status));
    _exit(1);
}

/* Parent death the event might not report (a launcher killed before the server
 * noticed): the parent process changes, checked once a second. */
static void *watch_parent(void *arg)
{
    pid_t parent = (pid_t)(intptr_t)arg;
    while (getppid() == parent)
        sleep(1);
    fprintf(shoal_error_stream(),
            "shoal: PE %d: the launcher that started this PE (pid %d) has exited; "
            "ending this PE\n",
            (int)me.rank, (int)parent);
    _exit(1);
}

static void watch_launcher(void)
{
    pmix_status_t codes[] = { PMIX_ERR_LOST_CONNECTION, PMIX_ERR_UNREACH };
    PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], NULL, 0,
                                on_lost_launcher, NULL, NULL);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Small: the thread only sleeps and calls getppid. */
    pthread_attr_setstacksize(&attr, 64 * 1024);
    static int started;
    if (!started && !pthread_create(&t, &attr, watch_parent, (void *)(intptr_t)getppid()))
        started = 1;
    pthread_attr_destroy(&attr);
}

static int boot_pmix_init(struct shoal_boot_info *info)
{
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(shoal_error_stream(),
                "shoal: PMIx_Init failed (%s): PMIX_RANK is set but the launcher's PMIx "
                "server cannot be reached; start the program directly under mpirun, prterun "
                "or "
                "srun --mpi=pmix (or unset the PMIX_* variables to run it alone)\n",
                PMIx_Error_string(rc));
        return -1;
    }
    connected = true;
    SHOAL_LOG(BOOT, DEBUG, "PMIx: namespace %s, rank %u", me.nspace, (unsigned)me.rank);
    watch_launcher();
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    long size;
    if (get_count(&job, PMIX_JOB_SIZE, &size))
        return -1;
    /* The node layout comes from host names (core/topology.c), not from PMIx. */
    const char *why = shoal_pmix_job_error(size, me.rank);
    if (why) {
        fprintf(shoal_error_stream(),
                "shoal: PE %u: the PMIx launcher describes an impossible job (size "
                "%ld: %s); launch with mpirun, prterun or oshrun\n",
                (unsigned)me.rank, size, why);
        return -1;
    }
    my_size = (int)size;
    *info = (struct shoal_boot_info){ .rank = (int)me.rank, .size = my_size };
    return 0;
}

static int boot_pmix_barrier(void)
{
    pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        report("PMIx_Fence", rc,
               "another PE of the job has probably failed; see its message");
        return -1;
    }
    return 0;
}

/* Copies rank's blob under key into dst; -1 (after saying why) if it is missing or
 * not len bytes. */
static int fetch_blob(pmix_rank_t rank, const char *key, void *dst, size_t len)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&peer, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        report("PMIx_Get", rc, "another PE of the job has probably failed; see its message");
        return -1;
    }
    int ok = v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len;
    if (ok)
        memcpy(dst, v->data.bo.bytes, len);
    else
        fprintf(shoal_error_stream(),
                "shoal: PE %d: PE %u contributed a different amount of setup data; every "
                "PE must run the same program with the same Shoal library\n",
                (int)me.rank, (unsigned)rank);
    PMIX_VALUE_RELEASE(v);
    return ok ? 0 : -1;
}

/* This host's PEs from PMIX_LOCAL_PEERS, a comma list of ranks. */
static int boot_pmix_node(int *leader, int *local_rank, int *local_size)
{
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&job, PMIX_LOCAL_PEERS, NULL, 0, &v) != PMIX_SUCCESS)
        return -1;
    int ok = v->type == PMIX_STRING && v->data.string;
    long low = -1;
    int below = 0, count = 0, found = 0;
    for (const char *p = ok ? v->data.string : ""; ok && *p;) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || r >= my_size) {
            ok = 0;
            break;
        }
        if (low < 0 || r < low)
            low = r;
        below += r < (long)me.rank;
        found |= r == (long)me.rank;
        count++;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            ok = 0;
    }
    SHOAL_LOG(BOOT, DEBUG, "PMIX_LOCAL_PEERS=%s",
              v->type == PMIX_STRING ? v->data.string : "?");
    PMIX_VALUE_RELEASE(v);
    if (!ok || !found)
        return -1;
    *leader = (int)low, *local_rank = below, *local_size = count;
    return 0;
}

static int boot_pmix_put(const char *key, const void *val, size_t len)
{
    pmix_value_t blob = { .type = PMIX_BYTE_OBJECT };
    blob.data.bo.bytes = (char *)val;
    blob.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &blob);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        report("PMIx_Put", rc, "the launcher's PMIx server refused this PE's setup data");
        return -1;
    }
    return 0;
}

static int boot_pmix_collect(void)
{
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&collect);
    PMIx_Info_load(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    if (rc != PMIX_SUCCESS) {
        report("PMIx_Fence", rc,
               "another PE of the job has probably failed; see its message");
        return -1;
    }
    return 0;
}

static int boot_pmix_get(int rank, const char *key, void **out, size_t *len)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&peer, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) {
        report("PMIx_Get", rc, "another PE of the job has probably failed; see its message");
        return -1;
    }
    int ok = v->type == PMIX_BYTE_OBJECT;
    *len = ok ? v->data.bo.size : 0;
    *out = malloc(*len ? *len : 1);
    if (ok && *out)
        memcpy(*out, v->data.bo.bytes, *len);
    PMIX_VALUE_RELEASE(v);
    if (!ok || !*out) {
        fprintf(shoal_error_stream(), "shoal: PE %d: PE %d's setup data under %s is %s\n",
                (int)me.rank, rank, key,
                ok ? "too large for this PE's memory" : "not a byte object");
        free(*out);
        *out = NULL;
        return -1;
    }
    return 0;
}

static int boot_pmix_allgather(const void *in, void *out, size_t len)
{
    char key[PMIX_MAX_KEYLEN + 1];
    snprintf(key, sizeof key, "shoal.ag.%u", allgather_seq++);
    /* PMIx_Put copies the blob, so in may overlap out. */
    if (boot_pmix_put(key, in, len) || boot_pmix_collect())
        return -1;
    for (int r = 0; r < my_size; r++)
        if (fetch_blob((pmix_rank_t)r, key, (char *)out + (size_t)r * len, len))
            return -1;
    return 0;
}

/* A PE's last world synchronisation is a key of its own that the others read
 * without waiting (PMIX_IMMEDIATE): a PE that has not published it yet is simply
 * not found. A published value never changes, so each is fetched once. */
#define LAST_SYNC_KEY "shoal.last_sync"
/* Peers asked per query: a query costs one round trip to the local PMIx server
 * per peer, and the caller asks only every so often. */
#define LEFT_PER_QUERY 16

static pthread_mutex_t left_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *left_syncs; /* left_syncs[pe]: its count + 1, or 0: not published */
static int left_next;        /* the next peer to ask */
static int left_min_pe = -1;

static void boot_pmix_publish_last_sync(uint64_t syncs)
{
    pmix_value_t v = { .type = PMIX_UINT64 };
    v.data.uint64 = syncs;
    if (PMIx_Put(PMIX_GLOBAL, LAST_SYNC_KEY, &v) == PMIX_SUCCESS)
        PMIx_Commit();
}

static int boot_pmix_first_left(uint64_t *syncs)
{
    if (!connected || pthread_mutex_trylock(&left_lock))
        return -1;
    if (!left_syncs)
        left_syncs = calloc((size_t)my_size, sizeof *left_syncs);
    pmix_info_t now;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&now);
    PMIx_Info_load(&now, PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    for (int i = 0; left_syncs && i < LEFT_PER_QUERY && i < my_size; i++) {
        int pe = left_next;
        left_next = (left_next + 1) % my_size;
        if (pe == (int)me.rank || left_syncs[pe])
            continue;
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)pe);
        pmix_value_t *v = NULL;
        if (PMIx_Get(&peer, LAST_SYNC_KEY, &now, 1, &v) != PMIX_SUCCESS)
            continue;
        if (v->type == PMIX_UINT64) {
            left_syncs[pe] = v->data.uint64 + 1;
            if (left_min_pe < 0 || left_syncs[pe] < left_syncs[left_min_pe])
                left_min_pe = pe;
        }
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&now);
    int pe = left_min_pe;
    if (pe >= 0)
        *syncs = left_syncs[pe] - 1;
    pthread_mutex_unlock(&left_lock);
    return pe;
}

static void boot_pmix_finalize(void)
{
    /* Tells the launcher this PE's exit is expected; with MPI still up this only
     * drops our reference. */
    PMIx_Finalize(NULL, 0);
    connected = false;
    pthread_mutex_lock(&left_lock);
    free(left_syncs);
    left_syncs = NULL;
    left_min_pe = -1;
    pthread_mutex_unlock(&left_lock);
}

/* Open MPI 4's mpirun (ORTE) can deadlock in its PMIx server's teardown, with every
 * PE gone, when a PMIx_Abort arrives while the other PEs wait in a fence. It ends
 * the job with the status of any PE that exits non-zero unless told not to, so
 * there such an exit needs no abort. */
static bool launcher_ends_on_failure(int status)
{
    const char *ends = getenv("OMPI_MCA_orte_abort_on_non_zero_status");
    return status != 0 && getenv("OMPI_MCA_orte_hnp_uri") &&
            (!ends || shoal_parse_bool(ends));
}

static __attribute__((noreturn)) void boot_pmix_abort(int status, const char *msg)
{
    /* PMIx gets no message: Open MPI 4's mpirun would not print it. */
    shoal_boot_abort_notice(shoal_error_stream(), (int)me.rank, status, msg);
    if (connected && !launcher_ends_on_failure(status))
        PMIx_Abort(status, NULL, NULL, 0);
    _exit(status);
}

const struct shoal_boot_ops shoal_boot_pmix = {
    .name = "pmix",
    .init = boot_pmix_init,
    .barrier = boot_pmix_barrier,
    .allgather = boot_pmix_allgather,
    .node = boot_pmix_node,
    .put = boot_pmix_put,
    .collect = boot_pmix_collect,
    .get = boot_pmix_get,
    .finalize = boot_pmix_finalize,
    .publish_last_sync = boot_pmix_publish_last_sync,
    .first_left = boot_pmix_first_left,
    .abort = boot_pmix_abort,
};
