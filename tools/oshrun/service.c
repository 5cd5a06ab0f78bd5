/* The bootstrap service: oshrun's side of each PE's channel. Requests arrive
 * whole or in pieces on non-blocking sockets; a collective is answered once
 * every PE has sent it, with one shared reply. */
#include "oshrun.h"
#include "env.h"
#include "wire.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const op_name[] = {
    [OP_NONE] = "nothing",
    [OP_BARRIER] = "a setup barrier",
    [OP_ALLGATHER] = "a setup allgather",
};

static struct blob *blob_new(uint32_t type, uint64_t len, size_t refs)
{
    struct blob *b = malloc(sizeof *b + sizeof(struct shoal_wire_hdr) + len);
    if (!b)
        return NULL;
    b->refs = refs;
    b->len = sizeof(struct shoal_wire_hdr) + len;
    struct shoal_wire_hdr h = { .type = type, .len = len };
    memcpy(b->data, &h, sizeof h);
    return b;
}

static void blob_put(struct blob *b)
{
    if (b && --b->refs == 0)
        free(b);
}

void chan_close(struct pe *pe)
{
    if (pe->chan < 0)
        return;
    close(pe->chan);
    pe->chan = -1;
    blob_put(pe->reply);
    pe->reply = NULL;
    free(pe->in);
    pe->in = NULL;
    pe->in_len = pe->in_cap = 0;
}

void chan_write(struct job *j, struct pe *pe)
{
    while (pe->reply) {
        ssize_t n = send(pe->chan, pe->reply->data + pe->reply_off,
                         pe->reply->len - pe->reply_off, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n < 0) { /* the PE is gone */
            chan_close(pe);
            check_stuck(j);
            return;
        }
        pe->reply_off += (size_t)n;
        if (pe->reply_off == pe->reply->len) {
            blob_put(pe->reply);
            pe->reply = NULL;
        }
    }
}

/* Queues b (one reference of it belongs to pe) and starts sending it. */
static void reply(struct job *j, struct pe *pe, struct blob *b)
{
    if (pe->chan < 0) {
        blob_put(b);
        return;
    }
    pe->reply = b;
    pe->reply_off = 0;
    chan_write(j, pe);
}

static void bad_message(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                        const char *why)
{
    job_end(j, 1, SIGTERM,
            "PE %d sent a message oshrun does not expect (type %u, %llu bytes: %s); "
            "run the program with the oshrun of the Shoal it was built with",
            pe->rank, h->type, (unsigned long long)h->len, why);
}

static void on_hello(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                     const unsigned char *payload)
{
    struct shoal_wire_hello hello;
    if (h->len != sizeof hello) {
        bad_message(j, pe, h, "malformed hello");
        return;
    }
    memcpy(&hello, payload, sizeof hello);
    if (hello.version != SHOAL_WIRE_VERSION) {
        job_end(j, 1, SIGTERM,
                "PE %d speaks launcher protocol %u but this oshrun speaks %d; run "
                "the program with the oshrun of the Shoal it was built with",
                pe->rank, hello.version, SHOAL_WIRE_VERSION);
        return;
    }
    if (pe->hello || hello.rank != pe->rank) {
        job_end(j, 1, SIGTERM,
                "PE %d's launcher channel is used by a second process (which thinks "
                "it is PE %d); a program started from inside a PE must not inherit "
                "SHOAL_BOOT_FD, "
                "SHOAL_RANK and SHOAL_SIZE",
                pe->rank, hello.rank);
        return;
    }
    pe->hello = true;
    struct blob *b = blob_new(SHOAL_WIRE_WELCOME, sizeof(struct shoal_wire_welcome), 1);
    if (!b) {
        job_end(j, 1, SIGTERM, "out of memory");
        return;
    }
    /* Every PE oshrun starts is on this node. */
    struct shoal_wire_welcome w = { .size = j->size,
                                    .node_rank = pe->rank,
                                    .node_size = j->size };
    memcpy(b->data + sizeof(struct shoal_wire_hdr), &w, sizeof w);
    reply(j, pe, b);
}

static void coll_complete(struct job *j)
{
    struct blob *b = j->coll_result;
    j->coll_result = NULL;
    j->coll_arrived = 0;
    j->coll_op = OP_NONE;
    b->refs = (size_t)j->size;
    for (int r = 0; r < j->size; r++) {
        j->pes[r].op = OP_NONE;
        reply(j, &j->pes[r], b);
    }
}

static void on_collective(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                          const unsigned char *payload)
{
    enum pe_op op = h->type == SHOAL_WIRE_BARRIER ? OP_BARRIER : OP_ALLGATHER;
    if (!pe->hello || pe->finalized || pe->op != OP_NONE || pe->reply) {
        bad_message(j, pe, h, "request out of turn");
        return;
    }
    if (j->coll_arrived == 0) {
        uint64_t total = h->len * (uint64_t)j->size;
        if (h->len && total / h->len != (uint64_t)j->size) {
            bad_message(j, pe, h, "allgather too large");
            return;
        }
        j->coll_result = blob_new(op == OP_BARRIER ? SHOAL_WIRE_BARRIER_DONE
                                                   : SHOAL_WIRE_ALLGATHER_DONE,
                                  total, 0);
        if (!j->coll_result) {
            job_end(j, 1, SIGTERM, "out of memory for a setup allgather of %d x %llu bytes",
                    j->size, (unsigned long long)h->len);
            return;
        }
        j->coll_op = op;
        j->coll_len = h->len;
        j->coll_first = pe->rank;
    } else if (op != j->coll_op) {
        job_end(j, 1, SIGTERM,
                "PE %d entered %s while PE %d waits in %s; the PEs' calls to "
                "shmem_init or shmem_finalize do not match",
                pe->rank, op_name[op], j->coll_first, op_name[j->coll_op]);
        return;
    } else if (h->len != j->coll_len) {
        job_end(j, 1, SIGTERM,
                "PE %d passed %llu bytes to a setup allgather but PE %d passed %llu; "
                "every PE must pass the same size",
                pe->rank, (unsigned long long)h->len, j->coll_first,
                (unsigned long long)j->coll_len);
        return;
    }
    memcpy(j->coll_result->data + sizeof(struct shoal_wire_hdr) + (size_t)pe->rank * h->len,
           payload, h->len);
    pe->op = op;
    if (++j->coll_arrived == j->size)
        coll_complete(j);
    else
        check_stuck(j);
}

