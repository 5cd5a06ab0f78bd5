/* Bootstrap from a PMI-1 or PMI-2 launcher: MPICH's mpiexec.hydra, Slurm's
 * srun --mpi=pmi2, and others that speak the "simple" PMI wire protocols. The
 * launcher hands each process a connected socket in PMI_FD (with PMI_RANK and
 * PMI_SIZE); both protocols are text over that socket, so no launcher library is
 * linked or loaded.
 *
 * PMI-1: one line per message, "cmd=NAME key=value ...\n".
 * PMI-2: after a PMI-1 style "init" line, messages of "cmd=NAME;key=value;..."
 *        preceded by their length as 6 decimal characters.
 *
 * The key-value space is shared by the whole job and a value is text of bounded
 * length, so an allgather puts each PE's bytes as hex in chunks under keys of its
 * own, fences, and reads every peer's chunks back. */
#include "bootstrap.h"
#include "env.h"
#include "log.h"
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Longest message either side sends: the servers' own limits are 1024 bytes of
 * value (PMI-1 vallen_max, PMI2_MAX_VALLEN) plus the key and command. */
#define MSG_MAX 2048
/* Bytes of a blob per key: 512 hex characters, within every server's value limit. */
#define CHUNK_MAX 256

static int pmi_fd = -1;
static int pmi_version; /* 1 or 2 */
static int my_rank = -1, my_size;
static size_t chunk = CHUNK_MAX;
static char kvsname[256]; /* PMI-1: the job's key-value space */
static char jobid[256];   /* PMI-2: PMI_JOBID, when the launcher sets it */
static unsigned ag_seq;   /* numbers the allgathers: keys of one never meet another's */
static int finalized;
static int under_slurm;
static long reply_limit_ms; /* SHOAL_BOOT_TIMEOUT; 0: no limit */
static int greeting;        /* the version is not agreed yet */
/* Set while in a fence: its replies wait for every PE, which may take any time. */
static int waiting_for_peers;
/* One request and its reply at a time. */
static pthread_mutex_t pmi_lock = PTHREAD_MUTEX_INITIALIZER;

/* Bytes read past the end of the last reply (the servers answer only what was
 * asked, but a read may return more than one message's bytes). Twice a reply's
 * limit: a reply that fits its buffer always fits here with what came before it. */
static char rbuf[MSG_MAX * 2];
static size_t rlen;

static const char *proto(void)
{
    return greeting ? "PMI" : pmi_version == 2 ? "PMI-2" : "PMI-1";
}

static _Noreturn void lost_contact(const char *doing, int err)
{
    fprintf(shoal_error_stream(),
            "shoal: PE %d: lost contact with the %s launcher while %s (%s); it has ended "
            "the job or was killed, so this PE exits too\n",
            my_rank, proto(), doing, err ? strerror(err) : "connection closed");
    _exit(1);
}

static _Noreturn void bad_reply(const char *doing, const char *reply)
{
    fprintf(shoal_error_stream(),
            "shoal: PE %d: the %s launcher answered \"%.200s\" while %s; this launcher's "
            "PMI is not supported: use mpiexec.hydra, srun --mpi=pmi2 or oshrun "
            "(SHOAL_BOOTSTRAP picks another protocol)\n",
            my_rank, proto(), reply, doing);
    _exit(1);
}

