/* See pmi_wire.h. */
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

long shoal_pmi1_take(const char *buf, size_t n, char *out, size_t len)
{
    /* A line that fits out has its newline within the first len bytes. */
    size_t look = n < len ? n : len;
    const char *nl = memchr(buf, '\n', look);
    if (!nl)
        return n >= len ? SHOAL_PMI_TOO_LONG : 0;
    size_t k = (size_t)(nl - buf);
    memcpy(out, buf, k);
    out[k] = 0;
    return (long)k + 1;
}

long shoal_pmi2_take(const char *buf, size_t n, char *out, size_t len)
{
    if (n < 6)
        return 0;
    /* "%-6d" or "%6d": blanks around the digits, nothing else. */
    size_t i = 0, digits = 0, k = 0;
    while (i < 6 && buf[i] == ' ')
        i++;
    for (; i < 6 && buf[i] >= '0' && buf[i] <= '9'; i++, digits++)
        k = k * 10 + (size_t)(buf[i] - '0');
    while (i < 6 && buf[i] == ' ')
        i++;
    if (!digits || i < 6)
        return SHOAL_PMI_BAD_HEADER;
    if (k >= len)
        return SHOAL_PMI_TOO_LONG;
    if (n < 6 + k)
        return 0;
    memcpy(out, buf + 6, k);
    out[k] = 0;
    return (long)(6 + k);
}

int shoal_pmi_field(const char *msg, char sep, const char *key, char *out, size_t len)
{
    size_t klen = strlen(key);
    const char *p = msg;
    while (*p) {
        int at_key = !strncmp(p, key, klen) && p[klen] == '=';
        size_t o = 0;
        /* Walk to the end of this field, copying it out if it is the one. */
        const char *q = at_key ? p + klen + 1 : p;
        for (; *q; q++) {
            char c = *q;
            if (c == sep) {
                if (sep != ';' || q[1] != ';')
                    break;
                q++;
            }
            if (at_key) {
                if (o + 1 >= len)
                    return SHOAL_PMI_TOO_LONG;
                out[o++] = c;
            }
        }
        if (at_key) {
            out[o] = 0;
            return 0;
        }
        p = *q ? q + 1 : q;
    }
    return SHOAL_PMI_ABSENT;
}

int shoal_pmi_number(const char *s, long lo, long hi, long *out)
{
    const char *d = *s == '-' ? s + 1 : s;
    if (*d < '0' || *d > '9')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int shoal_pmi_unhex(const char *s, unsigned char *out, size_t n)
{
    if (strlen(s) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}
