/* Passing the PEs' output on, and oshrun's input in. Output goes out as it
 * arrives, cut at line ends so that lines of different PEs do not mix; a line
 * longer than the buffer, or one left unfinished for a moment, is passed on in
 * pieces. */
#include "oshrun.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STREAM_BUF 65536
/* A drain stops after this many reads, so a PE's child that never stops
 * writing cannot hold oshrun in it. */
#define DRAIN_READS_MAX 64
#define STDIN_BUF 65536
/* How long a partial line may wait for its end before it is passed on as it is. */
#define PARTIAL_GRACE_S 0.05

/* Writes all of p to oshrun's stdout or stderr. Output nobody reads any more
 * (EPIPE) is dropped: the job itself must go on. */
static void write_out(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) { /* someone made our stdout non-blocking */
                struct pollfd pfd = { .fd = fd, .events = POLLOUT };
                poll(&pfd, 1, -1);
                continue;
            }
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* The stream whose last line is still open (no newline yet) on its destination,
 * with --tag-output: another PE's text must start a new line. */
static const struct stream *open_line;

/* Passes on n bytes; with --tag-output every line starts with its "[PE] " prefix.
 * A piece that ends mid-line leaves the line open for the same stream to go on. */
static void pass_on(const struct job *j, const struct pe *pe, const struct stream *s,
                    const char *p, size_t n)
{
    if (!j->opt.tag_output) {
        write_out(s->dest, p, n);
        return;
    }
    static char *scratch;
    static size_t scratch_cap;
    char prefix[24];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", pe->rank);
    size_t lines = 2;
    for (const char *q = p; (q = memchr(q, '\n', (size_t)(p + n - q))); q++)
        lines++;
    size_t need = n + lines * ((size_t)plen + 1);
    if (need > scratch_cap) {
        free(scratch);
        scratch = malloc(need);
        scratch_cap = scratch ? need : 0;
        if (!scratch)
            return;
    }
    char *o = scratch;
    if (open_line && open_line != s && open_line->dest == s->dest) {
        *o++ = '\n';
        open_line = NULL;
    }
    bool line_start = open_line != s;
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (line_start) {
            memcpy(o, prefix, (size_t)plen);
            o += plen;
        }
        memcpy(o, p, k);
        o += k;
        p += k;
        line_start = nl != NULL;
        if (nl) {
            *o++ = '\n';
            p++;
        }
    }
    if (line_start && open_line == s)
        open_line = NULL;
    else if (!line_start)
        open_line = s;
    write_out(s->dest, scratch, (size_t)(o - scratch));
}

void stream_flush_close(struct job *j, struct pe *pe, struct stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len)
        pass_on(j, pe, s, s->buf, s->len);
    if (open_line == s) { /* the next prefix must start a line */
        write_out(s->dest, "\n", 1);
        open_line = NULL;
    }
    close(s->fd);
    s->fd = -1;
    if (s->file >= 0)
        close(s->file);
    s->file = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
    s->held_since = 0;
}

/* Reads what the pipe has (once, or until it is empty when drain is set) and
 * passes on every complete line. A partial line waits PARTIAL_GRACE_S for the
 * rest of it (streams_flush_held), so that a line written in pieces stays whole
 * while "\rprogress 3/10" still shows as it is printed. */
void stream_read(struct job *j, struct pe *pe, struct stream *s, bool drain)
{
    if (s->fd < 0)
        return;
    if (!s->buf && !(s->buf = malloc(STREAM_BUF)))
        return;
    int reads = 0;
    do {
        ssize_t n = read(s->fd, s->buf + s->len, STREAM_BUF - s->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n <= 0) {
            stream_flush_close(j, pe, s);
            return;
        }
        if (s->file >= 0)
            write_out(s->file, s->buf + s->len, (size_t)n);
        s->len += (size_t)n;
        const char *nl = memrchr(s->buf, '\n', s->len);
        size_t k = nl ? (size_t)(nl - s->buf) + 1 : s->len == STREAM_BUF ? s->len : 0;
        if (k) {
            pass_on(j, pe, s, s->buf, k);
            memmove(s->buf, s->buf + k, s->len - k);
            s->len -= k;
        }
        s->held_since = s->len ? (s->held_since ? s->held_since : now_s()) : 0;
    } while (drain && ++reads < DRAIN_READS_MAX);
}

static double flush_held(struct job *j, struct pe *pe, struct stream *s, double now)
{
    if (!s->held_since)
        return 0;
    if (now - s->held_since < PARTIAL_GRACE_S)
        return s->held_since + PARTIAL_GRACE_S;
    pass_on(j, pe, s, s->buf, s->len);
    s->len = 0;
    s->held_since = 0;
    return 0;
}

double streams_flush_held(struct job *j, double now)
{
    double next = 0;
    for (int r = 0; r < j->size; r++) {
        double a = flush_held(j, &j->pes[r], &j->pes[r].out, now);
        double b = flush_held(j, &j->pes[r], &j->pes[r].err, now);
        if (a && (!next || a < next))
            next = a;
        if (b && (!next || b < next))
            next = b;
    }
    return next;
}

/* The chunk is done once every open pipe has taken it; then stdin is read again. */
static void stdin_chunk_done(struct job *j)
{
    for (int r = 0; r < j->size; r++)
        if (j->pes[r].stdin_fd >= 0 && j->pes[r].stdin_off < j->stdin_len)
            return;
    j->stdin_len = 0;
    for (int r = 0; r < j->size; r++)
        j->pes[r].stdin_off = 0;
}

void stdin_close(struct job *j, struct pe *pe)
{
    if (pe->stdin_fd < 0)
        return;
    close(pe->stdin_fd);
    pe->stdin_fd = -1;
    j->stdin_readers--;
    stdin_chunk_done(j);
}

void stdin_close_all(struct job *j)
{
    for (int r = 0; r < j->size; r++)
        stdin_close(j, &j->pes[r]);
    j->stdin_len = 0;
    free(j->stdin_buf);
    j->stdin_buf = NULL;
}

void stdin_write(struct job *j, struct pe *pe)
{
    while (pe->stdin_fd >= 0 && pe->stdin_off < j->stdin_len) {
        ssize_t n = write(pe->stdin_fd, j->stdin_buf + pe->stdin_off,
                          j->stdin_len - pe->stdin_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n < 0) { /* the PE closed its stdin or is gone */
            stdin_close(j, pe);
            return;
        }
        pe->stdin_off += (size_t)n;
    }
    stdin_chunk_done(j);
}

/* Called when oshrun's stdin is readable and the previous chunk is all passed on. */
void stdin_read(struct job *j)
{
    if (!j->stdin_buf && !(j->stdin_buf = malloc(STDIN_BUF)))
        return;
    ssize_t n = read(0, j->stdin_buf, STDIN_BUF);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        stdin_close_all(j); /* the PEs see end of file too */
        return;
    }
    j->stdin_len = (size_t)n;
    for (int r = 0; r < j->size && j->stdin_len; r++)
        if (j->pes[r].stdin_fd >= 0)
            stdin_write(j, &j->pes[r]);
}
