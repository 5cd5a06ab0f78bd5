/* Environment parsing driven by env_table.h. Shared by the library, oshrun and
 * shoal-info so that all three agree on names, defaults and syntax. */
#include "env.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SHOAL_ENV_ROW_USER(...) SHOAL_ENV_ROW_(SHOAL_ENV_CLASS_USER, __VA_ARGS__)
#define SHOAL_ENV_ROW_LAUNCHER(...) SHOAL_ENV_ROW_(SHOAL_ENV_CLASS_LAUNCHER, __VA_ARGS__)
#define SHOAL_ENV_ROW_FOREIGN(...) SHOAL_ENV_ROW_(SHOAL_ENV_CLASS_FOREIGN, __VA_ARGS__)
#define SHOAL_ENV_ROW_(cls_, name, alias, kind, def, accept, field, help)                    \
    {                                                                                        \
        #name,                                                                               \
        alias,                                                                               \
        SHOAL_ENV_##kind,                                                                    \
        cls_,                                                                                \
        def,                                                                                 \
        accept,                                                                              \
        offsetof(struct shoal_config, field),                                                \
        help                                                                                 \
    },

const struct shoal_env_var shoal_env_vars[] = {
    SHOAL_ENV_USER(SHOAL_ENV_ROW_USER) SHOAL_ENV_LAUNCHER(SHOAL_ENV_ROW_LAUNCHER)
            SHOAL_ENV_FOREIGN(SHOAL_ENV_ROW_FOREIGN)
};
const size_t shoal_env_nvars = sizeof shoal_env_vars / sizeof shoal_env_vars[0];

#define SHOAL_ENV_OTHER_ROW(name, who) { #name, who },
const struct shoal_env_other shoal_env_others[] = { SHOAL_ENV_OTHER(SHOAL_ENV_OTHER_ROW) };
const size_t shoal_env_nothers = sizeof shoal_env_others / sizeof shoal_env_others[0];

/* ceil(0.DIGITS * mult) for the n fraction digits at d, exactly: the digit string
 * is multiplied by mult from its last digit up, like long multiplication on paper,
 * so no digit is lost to floating-point rounding. */
static uint64_t frac_times(const char *d, size_t n, uint64_t mult)
{
    uint64_t carry = 0;
    int inexact = 0;
    while (n--) {
        uint64_t v = (uint64_t)(d[n] - '0') * mult + carry; /* < 10 * 2^40 + carry */
        inexact |= v % 10 != 0;
        carry = v / 10;
    }
    return carry + (uint64_t)inexact;
}

int shoal_parse_size(const char *s, size_t *out)
{
    if (!s)
        return -1;
    while (isspace((unsigned char)*s))
        s++;
    const char *p = s;
    uint64_t whole = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        uint64_t d = (uint64_t)(*p++ - '0');
        if (whole > (UINT64_MAX - d) / 10)
            return -1;
        whole = whole * 10 + d;
        digits++;
    }
    const char *frac = p;
    size_t nfrac = 0;
    if (*p == '.') {
        frac = ++p;
        while (isdigit((unsigned char)*p))
            p++;
        nfrac = (size_t)(p - frac);
        digits += nfrac > 0;
    }
    if (digits == 0)
        return -1;
    unsigned shift = 0;
    switch (*p) {
    case 'k':
    case 'K': shift = 10; break;
    case 'm':
    case 'M': shift = 20; break;
    case 'g':
    case 'G': shift = 30; break;
    case 't':
    case 'T': shift = 40; break;
    default:
        /* No suffix: only trailing white space may follow ("512 " from a script). */
        while (isspace((unsigned char)*p))
            p++;
        if (*p)
            return -1;
    }
    /* The spec lets anything after the first suffix letter be ignored ("20kk" = 20K). */
    uint64_t mult = (uint64_t)1 << shift;
    if (whole > UINT64_MAX / mult)
        return -1;
    uint64_t bytes = whole * mult;
    uint64_t extra = frac_times(frac, nfrac, mult);
    if (bytes > UINT64_MAX - extra || bytes + extra > SIZE_MAX)
        return -1;
    *out = (size_t)(bytes + extra);
    return 0;
}

int shoal_parse_int(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s)
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

int shoal_parse_bool(const char *s)
{
    if (!s || !*s)
        return 0;
    static const char *const off[] = { "0", "no", "false", "off" };
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if (!strcasecmp(s, off[i]))
            return 0;
    return 1;
}

