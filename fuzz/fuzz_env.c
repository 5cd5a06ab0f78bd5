/* Fuzz target: the environment value parsers (src/env/env.c) and the loader
 * that reports a bad value. The input is one value; the first byte also picks
 * which table variable shoal_env_load sees it in. */
#define _POSIX_C_SOURCE 200809L /* setenv, unsetenv */
#include "env.h"
#include "fuzz_check.h"

#include <ctype.h>
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

static void check_load(const char *name, const char *value)
{
    struct shoal_config cfg;
    char err[128];
    err[0] = '\0';
    FUZZ_CHECK(setenv(name, value, 1) == 0);
    int rc = shoal_env_load(&cfg, err, sizeof err);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK(memchr(err, '\0', sizeof err) != NULL);
    if (rc) /* the message begins with the variable's name, even when cut short */
        FUZZ_CHECK(!strncmp(err, name, strlen(name)));
    unsetenv(name);
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
        check_load(shoal_env_vars[(unsigned char)s[0] % shoal_env_nvars].name, s + 1);
    return 0;
}
