/* PE side of the oshrun channel (messages in wire.h). Every call is a blocking
 * request and reply: this is only used while setting up and tearing down, and
 * oshrun answers within microseconds (a barrier's or allgather's reply waits for
 * the other PEs). If oshrun goes away there is no job left to be part of, so the
 * PE exits instead of returning an error; if it stops answering, the PE ends after
 * SHOAL_BOOT_TIMEOUT. */
#include "bootstrap.h"
#include "env.h"
#include "log.h"
#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* Longest abort message passed on; the rest is cut. */
#define ABORT_MSG_MAX 4096

static int chan_fd = -1;
/* One request at a time: threads waiting in collectives may ask who has left
 * (oshrun_first_left) at the same time. */
static pthread_mutex_t chan_lock = PTHREAD_MUTEX_INITIALIZER;
static int my_rank = -1;
static int my_size;
static long reply_limit_s; /* SHOAL_BOOT_TIMEOUT */

static _Noreturn void lost_contact(int err)
{
    fprintf(shoal_error_stream(),
            "shoal: PE %d: lost contact with oshrun (%s); it has ended the job or was "
            "killed, so this PE exits too\n",
            my_rank, err ? strerror(err) : "channel closed");
    _exit(1);
}

/* Returns 0, or the errno that stopped it. */
static int send_all(struct iovec *iov, int iovcnt)
{
    struct msghdr m = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
    while (m.msg_iovlen) {
        /* MSG_NOSIGNAL: a dead oshrun must give a message, not a silent SIGPIPE. */
        ssize_t n = sendmsg(chan_fd, &m, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        while (m.msg_iovlen && (size_t)n >= m.msg_iov->iov_len) {
            n -= (ssize_t)m.msg_iov->iov_len;
            m.msg_iov++;
            m.msg_iovlen--;
        }
        if (m.msg_iovlen) {
            m.msg_iov->iov_base = (char *)m.msg_iov->iov_base + n;
            m.msg_iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

static void send_msg(uint32_t type, int32_t arg, const void *payload, size_t len)
{
    struct shoal_wire_hdr h = { .type = type, .arg = arg, .len = len };
    struct iovec iov[2] = { { &h, sizeof h }, { (void *)payload, len } };
    int err = send_all(iov, len ? 2 : 1);
    if (err)
        lost_contact(err);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* When the reply to a request oshrun answers at once must have come; 0: no limit. */
static double reply_deadline(void)
{
    return reply_limit_s > 0 ? now() + (double)reply_limit_s : 0;
}

/* Reads len bytes, by deadline (see reply_deadline). */
static void recv_all(void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        if (deadline > 0) {
            double left = deadline - now();
            struct pollfd pf = { .fd = chan_fd, .events = POLLIN };
            /* At most an hour a poll: a long limit in ms would overflow an int. */
            int ms = left < 3600 ? (int)(left * 1000) + 1 : 3600 * 1000;
            int r = left > 0 ? poll(&pf, 1, ms) : 0;
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0 && now() >= deadline) {
                fprintf(shoal_error_stream(),
                        "shoal: PE %d: oshrun did not answer within %ld s; it is hung or "
                        "SHOAL_BOOT_FD is not its channel: start the program with `oshrun "
                        "-n N prog`, or raise SHOAL_BOOT_TIMEOUT for a slow machine\n",
                        my_rank, reply_limit_s);
                _exit(1);
            }
            if (r <= 0)
                continue;
        }
        ssize_t n = recv(chan_fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            lost_contact(n < 0 ? errno : 0);
        p += n;
        len -= (size_t)n;
    }
}

/* Reads the header of the reply to the request just sent; -1 if it is not the one expected. */
static int recv_reply(uint32_t type, uint64_t len, double deadline)
{
    struct shoal_wire_hdr h;
    recv_all(&h, sizeof h, deadline);
    if (!shoal_wire_reply_error(&h, type, len))
        return 0;
    fprintf(shoal_error_stream(),
            "shoal: PE %d: oshrun sent message %u (%llu bytes) where %u (%llu bytes) was "
            "expected; run the program with the oshrun of the Shoal it was built with\n",
            my_rank, h.type, (unsigned long long)h.len, type, (unsigned long long)len);
    return -1;
}

/* True when fd is an open AF_UNIX stream socket, as the channel oshrun passes is. */
static int is_channel(int fd)
{
    int v;
    socklen_t vl = sizeof v;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &vl) || v != SOCK_STREAM)
        return 0;
    vl = sizeof v;
    return !getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &vl) && v == AF_UNIX;
}

static int oshrun_init(struct shoal_boot_info *info)
{
    struct shoal_config cfg;
    char err[256];

    if (shoal_env_load(&cfg, err, sizeof err)) {
        fprintf(shoal_error_stream(), "shoal: %s\n", err);
        return -1;
    }
    if (cfg.size < 1 || cfg.size > INT_MAX || cfg.rank < 0 || cfg.rank >= cfg.size ||
        cfg.boot_fd > INT_MAX) {
        fprintf(shoal_error_stream(),
                "shoal: SHOAL_BOOT_FD=%ld SHOAL_RANK=%ld SHOAL_SIZE=%ld do not describe a PE "
                "of a job; oshrun sets these: start the program with `oshrun -n N prog` and "
                "do not "
                "set them yourself\n",
                cfg.boot_fd, cfg.rank, cfg.size);
        return -1;
    }
    my_rank = (int)cfg.rank;
    my_size = (int)cfg.size;
    reply_limit_s = cfg.boot_timeout;
    if (!is_channel((int)cfg.boot_fd)) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: SHOAL_BOOT_FD=%ld is not an open oshrun channel; start the "
                "program with `oshrun -n N prog` (a program started from inside a PE "
                "inherits the "
                "variables but not the channel: unset SHOAL_BOOT_FD, SHOAL_RANK and "
                "SHOAL_SIZE for "
                "it)\n",
                my_rank, cfg.boot_fd);
        return -1;
    }
    chan_fd = (int)cfg.boot_fd;
    /* Programs this PE starts (system(), popen()) must not hold the channel open. */
    int fdflags = fcntl(chan_fd, F_GETFD);
    if (fdflags >= 0)
        fcntl(chan_fd, F_SETFD, fdflags | FD_CLOEXEC);

    struct shoal_wire_hello hello = { .version = SHOAL_WIRE_VERSION, .rank = my_rank };
    struct shoal_wire_welcome w;
    double t = shoal_log_now();
    send_msg(SHOAL_WIRE_HELLO, 0, &hello, sizeof hello);
    double deadline = reply_deadline();
    if (recv_reply(SHOAL_WIRE_WELCOME, sizeof w, deadline))
        return -1;
    recv_all(&w, sizeof w, deadline);
    SHOAL_LOG(BOOT, DEBUG, "oshrun welcomed rank %d of %d after %.3f s (node rank %d of %d)",
              my_rank, my_size, shoal_log_now() - t, w.node_rank, w.node_size);
    if (w.size != my_size) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: oshrun runs %d PEs but SHOAL_SIZE=%d; do not set SHOAL_SIZE "
                "yourself\n",
                my_rank, w.size, my_size);
        return -1;
    }
    const char *why = shoal_wire_welcome_error(&w, my_size);
    if (why) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: oshrun's answer to shmem_init is malformed (%s: node rank "
                "%d of %d); run the program with the oshrun of the Shoal it was built with\n",
                my_rank, why, w.node_rank, w.node_size);
        return -1;
    }
    *info = (struct shoal_boot_info){ .rank = my_rank, .size = my_size };
    return 0;
}