static void send_all(const char *s, size_t len, const char *doing)
{
    while (len) {
        /* MSG_NOSIGNAL: a dead launcher must give a message, not a silent SIGPIPE. */
        ssize_t n = send(pmi_fd, s, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            lost_contact(doing, n < 0 ? errno : 0);
        s += n;
        len -= (size_t)n;
    }
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static _Noreturn void no_answer(const char *doing)
{
    fprintf(shoal_error_stream(),
            "shoal: PE %d: the %s launcher did not answer within %ld s while %s; it is "
            "hung or PMI_FD is not its socket: start the program directly under "
            "mpiexec.hydra or srun --mpi=pmi2, or raise SHOAL_BOOT_TIMEOUT for a slow "
            "launcher\n",
            my_rank, proto(), reply_limit_ms / 1000, doing);
    _exit(1);
}

/* Reads what the launcher sent into rbuf, waiting at most until deadline
 * (seconds on the monotonic clock, 0 for ever). */
static void fill(double deadline, const char *doing)
{
    for (;;) {
        int ms = -1;
        if (deadline > 0) {
            double left = deadline - now();
            if (left <= 0)
                no_answer(doing);
            /* At most an hour a poll: a long limit in ms would overflow an int. */
            ms = left < 3600 ? (int)(left * 1000) + 1 : 3600 * 1000;
        }
        struct pollfd p = { .fd = pmi_fd, .events = POLLIN };
        int r = poll(&p, 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            lost_contact(doing, errno);
        if (r == 0)
            continue; /* the deadline is checked above */
        ssize_t n = read(pmi_fd, rbuf + rlen, sizeof rbuf - rlen);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            lost_contact(doing, n < 0 ? errno : 0);
        rlen += (size_t)n;
        return;
    }
}

/* The next reply, in the protocol agreed, into out (len bytes with its NUL). */
static void read_reply(char *out, size_t len, const char *doing)
{
    double deadline = reply_limit_ms > 0 && !waiting_for_peers
            ? now() + (double)reply_limit_ms / 1000
            : 0;
    for (;;) {
        long took = pmi_version == 2 ? shoal_pmi2_take(rbuf, rlen, out, len)
                                     : shoal_pmi1_take(rbuf, rlen, out, len);
        if (took > 0) {
            memmove(rbuf, rbuf + took, rlen - (size_t)took);
            rlen -= (size_t)took;
            return;
        }
        if (took == SHOAL_PMI_BAD_HEADER) {
            char head[7];
            memcpy(head, rbuf, 6);
            head[6] = 0;
            bad_reply(doing, head);
        }
        if (took == SHOAL_PMI_TOO_LONG) {
            char what[96];
            snprintf(what, sizeof what,
                     "(a reply of %zu bytes or more: longer than any PMI "
                     "message)",
                     len);
            bad_reply(doing, what);
        }
        fill(deadline, doing);
    }
}

/* Sends a formatted PMI-1 line (the caller ends it with '\n') and reads the reply. */
__attribute__((format(printf, 4, 5))) static void ask1(const char *doing, char *reply,
                                                       size_t rlen_max, const char *fmt, ...)
{
    char msg[MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof msg)
        abort(); /* every message is built from bounded parts */
    send_all(msg, (size_t)n, doing);
    if (reply)
        read_reply(reply, rlen_max, doing);
}

/* Sends a PMI-2 command (fmt without the length) and reads the reply. */
__attribute__((format(printf, 4, 5))) static void ask2(const char *doing, char *reply,
                                                       size_t rlen_max, const char *fmt, ...)
{
    char msg[MSG_MAX + 7];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg + 6, sizeof msg - 6, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof msg - 6)
        abort();
    char head[7];
    snprintf(head, sizeof head, "%-6d", n);
    memcpy(msg, head, 6);
    send_all(msg, (size_t)n + 6, doing);
    if (reply)
        read_reply(reply, rlen_max, doing);
}

/* The value of key in a reply: 0, or -1 when it is absent. A value too long for
 * out is an error, not cut short. */
static int field(const char *msg, const char *key, char *out, size_t len)
{
    int rc = shoal_pmi_field(msg, pmi_version == 2 ? ';' : ' ', key, out, len);
    if (rc == SHOAL_PMI_TOO_LONG) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: the %s launcher sent a value of %s longer than the %zu "
                "bytes Shoal takes there; this launcher's PMI is not supported: use "
                "mpiexec.hydra, srun --mpi=pmi2 or oshrun\n",
                my_rank, proto(), key, len - 1);
        _exit(1);
    }
    return rc ? -1 : 0;
}

