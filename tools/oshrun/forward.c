/* Passing the PEs' output on, and oshrun's input in. Output goes out in whole
 * lines so that lines of different PEs never mix; a line longer than the buffer
 * is passed on in pieces. */
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

/* Writes all of p to oshrun's stdout or stderr. Output nobody reads any more
 * (EPIPE) is dropped: the job itself must go on. */
static void write_out(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {          /* someone made our stdout non-blocking */
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

/* Passes on n bytes of whole lines; with --tag-output each gets its "[PE] " prefix,
 * and a final piece without a newline gets one so the next prefix starts a line. */
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
    size_t lines = 1;
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
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t k = nl ? (size_t)(nl - p) : (size_t)(end - p);
        memcpy(o, prefix, (size_t)plen);
        memcpy(o + plen, p, k);
        o += (size_t)plen + k;
        *o++ = '\n';
        p += k + 1;
    }
    write_out(s->dest, scratch, (size_t)(o - scratch));
}

void stream_flush_close(struct job *j, struct pe *pe, struct stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len)
        pass_on(j, pe, s, s->buf, s->len);
    close(s->fd);
    s->fd = -1;
    free(s->buf);
    s->buf = NULL;
    s->len = 0;
}

/* Reads what the pipe has (once, or until it is empty when drain is set) and
 * passes on every complete line. */
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
        s->len += (size_t)n;
        const char *nl = memrchr(s->buf, '\n', s->len);
        size_t k = nl ? (size_t)(nl - s->buf) + 1 : s->len == STREAM_BUF ? s->len : 0;
        if (k) {
            pass_on(j, pe, s, s->buf, k);
            memmove(s->buf, s->buf + k, s->len - k);
            s->len -= k;
        }
    } while (drain && ++reads < DRAIN_READS_MAX);
}

void stdin_close(struct job *j)
{
    if (j->stdin_pipe >= 0)
        close(j->stdin_pipe);
    j->stdin_pipe = -1;
    j->stdin_len = j->stdin_off = 0;
    free(j->stdin_buf);
    j->stdin_buf = NULL;
}

void stdin_write(struct job *j)
{
    while (j->stdin_off < j->stdin_len) {
        ssize_t n = write(j->stdin_pipe, j->stdin_buf + j->stdin_off, j->stdin_len - j->stdin_off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        if (n < 0) {            /* the PE closed its stdin or is gone */
            stdin_close(j);
            return;
        }
        j->stdin_off += (size_t)n;
    }
    j->stdin_len = j->stdin_off = 0;
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
        stdin_close(j);         /* the PE sees end of file too */
        return;
    }
    j->stdin_len = (size_t)n;
    j->stdin_off = 0;
    stdin_write(j);
}