static int oshrun_barrier(void)
{
    pthread_mutex_lock(&chan_lock);
    send_msg(SHOAL_WIRE_BARRIER, 0, NULL, 0);
    int rc = recv_reply(SHOAL_WIRE_BARRIER_DONE, 0, 0);
    pthread_mutex_unlock(&chan_lock);
    return rc;
}

static int oshrun_allgather(const void *in, void *out, size_t len)
{
    if (len > SHOAL_WIRE_MAX_LEN / (uint64_t)my_size) {
        fprintf(shoal_error_stream(),
                "shoal: PE %d: setup allgather of %zu bytes per PE exceeds the oshrun "
                "channel's limit of %llu bytes in all\n",
                my_rank, len, (unsigned long long)SHOAL_WIRE_MAX_LEN);
        return -1;
    }
    /* All of in is sent before out is written, so the two may overlap. */
    pthread_mutex_lock(&chan_lock);
    send_msg(SHOAL_WIRE_ALLGATHER, 0, in, len);
    int rc = recv_reply(SHOAL_WIRE_ALLGATHER_DONE, (uint64_t)len * (uint64_t)my_size, 0);
    if (!rc)
        recv_all(out, len * (size_t)my_size, 0);
    pthread_mutex_unlock(&chan_lock);
    return rc;
}