static void on_abort(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                     const unsigned char *payload)
{
    int status = h->arg & 0xff; /* what the exit status of the PE itself would be */
    /* The PE's message is a complete line of its own ("shoal: PE n: routine: ..."),
     * after what the PEs printed before it. */
    if (h->len) {
        streams_settle(j);
        dprintf(fileno(shoal_error_stream()), "%.*s\n", (int)h->len, (const char *)payload);
        job_end(j, status, SIGTERM, "PE %d aborted (exit status %d)", pe->rank, status);
    } else
        job_end(j, status, SIGTERM, "PE %d called shmem_global_exit(%d)", pe->rank, h->arg);
}

/* LAST_SYNC: the PE has made its last collective call (its shmem_finalize's barrier). */
static void on_last_sync(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                         const unsigned char *payload)
{
    uint64_t syncs;
    if (!pe->hello || pe->last_sync || h->len != sizeof syncs) {
        bad_message(j, pe, h, "last synchronisation out of turn or malformed");
        return;
    }
    memcpy(&syncs, payload, sizeof syncs);
    pe->last_sync = syncs + 1;
}

/* LEFT_QUERY, from a PE whose collective waits long: the PE that published the
 * fewest synchronisations, which the asker compares with its own. */
static void on_left_query(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h)
{
    if (!pe->hello || pe->finalized || pe->op != OP_NONE || pe->reply || h->len) {
        bad_message(j, pe, h, "query out of turn");
        return;
    }
    struct shoal_wire_left left = { .pe = -1 };
    for (int r = 0; r < j->size; r++) {
        const struct pe *q = &j->pes[r];
        if (q->last_sync && (left.pe < 0 || q->last_sync - 1 < left.syncs)) {
            left.pe = r;
            left.syncs = q->last_sync - 1;
        }
    }
    struct blob *b = blob_new(SHOAL_WIRE_LEFT, sizeof left, 1);
    if (!b) {
        job_end(j, 1, SIGTERM, "out of memory");
        return;
    }
    memcpy(b->data + sizeof(struct shoal_wire_hdr), &left, sizeof left);
    reply(j, pe, b);
}

static void on_message(struct job *j, struct pe *pe, const struct shoal_wire_hdr *h,
                       const unsigned char *payload)
{
    switch (h->type) {
    case SHOAL_WIRE_HELLO: on_hello(j, pe, h, payload); break;
    case SHOAL_WIRE_BARRIER:
    case SHOAL_WIRE_ALLGATHER:
        if (h->type == SHOAL_WIRE_BARRIER && h->len)
            bad_message(j, pe, h, "barrier with a payload");
        else
            on_collective(j, pe, h, payload);
        break;
    case SHOAL_WIRE_FINALIZE:
        if (!pe->hello || pe->op != OP_NONE) {
            bad_message(j, pe, h, "finalize out of turn");
            break;
        }
        pe->finalized = true;
        check_stuck(j);
        break;
    case SHOAL_WIRE_ABORT: on_abort(j, pe, h, payload); break;
    case SHOAL_WIRE_LAST_SYNC: on_last_sync(j, pe, h, payload); break;
    case SHOAL_WIRE_LEFT_QUERY: on_left_query(j, pe, h); break;
    default: bad_message(j, pe, h, "unknown type");
    }
}

/* Reads everything the PE has sent so far and handles each complete request. */
void chan_read(struct job *j, struct pe *pe)
{
    while (pe->chan >= 0) {
        struct shoal_wire_hdr h;
        size_t need = sizeof h;
        if (pe->in_len >= sizeof h) {
            memcpy(&h, pe->in, sizeof h);
            if (h.len > SHOAL_WIRE_MAX_LEN) {
                bad_message(j, pe, &h, "too long");
                chan_close(pe);
                return;
            }
            need += h.len;
            if (pe->in_len >= need) {
                on_message(j, pe, &h, pe->in + sizeof h);
                if (pe->chan < 0)
                    return;
                memmove(pe->in, pe->in + need, pe->in_len - need);
                pe->in_len -= need;
                continue;
            }
        }
        if (need > pe->in_cap && pe->in_len == pe->in_cap) {
            /* Grow as bytes arrive, not by what the header claims: a corrupt
             * length must not make oshrun allocate SHOAL_WIRE_MAX_LEN up front. */
            size_t cap = pe->in_cap * 2 < need ? pe->in_cap * 2 : need;
            if (cap < 4096)
                cap = 4096;
            unsigned char *p = realloc(pe->in, cap);
            if (!p) {
                job_end(j, 1, SIGTERM, "out of memory reading PE %d's request", pe->rank);
                chan_close(pe);
                return;
            }
            pe->in = p;
            pe->in_cap = cap;
        }
        ssize_t n = recv(pe->chan, pe->in + pe->in_len, pe->in_cap - pe->in_len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) { /* closed: the PE exited, or closed it after shmem_finalize */
            chan_close(pe);
            if (!pe->exited) /* else pe_reaped gives the verdict */
                check_stuck(j);
            return;
        }
        pe->in_len += (size_t)n;
    }
}