static const char *env_lookup(const struct shoal_env_var *v)
{
    const char *s = getenv(v->name);
    if (!s && v->alias)
        s = getenv(v->alias);
    return s;
}

static const struct shoal_env_var *env_find(const char *name)
{
    for (size_t i = 0; i < shoal_env_nvars; i++)
        if (!strcmp(shoal_env_vars[i].name, name))
            return &shoal_env_vars[i];
    abort(); /* a variable missing from env_table.h is a build bug */
}

const char *shoal_env_value(const char *name)
{
    const struct shoal_env_var *v = env_find(name);
    const char *s = env_lookup(v);
    return s ? s : v->def;
}

const char *shoal_env_get(const char *name)
{
    return env_lookup(env_find(name));
}

/* Is word one of the '|'-separated words of list? */
static int one_of(const char *word, const char *list)
{
    size_t n = strlen(word);
    for (const char *p = list;; p++) {
        const char *bar = p + strcspn(p, "|");
        if ((size_t)(bar - p) == n && !strncmp(p, word, n))
            return 1;
        if (!*bar)
            return 0;
        p = bar;
    }
}

/* Does the stored value at dst lie within v->accept? */
static int accepted(const struct shoal_env_var *v, const void *dst)
{
    if (!v->accept)
        return 1;
    if (v->kind == SHOAL_ENV_STR) {
        const char *s = *(const char *const *)dst;
        return (!*s && !*v->def) || one_of(s, v->accept);
    }
    /* INT: "LO..HI", either end optional */
    long x = *(const long *)dst, lo = LONG_MIN, hi = LONG_MAX;
    const char *dots = strstr(v->accept, "..");
    if (dots != v->accept)
        lo = strtol(v->accept, NULL, 10);
    if (dots[2])
        hi = strtol(dots + 2, NULL, 10);
    return x >= lo && x <= hi;
}

/* Stores s into cfg; -1 when it does not parse or (check_accept) lies outside ACCEPT. */
static int env_store(const struct shoal_env_var *v, const char *s, struct shoal_config *cfg,
                     int check_accept)
{
    void *dst = (char *)cfg + v->offset;
    int rc = -1;
    switch (v->kind) {
    case SHOAL_ENV_BOOL: *(int *)dst = shoal_parse_bool(s); return 0;
    case SHOAL_ENV_SIZE: return shoal_parse_size(s, (size_t *)dst);
    case SHOAL_ENV_INT: rc = shoal_parse_int(s, (long *)dst); break;
    case SHOAL_ENV_STR:
        *(const char **)dst = *s || !v->accept ? s : v->def;
        rc = 0;
        break;
    }
    return rc ? rc : !check_accept || accepted(v, dst) ? 0 : -1;
}

/* What v accepts, in words, into buf. */
static const char *syntax(const struct shoal_env_var *v, char *buf, size_t len)
{
    switch (v->kind) {
    case SHOAL_ENV_BOOL: return "any value turns it on; 0, no, false or off turn it off";
    case SHOAL_ENV_SIZE:
        return "a number of bytes with an optional K, M, G or T suffix, e.g. 512M or 1.5G";
    case SHOAL_ENV_INT:
        if (!v->accept)
            return "a decimal integer";
        const char *dots = strstr(v->accept, "..");
        if (dots == v->accept)
            snprintf(buf, len, "a decimal integer of at most %s", dots + 2);
        else if (!dots[2])
            snprintf(buf, len, "a decimal integer of at least %.*s", (int)(dots - v->accept),
                     v->accept);
        else
            snprintf(buf, len, "a decimal integer from %.*s to %s", (int)(dots - v->accept),
                     v->accept, dots + 2);
        return buf;
    case SHOAL_ENV_STR:
        if (!v->accept)
            return "any text";
        snprintf(buf, len, "one of ");
        for (const char *p = v->accept; *p; p++) {
            size_t n = strlen(buf);
            if (n + 3 < len)
                snprintf(buf + n, len - n, *p == '|' ? ", " : "%c", *p);
        }
        return buf;
    }
    return "";
}

static void bad_value(const struct shoal_env_var *v, const char *s, char *err, size_t errlen)
{
    char what[160];
    snprintf(err, errlen, "%s=\"%s\" is not valid: expected %s%s",
             getenv(v->name) ? v->name : v->alias, s, syntax(v, what, sizeof what),
             v->cls == SHOAL_ENV_CLASS_FOREIGN
                     ? "; a launcher sets it: start the program directly under the "
                       "launcher, or unset it to run the program alone"
                     : "");
}

