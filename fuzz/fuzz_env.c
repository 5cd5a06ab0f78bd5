/* Fuzz target: the environment value parsers (src/env/env.c) and the loader
 * that reports a bad value, the launchers' PMI_* and PMIX_* numbers among them. The input is one value; the first byte also picks
 * which table variable shoal_env_load sees it in. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "env.h"
#include "fuzz_check.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A second, slower reading of SHMEM_SYMMETRIC_SIZE syntax in 128-bit integers.
 * Returns 1 and sets *v when s is valid, 0 when not, -1 when s has too many
 * digits for 128 bits (no opinion). */
static int reference_size(const char *s, uint64_t *v)
{
    while (isspace((unsigned char)*s))
        s++;
    unsigned __int128 whole = 0, frac = 0, denom = 1;
    int nwhole = 0, nfrac = 0;
    for (; isdigit((unsigned char)*s); s++, nwhole++)
        whole = whole * 10 + (unsigned)(*s - '0');
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++, nfrac++) {
            frac = frac * 10 + (unsigned)(*s - '0');
            denom *= 10;
        }
    if (nwhole > 25 || nfrac > 19)
        return -1;
    if (nwhole + nfrac == 0)
        return 0;
    const char *suffixes = "kmgt";
    const char *hit = *s ? strchr(suffixes, tolower((unsigned char)*s)) : NULL;
    unsigned shift = hit ? 10 * (unsigned)(hit - suffixes + 1) : 0;
    if (!hit) {
        while (isspace((unsigned char)*s))
            s++;
        if (*s)
            return 0;
    }
    unsigned __int128 bytes =
            (whole << shift) + (frac * ((unsigned __int128)1 << shift) + denom - 1) / denom;
    if (bytes > SIZE_MAX)
        return 0;
    *v = (uint64_t)bytes;
    return 1;
}

static void check_size(const char *s)
{
    size_t got = 7;
    int rc = shoal_parse_size(s, &got);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc)
        FUZZ_CHECK(got == 7); /* a rejected value leaves the output alone */
    uint64_t want;
    int ref = reference_size(s, &want);
    if (ref >= 0) {
        if (ref != (rc == 0))
            fprintf(stderr, "shoal_parse_size(\"%s\") = %d, reference says %s\n", s, rc,
                    ref ? "valid" : "invalid");
        FUZZ_CHECK(ref == (rc == 0));
        if (ref && got != want)
            fprintf(stderr, "shoal_parse_size(\"%s\") = %zu, reference %llu\n", s, got,
                    (unsigned long long)want);
        FUZZ_CHECK(!ref || got == want);
    }
}

static void check_int(const char *s)
{
    long v = 7;
    int rc = shoal_parse_int(s, &v);
    FUZZ_CHECK(rc == 0 || rc == -1);
    if (rc) {
        FUZZ_CHECK(v == 7);
        return;
    }
    /* What was accepted prints back to a string that parses to the same value. */
    char again[32];
    snprintf(again, sizeof again, "%ld", v);
    long w = 0;
    FUZZ_CHECK(shoal_parse_int(again, &w) == 0 && w == v);
}

/* A decimal integer the plain way: blanks, a sign, digits, blanks; 1 and *v when
 * valid and within a long. */
static int reference_int(const char *s, long *v)
{
    while (isspace((unsigned char)*s))
        s++;
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    __int128 x = 0;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++, digits++)
        if (x < ((__int128)1 << 80))
            x = x * 10 + (*s - '0');
    while (isspace((unsigned char)*s))
        s++;
    if (!digits || *s)
        return 0;
    x = neg ? -x : x;
    if (x < LONG_MIN || x > LONG_MAX)
        return 0;
    *v = (long)x;
    return 1;
}

/* Would an INT variable with this ACCEPT take s? */
static int reference_int_accepts(const char *accept, const char *s)
{
    long v;
    if (!reference_int(s, &v))
        return 0;
    if (!accept)
        return 1;
    const char *dots = strstr(accept, "..");
    long lo = dots == accept ? LONG_MIN : strtol(accept, NULL, 10);
    long hi = dots[2] ? strtol(dots + 2, NULL, 10) : LONG_MAX;
    return v >= lo && v <= hi;
}

static void check_load(const struct shoal_env_var *v, const char *value)
{
    struct shoal_config cfg;
    char err[128];
    err[0] = '\0';
    FUZZ_CHECK(setenv(v->name, value, 1) == 0);
    int rc = shoal_env_load(&cfg, err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
    /* A failure names the variable first, even when cut short; another variable
     * of the fuzzer's own environment may be the one that failed. */
    int mine = rc && !strncmp(err, v->name, strlen(v->name));
    if (v->kind == SHOAL_ENV_INT) {
        /* Launchers' numbers that Shoal joins a job with are checked as strictly
         * as a user's; those that only hint at a launcher never fail. */
        int lenient = v->cls == SHOAL_ENV_CLASS_FOREIGN && !v->accept;
        int want = lenient || reference_int_accepts(v->accept, value);
        if (!want)
            FUZZ_CHECK(mine);
        if (mine)
            FUZZ_CHECK(!want);
        if (!rc && want && !lenient) {
            long got = *(const long *)((const char *)&cfg + v->offset), ref = 0;
            FUZZ_CHECK(reference_int(value, &ref) && got == ref);
        }
    }
    unsetenv(v->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char s[4096];
    if (size >= sizeof s)
        size = sizeof s - 1;
    memcpy(s, data, size);
    s[size] = '\0'; /* a value from getenv ends at its first NUL */

    check_size(s);
    check_int(s);
    int b = shoal_parse_bool(s);
    FUZZ_CHECK(b == 0 || b == 1);
    if (size)
        check_load(&shoal_env_vars[(unsigned char)s[0] % shoal_env_nvars], s + 1);
    return 0;
}
