/* Passing the PEs' output on, and oshrun's input in. Output goes out as it
 * arrives, cut at line ends so that lines of different PEs do not mix; a line
 * longer than the buffer, or one left unfinished for a moment, is passed on in
 * pieces, and ended before another PE's text (or a verdict) follows it. */
#include "oshrun.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

void streams_init(struct job *j)
{
    struct stat o, e;
    j->one_dest =
            !fstat(1, &o) && !fstat(2, &e) && o.st_dev == e.st_dev && o.st_ino == e.st_ino;
}

static const struct stream **open_slot(struct job *j, int dest)
{
    return &j->open_line[j->one_dest ? 1 : dest];
}

/* Passes on n > 0 bytes of s. Another PE's line left open on the same
 * destination is ended first (a newline), so that text of two PEs never shares a
 * line; untagged, the PE's own other stream may go on with it, as it would
 * without oshrun. With --tag-output every line starts with its "[PE] " prefix.
 * A piece that ends mid-line leaves the line open for s to go on. */
static void pass_on(struct job *j, const struct pe *pe, const struct stream *s, const char *p,
                    size_t n)
{
    const struct stream **open = open_slot(j, s->dest);
    bool line_start = *open != s;
    bool cut = *open && line_start &&
            (j->opt.tag_output || (*open != &pe->out && *open != &pe->err));
    *open = p[n - 1] == '\n' ? NULL : s;
    if (!j->opt.tag_output) {
        if (cut)
            write_out(s->dest, "\n", 1);
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
    if (cut)
        *o++ = '\n';
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
    write_out(s->dest, scratch, (size_t)(o - scratch));
}

/* Ends the open line on dest, if any. */
static void end_line(struct job *j, int dest)
{
    const struct stream **open = open_slot(j, dest);
    if (*open) {
        write_out((*open)->dest, "\n", 1);
        *open = NULL;
    }
}

/* Passes on the partial line s holds, as it is. */
static void pass_held(struct job *j, struct pe *pe, struct stream *s)
{
    if (s->len)
        pass_on(j, pe, s, s->buf, s->len);
    s->len = 0;
    s->held_since = 0;
}

void stream_flush_close(struct job *j, struct pe *pe, struct stream *s)
{
    if (s->fd < 0)
        return;
    pass_held(j, pe, s);
    /* Tagged, the stream's last line ends with it. Untagged, a single PE's output
     * is passed on as it is; another PE's text still starts a line of its own. */
    if (j->opt.tag_output && *open_slot(j, s->dest) == s)
        end_line(j, s->dest);
    close(s->fd);
    s->fd = -1;
    if (s->file >= 0)
        close(s->file);
    s->file = -1;
    free(s->buf);
    s->buf = NULL;
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
    pass_held(j, pe, s);
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

void streams_settle(struct job *j)
{
    for (int r = 0; r < j->size; r++) {
        struct pe *pe = &j->pes[r];
        stream_read(j, pe, &pe->out, true);
        stream_read(j, pe, &pe->err, true);
        pass_held(j, pe, &pe->out);
        pass_held(j, pe, &pe->err);
    }
    end_line(j, 1);
    end_line(j, 2);
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