/* rc=0 in a reply, or the reply has no rc (PMI-1's barrier_out, finalize_ack). */
static int reply_ok(const char *reply)
{
    char rc[16];
    return field(reply, "rc", rc, sizeof rc) || !strcmp(rc, "0");
}

static void expect(const char *reply, const char *cmd, const char *doing)
{
    char got[64];
    if (field(reply, "cmd", got, sizeof got) || strcmp(got, cmd) || !reply_ok(reply))
        bad_reply(doing, reply);
}

/* ---- the two protocols' operations ------------------------------------------ */

static void put(const char *key, const char *value)
{
    char reply[MSG_MAX];
    if (pmi_version == 2) {
        ask2("publishing setup data", reply, sizeof reply, "cmd=kvs-put;key=%s;value=%s;",
             key, value);
        expect(reply, "kvs-put-response", "publishing setup data");
    } else {
        ask1("publishing setup data", reply, sizeof reply,
             "cmd=put kvsname=%s key=%s value=%s\n", kvsname, key, value);
        expect(reply, "put_result", "publishing setup data");
    }
}

/* A barrier that also makes every put before it visible to every PE. */
static void fence(const char *doing)
{
    char reply[MSG_MAX];
    waiting_for_peers = 1;
    if (pmi_version == 2) {
        ask2(doing, reply, sizeof reply, "cmd=kvs-fence;");
        expect(reply, "kvs-fence-response", doing);
        /* hydra answers a fence at once and holds back instead a get of a key it
         * lacks until every PE has fenced: a get of a key nobody puts waits for
         * them all (Slurm's fence has already waited, and the get costs one round
         * trip). */
        ask2(doing, reply, sizeof reply, "cmd=kvs-get;srcid=%d;key=shoal.fence;", my_rank);
        expect(reply, "kvs-get-response", doing);
    } else {
        ask1(doing, reply, sizeof reply, "cmd=barrier_in\n");
        expect(reply, "barrier_out", doing);
    }
    waiting_for_peers = 0;
}

static void get(int src, const char *key, char *value, size_t len)
{
    char reply[MSG_MAX];
    const char *doing = "reading another PE's setup data";
    if (pmi_version == 2) {
        ask2(doing, reply, sizeof reply, "cmd=kvs-get;srcid=%d;key=%s;", src, key);
        char found[16];
        expect(reply, "kvs-get-response", doing);
        if (field(reply, "found", found, sizeof found) || strcmp(found, "TRUE"))
            bad_reply(doing, reply);
    } else {
        ask1(doing, reply, sizeof reply, "cmd=get kvsname=%s key=%s\n", kvsname, key);
        expect(reply, "get_result", doing);
    }
    if (field(reply, "value", value, len))
        bad_reply(doing, reply);
}

/* ---- start ------------------------------------------------------------------ */

static __attribute__((noreturn)) void pmi_abort(int status, const char *msg);

/* Appends s to buf[*n..len); with put_int, safe in a signal handler. */
static void put_str(char *buf, size_t *n, size_t len, const char *s)
{
    while (*s && *n + 1 < len)
        buf[(*n)++] = *s++;
}

static void put_int(char *buf, size_t *n, size_t len, int v)
{
    char d[12];
    int k = 0;
    unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
    do
        d[k++] = (char)('0' + u % 10);
    while ((u /= 10) && k < (int)sizeof d);
    if (v < 0)
        put_str(buf, n, len, "-");
    while (k && *n + 1 < len)
        buf[(*n)++] = d[--k];
}

/* The abort command, into buf; returns its length. Slurm takes it in the protocol
 * agreed; hydra knows no PMI-2 abort but reads a PMI-1 line on either. Formats by
 * hand: a dying PE sends it from a signal handler. */