/* oshrun keeps what each PE published and answers queries from the others. */
static void oshrun_publish_last_sync(uint64_t syncs)
{
    pthread_mutex_lock(&chan_lock);
    send_msg(SHOAL_WIRE_LAST_SYNC, 0, &syncs, sizeof syncs);
    pthread_mutex_unlock(&chan_lock);
}

static int oshrun_first_left(uint64_t *syncs)
{
    struct shoal_wire_left left = { .pe = -1 };
    /* Another thread's request is answered within microseconds; this one asks again
     * at its next slow poll. */
    if (pthread_mutex_trylock(&chan_lock))
        return -1;
    if (chan_fd >= 0) {
        send_msg(SHOAL_WIRE_LEFT_QUERY, 0, NULL, 0);
        double deadline = reply_deadline();
        if (recv_reply(SHOAL_WIRE_LEFT, sizeof left, deadline) == 0)
            recv_all(&left, sizeof left, deadline);
    }
    pthread_mutex_unlock(&chan_lock);
    if (left.pe < 0 || left.pe >= my_size)
        return -1;
    *syncs = left.syncs;
    return left.pe;
}

static void oshrun_finalize(void)
{
    pthread_mutex_lock(&chan_lock);
    send_msg(SHOAL_WIRE_FINALIZE, 0, NULL, 0);
    close(chan_fd);
    chan_fd = -1;
    pthread_mutex_unlock(&chan_lock);
}

static __attribute__((noreturn)) void oshrun_abort(int status, const char *msg)
{
    /* shmem_global_exit is an exit: output the program already wrote must not be lost. */
    fflush(NULL);
    /* After finalize nobody is listening, so the message is ours to print. */
    if (chan_fd < 0) {
        if (msg && *msg)
            fprintf(shoal_error_stream(), "%s\n", msg);
        _exit(status);
    }
    size_t len = msg ? strnlen(msg, ABORT_MSG_MAX) : 0;
    struct shoal_wire_hdr h = { .type = SHOAL_WIRE_ABORT, .arg = status, .len = len };
    struct iovec iov[2] = { { &h, sizeof h }, { (void *)msg, len } };
    /* If this fails oshrun is gone, and the job with it: nobody is left to tell. */
    send_all(iov, len ? 2 : 1);
    _exit(status);
}

const struct shoal_boot_ops shoal_boot_oshrun = {
    .name = "oshrun",
    .init = oshrun_init,
    .barrier = oshrun_barrier,
    .allgather = oshrun_allgather,
    .finalize = oshrun_finalize,
    .publish_last_sync = oshrun_publish_last_sync,
    .first_left = oshrun_first_left,
    .abort = oshrun_abort,
};