int shoal_env_check(const char *name, char *err, size_t errlen)
{
    const struct shoal_env_var *v = env_find(name);
    const char *s = env_lookup(v);
    struct shoal_config scratch;
    if (!s || !env_store(v, s, &scratch, 1))
        return 0;
    bad_value(v, s, err, errlen);
    return -1;
}

int shoal_env_load(struct shoal_config *cfg, char *err, size_t errlen)
{
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        if (env_store(v, v->def, cfg, 0))
            abort(); /* a default in env_table.h that does not parse is a build bug */
        const char *s = env_lookup(v);
        if (!s)
            continue;
        if (env_store(v, s, cfg, 1)) {
            env_store(v, v->def, cfg, 0);
            if (v->cls == SHOAL_ENV_CLASS_FOREIGN && !v->accept)
                continue;
            bad_value(v, s, err, errlen);
            return -1;
        }
    }
    return 0;
}

static void print_value(FILE *out, const struct shoal_env_var *v,
                        const struct shoal_config *cfg)
{
    const void *src = (const char *)cfg + v->offset;
    switch (v->kind) {
    case SHOAL_ENV_BOOL: fprintf(out, "%s", *(const int *)src ? "on" : "off"); break;
    case SHOAL_ENV_SIZE: fprintf(out, "%zu", *(const size_t *)src); break;
    case SHOAL_ENV_INT: fprintf(out, "%ld", *(const long *)src); break;
    case SHOAL_ENV_STR:
        fprintf(out, "%s", *(const char *const *)src ? *(const char *const *)src : "");
        break;
    }
}

static int known_name(const char *name, size_t len)
{
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        if ((strlen(v->name) == len && !strncmp(v->name, name, len)) ||
            (v->alias && strlen(v->alias) == len && !strncmp(v->alias, name, len)))
            return 1;
    }
    for (size_t i = 0; i < shoal_env_nothers; i++) {
        const char *o = shoal_env_others[i].name;
        size_t n = strlen(o);
        if (o[n - 1] == '_' ? len >= n && !strncmp(name, o, n)
                            : n == len && !strncmp(name, o, n))
            return 1;
    }
    return 0;
}

/* Edit distance between a[0..la) and b, with adjacent swaps counting one (DEBG
 * and DEBUG are 1 apart, SYMMETRIC_SZIE and SYMMETRIC_SIZE too). */
static size_t distance(const char *a, size_t la, const char *b)
{
    size_t lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] +
                    (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

int shoal_env_warn_unknown(FILE *out, char *const *env)
{
    int count = 0;
    for (; env && *env; env++) {
        const char *e = *env;
        if (strncmp(e, "SHMEM_", 6) && strncmp(e, "SHOAL_", 6) && strncmp(e, "SMA_", 4))
            continue;
        size_t len = strcspn(e, "=");
        if (known_name(e, len))
            continue;
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        for (size_t i = 0; i < shoal_env_nvars; i++) {
            const struct shoal_env_var *v = &shoal_env_vars[i];
            if (v->cls == SHOAL_ENV_CLASS_FOREIGN)
                continue;
            size_t d = distance(e, len, v->name);
            if (d < best_d) {
                best_d = d;
                best = v->name;
            }
        }
        /* Close enough to be a typo: a few edits, fewer than a third of the name. */
        if (best && best_d <= 3 && best_d * 3 <= len)
            fprintf(out,
                    "shoal: warning: %.*s is not a variable Shoal reads; did you mean %s? "
                    "(shoal-info --env lists them)\n",
                    (int)len, e, best);
        else
            fprintf(out,
                    "shoal: warning: %.*s is not a variable Shoal reads; shoal-info --env "
                    "lists them\n",
                    (int)len, e);
        count++;
    }
    return count;
}

void shoal_env_print(FILE *out, const struct shoal_config *cfg, int with_internal)
{
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        if (v->cls != SHOAL_ENV_CLASS_USER && !with_internal)
            continue;
        fprintf(out, "  %-24s ", v->name);
        if (cfg) {
            print_value(out, v, cfg);
            fprintf(out, "%s", env_lookup(v) ? "" : " (default)");
        } else {
            fprintf(out, "default %s", v->def);
        }
        fprintf(out, "\n      %s%s%s\n", v->help, v->alias ? "; deprecated alias " : "",
                v->alias ? v->alias : "");
    }
}