static size_t abort_cmd(char *buf, size_t len, int status)
{
    size_t n = 0;
    if (pmi_version == 2 && under_slurm) {
        n = 6;
        put_str(buf, &n, len, "cmd=abort;isworld=TRUE;msg=PE ");
        put_int(buf, &n, len, my_rank);
        put_str(buf, &n, len, " ended the job with status ");
        put_int(buf, &n, len, status);
        put_str(buf, &n, len, ";");
        size_t h = 0;
        memset(buf, ' ', 6);
        put_int(buf, &h, 7, (int)(n - 6));
    } else {
        put_str(buf, &n, len, "cmd=abort exitcode=");
        put_int(buf, &n, len, status);
        put_str(buf, &n, len, "\n");
    }
    return n;
}

/* Set before this PE tells the launcher it is done: the launcher may then close the
 * socket, which is no longer news. */
static volatile int leaving;

/* Between bootstrap calls nothing reads the socket, and PEs waiting in a barrier over
 * shared memory would wait for ever if the launcher died: this thread sleeps until
 * the launcher's end of the socket closes, and ends the PE then. It only polls for the
 * hang-up, so it never takes a byte of a reply. */
static void *watch_launcher(void *arg)
{
    (void)arg;
    struct pollfd p = { .fd = pmi_fd, .events = POLLRDHUP };
    for (;;) {
        int n = poll(&p, 1, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (leaving || finalized)
            return NULL;
        if (n > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) {
            /* Give a reply in flight, or an abort this PE sent, its moment. */
            struct timespec t = { 0, 200 * 1000 * 1000 };
            nanosleep(&t, NULL);
            if (leaving || finalized)
                return NULL;
            fprintf(shoal_error_stream(),
                    "shoal: PE %d: lost contact with the %s launcher: it has ended the job "
                    "or was killed; ending this PE\n",
                    my_rank, proto());
            _exit(1);
        }
        if (n < 0)
            return NULL;
    }
}

static void start_watch(void)
{
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* Small: the thread only waits in poll. */
    pthread_attr_setstacksize(&attr, 64 * 1024);
    pthread_create(&t, &attr, watch_launcher, NULL);
    pthread_attr_destroy(&attr);
}

static void pmi_dying(int sig)
{
    leaving = 1;
    /* The message naming this PE's death, printed by the caller. */
    if (!under_slurm)
        shoal_boot_abort_pause();
    if (!finalized && pmi_fd >= 0) {
        char m[160];
        /* The status a shell gives a process killed by sig. */
        size_t n = abort_cmd(m, sizeof m, 128 + sig);
        ssize_t w = send(pmi_fd, m, n, MSG_NOSIGNAL);
        (void)w;
    }
}

/* A PE that exits without shmem_finalize leaves its peers waiting for it, and hydra
 * ends such a job with status 0: the PE ends the job itself, with a failing status. */
static void exit_check(int status, void *arg)
{
    (void)arg;
    if (finalized || pmi_fd < 0)
        return;
    char msg[192];
    snprintf(msg, sizeof msg,
             "shoal: PE %d: exited with status %d without calling shmem_finalize; ending "
             "the job",
             my_rank, status);
    pmi_abort(status ? status : 1, msg);
}

static const char *file_kind(mode_t m)
{
    return S_ISREG(m)     ? "a regular file"
            : S_ISDIR(m)  ? "a directory"
            : S_ISFIFO(m) ? "a pipe"
            : S_ISCHR(m)  ? "a terminal or device"
                          : "not a socket";
}

static const char *as_set(const char *name)
{
    const char *s = shoal_env_get(name);
    return s ? s : "(unset)";
}

/* Reads PMI_FD and friends from the environment (the env table has checked each
 * is a number in range); -1 after saying what is wrong. Nothing is written to
 * PMI_FD until it is known to be a socket: the descriptor may be a file of the
 * program's own. */
static int read_env(const struct shoal_config *cfg)
{
    const char *remedy = "start the program directly under mpiexec.hydra or srun "
                         "--mpi=pmi2 (or unset the PMI_* variables to run it alone)";
    pmi_fd = (int)cfg->foreign_pmi_fd;
    my_rank = (int)cfg->foreign_pmi_rank;
    my_size = (int)cfg->foreign_pmi_size;
    under_slurm = cfg->foreign_slurm_ntasks > 0;
    reply_limit_ms = cfg->boot_timeout * 1000;
    if (cfg->foreign_pmi_jobid)
        snprintf(jobid, sizeof jobid, "%s", cfg->foreign_pmi_jobid);
    if (pmi_fd < 0 || my_rank < 0 || my_size < 1 || my_rank >= my_size) {
        fprintf(shoal_error_stream(),
                "shoal: the PMI launcher set PMI_FD=%s PMI_RANK=%s PMI_SIZE=%s, which "
                "describe no job; %s\n",
                as_set("PMI_FD"), as_set("PMI_RANK"), as_set("PMI_SIZE"), remedy);
        return -1;
    }
    struct stat st;
    if (fstat(pmi_fd, &st)) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: PMI_FD=%d is not an open file descriptor (%s); %s\n", my_rank,
                pmi_fd, strerror(errno), remedy);
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: PMI_FD=%d is %s, not a launcher's socket; %s\n", my_rank,
                pmi_fd, file_kind(st.st_mode), remedy);
        return -1;
    }
    return 0;
}

