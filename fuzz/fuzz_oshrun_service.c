/* Fuzz target: oshrun's side of the bootstrap channel (tools/oshrun/service.c),
 * the reader and state machine for what PEs send. The real code runs on real
 * non-blocking sockets; this file plays 1-4 PEs and replaces the hooks into the
 * rest of oshrun (job_end, check_stuck, streams_settle).
 *
 * Input: byte 0 picks the number of PEs, then records of
 *   [PE byte] [length byte] [length bytes sent by that PE]
 * Every reply oshrun sends must be well formed: a WELCOME the PE would accept,
 * or a collective's answer of the right size. */
#include "oshrun.h"
#include "wire.h"
#include "fuzz_check.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PES 4
#define REPLY_BUF (MAX_PES * 256 + 64)

void job_end(struct job *j, int status, int sig, const char *fmt, ...)
{
    (void)sig;
    (void)fmt;
    if (j->ending)
        return;
    j->ending = true;
    j->status = status;
}

void check_stuck(struct job *j)
{
    (void)j;
}

void streams_settle(struct job *j)
{
    (void)j;
}

/* What one PE has received so far and not yet checked. */
struct inbox {
    unsigned char buf[REPLY_BUF];
    size_t len;
};

static void check_replies(const struct job *j, struct inbox *in)
{
    struct shoal_wire_hdr h;
    while (in->len >= sizeof h) {
        memcpy(&h, in->buf, sizeof h);
        /* A collective's answer is at most MAX_PES contributions of 255 bytes. */
        FUZZ_CHECK(h.len <= REPLY_BUF - sizeof h);
        if (in->len < sizeof h + h.len)
            return;
        switch (h.type) {
        case SHOAL_WIRE_WELCOME: {
            struct shoal_wire_welcome w;
            FUZZ_CHECK(!shoal_wire_reply_error(&h, SHOAL_WIRE_WELCOME, sizeof w));
            memcpy(&w, in->buf + sizeof h, sizeof w);
            FUZZ_CHECK(!shoal_wire_welcome_error(&w, j->size));
            break;
        }
        case SHOAL_WIRE_BARRIER_DONE: FUZZ_CHECK(h.len == 0); break;
        case SHOAL_WIRE_LEFT: {
            struct shoal_wire_left left;
            FUZZ_CHECK(h.len == sizeof left);
            memcpy(&left, in->buf + sizeof h, sizeof left);
            FUZZ_CHECK(left.pe >= -1 && left.pe < j->size);
            break;
        }
        case SHOAL_WIRE_ALLGATHER_DONE: FUZZ_CHECK(h.len % (uint64_t)j->size == 0); break;
        default: FUZZ_CHECK(!"oshrun sent a message type it should never send");
        }
        size_t used = sizeof h + h.len;
        memmove(in->buf, in->buf + used, in->len - used);
        in->len -= used;
    }
}

static void drain(const struct job *j, int fd, struct inbox *in)
{
    for (;;) {
        ssize_t n = recv(fd, in->buf + in->len, sizeof in->buf - in->len, 0);
        if (n <= 0)
            return;
        in->len += (size_t)n;
        check_replies(j, in);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    struct pe pes[MAX_PES];
    struct inbox inbox[MAX_PES];
    int peer[MAX_PES];
    struct job j = { .size = 1 + data[0] % MAX_PES, .pes = pes };
    for (int r = 0; r < j.size; r++) {
        int sv[2];
        FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
        pes[r] = (struct pe){
            .rank = r, .pid = 0, .chan = sv[0], .out = { .fd = -1 }, .err = { .fd = -1 }
        };
        peer[r] = sv[1];
        inbox[r].len = 0;
    }

    size_t at = 1;
    while (at + 2 <= size) {
        struct pe *pe = &pes[data[at] % j.size];
        size_t len = data[at + 1];
        at += 2;
        if (len > size - at)
            len = size - at;
        int fd = peer[pe->rank];
        /* Small writes into an empty socket buffer are never short. */
        FUZZ_CHECK(send(fd, data + at, len, MSG_NOSIGNAL) == (ssize_t)len || pe->chan < 0);
        at += len;
        chan_read(&j, pe);
        for (int r = 0; r < j.size; r++) {
            if (pes[r].chan >= 0)
                chan_write(&j, &pes[r]);
            drain(&j, peer[r], &inbox[r]);
        }
        FUZZ_CHECK(j.coll_arrived >= 0 && j.coll_arrived < j.size);
    }

    for (int r = 0; r < j.size; r++) {
        chan_close(&pes[r]);
        close(peer[r]);
    }
    free(j.coll_result); /* a collective some PEs never joined */
    return 0;
}
