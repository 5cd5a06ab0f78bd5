/* Fuzz target: what a PE reads from a PMI-1 or PMI-2 launcher (src/bootstrap/
 * pmi_wire.c, used by boot_pmi.c). Input: a byte whose low bit picks the protocol,
 * a byte that sets the reply buffer's size, then the bytes the launcher sends. The
 * replies are taken one by one as boot_pmi.c takes them, and each is read for the
 * fields a PE looks at; every answer is checked against a second, plainer reading. */
#include "pmi_wire.h"
#include "fuzz_check.h"

#include <stdint.h>
#include <string.h>

#define REPLY_MAX 2048

/* A PMI-2 header the plain way: blanks, 1 to 6 digits, blanks, 6 characters in all. */
static long ref_header(const char *h)
{
    int i = 0;
    while (i < 6 && h[i] == ' ')
        i++;
    int start = i;
    long v = 0;
    while (i < 6 && h[i] >= '0' && h[i] <= '9')
        v = v * 10 + (h[i++] - '0');
    if (i == start)
        return -1;
    while (i < 6 && h[i] == ' ')
        i++;
    return i == 6 ? v : -1;
}

static void check_take(int version, const char *buf, size_t n, char *out, size_t len, long r)
{
    if (version == 1) {
        const char *nl = memchr(buf, '\n', n);
        size_t at = nl ? (size_t)(nl - buf) : n;
        if (nl && at < len) {
            FUZZ_CHECK(r == (long)at + 1);
            FUZZ_CHECK(!memcmp(out, buf, at) && out[at] == 0);
        } else if (n >= len) {
            FUZZ_CHECK(r == SHOAL_PMI_TOO_LONG);
        } else {
            FUZZ_CHECK(r == 0);
        }
        return;
    }
    if (n < 6) {
        FUZZ_CHECK(r == 0);
        return;
    }
    long k = ref_header(buf);
    if (k < 0)
        FUZZ_CHECK(r == SHOAL_PMI_BAD_HEADER);
    else if ((size_t)k >= len)
        FUZZ_CHECK(r == SHOAL_PMI_TOO_LONG);
    else if (n < 6 + (size_t)k)
        FUZZ_CHECK(r == 0);
    else {
        FUZZ_CHECK(r == 6 + k);
        FUZZ_CHECK(!memcmp(out, buf + 6, (size_t)k) && out[k] == 0);
    }
}

/* The field key of msg the plain way: cut msg into fields at sep (";;" is a ';'
 * inside a PMI-2 value), take the first that begins "key=". Returns its value's
 * length (the value in val), or -1. */
static long ref_field(const char *msg, char sep, const char *key, char *val)
{
    size_t klen = strlen(key);
    const char *p = msg;
    for (;;) {
        char f[REPLY_MAX + 1];
        size_t o = 0;
        const char *q = p;
        while (*q && !(*q == sep && !(sep == ';' && q[1] == ';'))) {
            f[o++] = *q;
            q += *q == ';' && sep == ';' ? 2 : 1;
        }
        f[o] = 0;
        /* A key never holds a ';', so the raw field and the decoded one begin alike. */
        if (!strncmp(p, key, klen) && p[klen] == '=') {
            size_t skip = klen + 1;
            memcpy(val, f + skip, o - skip + 1);
            return (long)(o - skip);
        }
        if (!*q)
            return -1;
        p = q + 1;
        if (!*p)
            return -1;
    }
}

/* A number the plain way: -?[0-9]+ whose value lies in lo..hi. */
static int ref_number(const char *s, long lo, long hi, long *v)
{
    int neg = *s == '-';
    const char *d = s + neg;
    if (!*d)
        return -1;
    __int128 x = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return -1;
        if (x < ((__int128)1 << 80))
            x = x * 10 + (*d - '0');
    }
    if (neg)
        x = -x;
    if (x < lo || x > hi)
        return -1;
    *v = (long)x;
    return 0;
}

static void check_fields(const char *msg, char sep, size_t len)
{
    static const char *const keys[] = { "cmd",  "rc",          "value",      "size",
                                        "rank", "pmi_version", "vallen_max", "found" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char out[REPLY_MAX + 1], want[REPLY_MAX + 1];
        memset(out, 'Z', sizeof out);
        int rc = shoal_pmi_field(msg, sep, keys[i], out, len);
        long wl = ref_field(msg, sep, keys[i], want);
        if (wl < 0) {
            FUZZ_CHECK(rc == SHOAL_PMI_ABSENT);
            continue;
        }
        if ((size_t)wl >= len) {
            FUZZ_CHECK(rc == SHOAL_PMI_TOO_LONG);
            continue;
        }
        FUZZ_CHECK(rc == 0 && !strcmp(out, want));
        long got = 7, ref = 7;
        int nrc = shoal_pmi_number(out, 0, 2147483647, &got);
        FUZZ_CHECK(nrc == ref_number(out, 0, 2147483647, &ref));
        FUZZ_CHECK(got == (nrc ? 7 : ref));
        nrc = shoal_pmi_number(out, -5, 5, &got);
        FUZZ_CHECK(nrc == ref_number(out, -5, 5, &ref) && (nrc || got == ref));
        unsigned char bytes[REPLY_MAX / 2];
        size_t nb = strlen(out) / 2;
        if (!shoal_pmi_unhex(out, bytes, nb)) {
            /* Accepted: it prints back to the very same text. */
            static const char hex[] = "0123456789abcdef";
            FUZZ_CHECK(strlen(out) == 2 * nb);
            for (size_t b = 0; b < nb; b++)
                FUZZ_CHECK(out[2 * b] == hex[bytes[b] >> 4] &&
                           out[2 * b + 1] == hex[bytes[b] & 15]);
        } else {
            int bad = strlen(out) % 2 != 0;
            for (const char *c = out; *c; c++)
                bad |= !((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'));
            FUZZ_CHECK(bad);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    int version = data[0] & 1 ? 2 : 1;
    /* Small buffers reach the limits with short inputs; 0 stands for boot_pmi.c's. */
    size_t len = data[1] ? data[1] : REPLY_MAX;
    const char *buf = (const char *)data + 2;
    size_t n = size - 2;
    while (n) {
        char out[REPLY_MAX + 1];
        long r = version == 2 ? shoal_pmi2_take(buf, n, out, len)
                              : shoal_pmi1_take(buf, n, out, len);
        check_take(version, buf, n, out, len, r);
        if (r <= 0)
            break;
        FUZZ_CHECK((size_t)r <= n);
        /* The parsers see a reply up to its first NUL, as the C strings they are. */
        check_fields(out, version == 2 ? ';' : ' ', len);
        buf += r;
        n -= (size_t)r;
    }
    return 0;
}