/* The PMI-1 style greeting both protocols begin with; returns the version the
 * launcher agreed to, or 0 when it refused this one. */
static int greet(int version)
{
    char reply[MSG_MAX];
    int saved = pmi_version;
    pmi_version = 1; /* the greeting and its answer are PMI-1 lines */
    greeting = 1;
    ask1("starting", reply, sizeof reply, "cmd=init pmi_version=%d pmi_subversion=%d\n",
         version, version == 2 ? 0 : 1);
    char cmd[64], ver[16];
    if (field(reply, "cmd", cmd, sizeof cmd) || strcmp(cmd, "response_to_init"))
        bad_reply("starting", reply);
    long got = 0;
    if (reply_ok(reply) && !field(reply, "pmi_version", ver, sizeof ver) &&
        shoal_pmi_number(ver, 0, 99, &got))
        bad_reply("starting", reply);
    pmi_version = saved;
    greeting = 0;
    return (int)got;
}

int shoal_boot_pmi_version(const struct shoal_config *cfg, int want)
{
    if (read_env(cfg))
        return -1;
    pmi_version = want ? want : 2;
    int got = greet(pmi_version);
    if (got == pmi_version)
        return got;
    if (!want && got != 2) {
        /* A PMI-1 server: greet it in its own version. */
        pmi_version = 1;
        if (greet(1) == 1)
            return 1;
    }
    fprintf(shoal_error_stream(),
            "shoal: PE %d: the launcher that set PMI_FD does not speak PMI-%d (it offered "
            "PMI-%d); %s\n",
            my_rank, pmi_version, got,
            want ? "unset SHOAL_BOOTSTRAP to let Shoal pick the protocol"
                 : "launch with mpiexec.hydra, srun --mpi=pmi2 or oshrun");
    return -1;
}

static int pmi1_init(struct shoal_boot_info *info)
{
    char reply[MSG_MAX], v[64];
    ask1("starting", reply, sizeof reply, "cmd=get_maxes\n");
    expect(reply, "maxes", "starting");
    if (!field(reply, "vallen_max", v, sizeof v)) {
        long max;
        /* Two hex characters a byte, and room for the terminating NUL. */
        if (shoal_pmi_number(v, 3, LONG_MAX, &max))
            bad_reply("starting", reply);
        if ((size_t)(max - 1) / 2 < chunk)
            chunk = (size_t)(max - 1) / 2;
    }
    ask1("starting", reply, sizeof reply, "cmd=get_my_kvsname\n");
    expect(reply, "my_kvsname", "starting");
    if (field(reply, "kvsname", kvsname, sizeof kvsname))
        bad_reply("starting", reply);
    *info = (struct shoal_boot_info){ .rank = my_rank, .size = my_size };
    SHOAL_LOG(BOOT, DEBUG, "PMI-1: rank %d of %d, kvs %s, values up to %zu bytes", my_rank,
              my_size, kvsname, chunk);
    on_exit(exit_check, NULL);
    start_watch();
    return 0;
}

static int pmi2_init(struct shoal_boot_info *info)
{
    char reply[MSG_MAX], v[64];
    /* pmijobid only when the launcher set PMI_JOBID: hydra reads an empty one as a
     * process id, the same for every PE. */
    if (*jobid)
        ask2("starting", reply, sizeof reply,
             "cmd=fullinit;pmijobid=%s;pmirank=%d;threaded=FALSE;", jobid, my_rank);
    else
        ask2("starting", reply, sizeof reply, "cmd=fullinit;pmirank=%d;threaded=FALSE;",
             my_rank);
    expect(reply, "fullinit-response", "starting");
    long rank = -1, size = 0;
    if (field(reply, "rank", v, sizeof v) || shoal_pmi_number(v, 0, INT_MAX, &rank) ||
        field(reply, "size", v, sizeof v) || shoal_pmi_number(v, 1, INT_MAX, &size))
        bad_reply("starting", reply);
    if (rank != my_rank || size != my_size) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: the PMI-2 launcher says this is PE %ld of %ld, but set "
                "PMI_RANK=%d PMI_SIZE=%d; start the program directly under the launcher\n",
                my_rank, rank, size, my_rank, my_size);
        return -1;
    }
    *info = (struct shoal_boot_info){ .rank = my_rank, .size = my_size };
    on_exit(exit_check, NULL);
    start_watch();
    return 0;
}

static int locked_fence(const char *doing)
{
    pthread_mutex_lock(&pmi_lock);
    fence(doing);
    pthread_mutex_unlock(&pmi_lock);
    return 0;
}

static int pmi_barrier(void)
{
    return locked_fence("waiting in a barrier");
}

static const char hexdig[] = "0123456789abcdef";

static int pmi_allgather(const void *in, void *out, size_t len)
{
    pthread_mutex_lock(&pmi_lock);
    unsigned seq = ag_seq++;
    size_t nchunks = len ? (len + chunk - 1) / chunk : 0;
    char key[64], value[CHUNK_MAX * 2 + 1];
    for (size_t c = 0; c < nchunks; c++) {
        const unsigned char *p = (const unsigned char *)in + c * chunk;
        size_t n = c + 1 < nchunks ? chunk : len - c * chunk;
        for (size_t i = 0; i < n; i++) {
            value[2 * i] = hexdig[p[i] >> 4];
            value[2 * i + 1] = hexdig[p[i] & 15];
        }
        value[2 * n] = 0;
        snprintf(key, sizeof key, "shoal%u.%d.%zu", seq, my_rank, c);
        put(key, value);
    }
    fence("exchanging setup data");
    int rc = 0;
    for (int r = 0; r < my_size && !rc; r++) {
        unsigned char *dst = (unsigned char *)out + (size_t)r * len;
        for (size_t c = 0; c < nchunks && !rc; c++) {
            size_t n = c + 1 < nchunks ? chunk : len - c * chunk;
            snprintf(key, sizeof key, "shoal%u.%d.%zu", seq, r, c);
            get(r, key, value, sizeof value);
            if (strlen(value) != 2 * n) {
                fprintf(shoal_error_stream(),
                        "shoal: PE %d: PE %d contributed a different amount of setup data; "
                        "every PE must run the same program with the same Shoal library\n",
                        my_rank, r);
                rc = -1;
                break;
            }
            if (shoal_pmi_unhex(value, dst + c * chunk, n))
                bad_reply("reading another PE's setup data", value);
        }
    }
    pthread_mutex_unlock(&pmi_lock);
    return rc;
}

/* ---- what the node-level exchange needs (node_exchange.c) ------------------- */

/* Node number of rank r in PMI_process_mapping, "(vector,(first,nodes,ppn),...)":
 * each triple places ppn consecutive ranks on each of nodes nodes from first, and
 * the list repeats until every rank is placed (hydra describes 4 PEs on one host as
 * (vector,(0,1,1))). -1 when map is not such a list. */
static long mapped_node(const char *map, int r)
{
    const char *start = strstr(map, "vector,");
    if (!start)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        long rank = 0;
        for (const char *p = start + 7; (p = strchr(p, '(')) != NULL;) {
            long first, nodes, ppn;
            int used = 0;
            if (sscanf(p, "(%ld,%ld,%ld)%n", &first, &nodes, &ppn, &used) != 3 || !used ||
                first < 0 || nodes < 1 || ppn < 1 || nodes > INT32_MAX / ppn)
                return -1;
            if (r < rank + nodes * ppn)
                return first + (r - rank) / ppn;
            rank += nodes * ppn;
            p += used;
        }
        /* The first pass counted the ranks one round of the list places. */
        if (!rank)
            return -1;
        r %= rank;
    }
    return -1;
}

static int pmi_node(int *leader, int *local_rank, int *local_size)
{
    char reply[MSG_MAX], map[MSG_MAX], found[16];
    const char *doing = "asking which PEs share this node";
    pthread_mutex_lock(&pmi_lock);
    if (pmi_version == 2) {
        ask2(doing, reply, sizeof reply, "cmd=info-getjobattr;key=PMI_process_mapping;");
        if (field(reply, "found", found, sizeof found) || strcmp(found, "TRUE"))
            *reply = 0;
    } else {
        ask1(doing, reply, sizeof reply, "cmd=get kvsname=%s key=PMI_process_mapping\n",
             kvsname);
        if (!reply_ok(reply))
            *reply = 0;
    }
    pthread_mutex_unlock(&pmi_lock);
    if (!*reply || field(reply, "value", map, sizeof map))
        return -1;
    SHOAL_LOG(BOOT, DEBUG, "PMI_process_mapping=%s", map);
    long mine = mapped_node(map, my_rank);
    if (mine < 0)
        return -1;
    int low = -1, below = 0, count = 0;
    for (int r = 0; r < my_size; r++) {
        long n = mapped_node(map, r);
        if (n < 0)
            return -1;
        if (n != mine)
            continue;
        if (low < 0)
            low = r;
        below += r < my_rank;
        count++;
    }
    *leader = low, *local_rank = below, *local_size = count;
    return 0;
}

/* A value of any length: its byte count under key.RANK.n, then chunks under
 * key.RANK.0, ...: the key-value space is the job's, so every PE's keys are its own. */
static int pmi_put(const char *key, const void *val, size_t len)
{
    char k[128], value[CHUNK_MAX * 2 + 1];
    pthread_mutex_lock(&pmi_lock);
    snprintf(k, sizeof k, "%s.%d.n", key, my_rank);
    snprintf(value, sizeof value, "%zu", len);
    put(k, value);
    for (size_t c = 0; c * chunk < len; c++) {
        const unsigned char *p = (const unsigned char *)val + c * chunk;
        size_t n = len - c * chunk < chunk ? len - c * chunk : chunk;
        for (size_t i = 0; i < n; i++) {
            value[2 * i] = hexdig[p[i] >> 4];
            value[2 * i + 1] = hexdig[p[i] & 15];
        }
        value[2 * n] = 0;
        snprintf(k, sizeof k, "%s.%d.%zu", key, my_rank, c);
        put(k, value);
    }
    pthread_mutex_unlock(&pmi_lock);
    return 0;
}

static int pmi_get(int rank, const char *key, void **out, size_t *len)
{
    char k[128], value[CHUNK_MAX * 2 + 1];
    const char *doing = "reading another PE's setup data";
    pthread_mutex_lock(&pmi_lock);
    snprintf(k, sizeof k, "%s.%d.n", key, rank);
    get(rank, k, value, sizeof value);
    char *end;
    unsigned long long n = strtoull(value, &end, 10);
    unsigned char *dst = *end || n > SIZE_MAX / 2 ? NULL : malloc(n ? n : 1);
    if (!dst)
        bad_reply(doing, value);
    for (size_t c = 0; c * chunk < n; c++) {
        size_t m = n - c * chunk < chunk ? n - c * chunk : chunk;
        snprintf(k, sizeof k, "%s.%d.%zu", key, rank, c);
        get(rank, k, value, sizeof value);
        if (shoal_pmi_unhex(value, dst + c * chunk, m))
            bad_reply(doing, value);
    }
    pthread_mutex_unlock(&pmi_lock);
    *out = dst;
    *len = n;
    return 0;
}

static int pmi_collect(void)
{
    return locked_fence("exchanging setup data");
}

static void pmi_finalize(void)
{
    pthread_mutex_lock(&pmi_lock);
    if (!finalized) {
        char reply[MSG_MAX];
        leaving = 1;
        if (pmi_version == 2) {
            ask2("finishing", reply, sizeof reply, "cmd=finalize;");
            expect(reply, "finalize-response", "finishing");
        } else {
            ask1("finishing", reply, sizeof reply, "cmd=finalize\n");
            expect(reply, "finalize_ack", "finishing");
        }
        finalized = 1;
    }
    pthread_mutex_unlock(&pmi_lock);
}

/* The key-value space of PMI shows a PE's puts to the others only after a fence
 * they all enter, so a PE cannot learn, without waiting, that another has left:
 * mismatched collectives are ended by the launcher when a PE exits, not here. */
static void pmi_publish_last_sync(uint64_t syncs)
{
    (void)syncs;
}

static int pmi_first_left(uint64_t *syncs)
{
    (void)syncs;
    return -1;
}

static __attribute__((noreturn)) void pmi_abort(int status, const char *msg)
{
    leaving = 1;
    shoal_boot_abort_notice(shoal_error_stream(), my_rank, status, msg);
    if (!under_slurm)
        shoal_boot_abort_pause();
    /* No lock: abort may come from a thread while another waits in a fence. The
     * launcher ends the other PEs, and the job with this status. */
    if (!finalized && pmi_fd >= 0) {
        char m[160];
        size_t n = abort_cmd(m, sizeof m, status);
        ssize_t w = send(pmi_fd, m, n, MSG_NOSIGNAL);
        (void)w;
    }
    _exit(status);
}

const struct shoal_boot_ops shoal_boot_pmi1 = {
    .name = "pmi1",
    .init = pmi1_init,
    .barrier = pmi_barrier,
    .allgather = pmi_allgather,
    .node = pmi_node,
    .put = pmi_put,
    .collect = pmi_collect,
    .get = pmi_get,
    .finalize = pmi_finalize,
    .publish_last_sync = pmi_publish_last_sync,
    .first_left = pmi_first_left,
    .dying = pmi_dying,
    .abort = pmi_abort,
};

const struct shoal_boot_ops shoal_boot_pmi2 = {
    .name = "pmi2",
    .init = pmi2_init,
    .barrier = pmi_barrier,
    .allgather = pmi_allgather,
    .node = pmi_node,
    .put = pmi_put,
    .collect = pmi_collect,
    .get = pmi_get,
    .finalize = pmi_finalize,
    .publish_last_sync = pmi_publish_last_sync,
    .first_left = pmi_first_left,
    .dying = pmi_dying,
    .abort = pmi_abort,
};
