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
#define SHOAL_ENV_ROW_CX(...) SHOAL_ENV_ROW_(SHOAL_ENV_CLASS_CX, __VA_ARGS__)
#define SHOAL_ENV_ROW_(cls_, name, alias, kind, def, accept, field, help)                    \
    {                                                                                        \
        #name,                                                                               \
        alias,                                                                               \
        SHOAL_ENV_##kind,                                                                    \
        cls_,                                                                                \
        def,                                                                                 \
        accept,                                                                              \
        offsetof(struct shoal_config, field),                                                \
        help,                                                                                \
        NULL                                                                                 \
    },
/* Spellings and not-applicable rows have no field: nothing is stored for them. */
#define SHOAL_ENV_ROW_SPELLING(name, same)                                                   \
    { #name,                                                                                 \
      NULL,                                                                                  \
      SHOAL_ENV_STR,                                                                         \
      SHOAL_ENV_CLASS_SPELLING,                                                              \
      "",                                                                                    \
      NULL,                                                                                  \
      0,                                                                                     \
      "Cray OpenSHMEMX's name of " #same,                                                    \
      #same },
#define SHOAL_ENV_ROW_NA(name, why)                                                          \
    { #name, NULL, SHOAL_ENV_STR, SHOAL_ENV_CLASS_NA, "", NULL, 0, why, NULL },

const struct shoal_env_var shoal_env_vars[] = {
    SHOAL_ENV_USER(SHOAL_ENV_ROW_USER) SHOAL_ENV_LAUNCHER(SHOAL_ENV_ROW_LAUNCHER)
            SHOAL_ENV_FOREIGN(SHOAL_ENV_ROW_FOREIGN) SHOAL_ENV_CX(SHOAL_ENV_ROW_CX)
                    SHOAL_ENV_CX_SPELLING(SHOAL_ENV_ROW_SPELLING)
                            SHOAL_ENV_CX_NA(SHOAL_ENV_ROW_NA)
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

/* v's value: under its name, else another spelling of it, else its deprecated
 * alias; *found (when not NULL) is the name it was set under. */
static const char *env_lookup_as(const struct shoal_env_var *v, const char **found)
{
    const char *name = v->name, *s = getenv(name);
    for (size_t i = 0; !s && i < shoal_env_nvars; i++) {
        const struct shoal_env_var *o = &shoal_env_vars[i];
        if (o->same_as && !strcmp(o->same_as, v->name) && (s = getenv(o->name)))
            name = o->name;
    }
    if (!s && v->alias && (s = getenv(v->alias)))
        name = v->alias;
    if (found)
        *found = name;
    return s;
}

static const char *env_lookup(const struct shoal_env_var *v)
{
    return env_lookup_as(v, NULL);
}

/* Rows that hold a value of their own (spellings and not-applicable ones do not). */
static int has_field(const struct shoal_env_var *v)
{
    return v->cls != SHOAL_ENV_CLASS_SPELLING && v->cls != SHOAL_ENV_CLASS_NA;
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
    const char *name;
    env_lookup_as(v, &name);
    snprintf(err, errlen, "%s=\"%s\" is not valid: expected %s%s", name, s,
             syntax(v, what, sizeof what),
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
        if (!has_field(v))
            continue;
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

static int was_carried(const char *name);

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
    enum shoal_env_class last = SHOAL_ENV_CLASS_USER;
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        int extra = v->cls == SHOAL_ENV_CLASS_SPELLING || v->cls == SHOAL_ENV_CLASS_NA;
        if ((v->cls == SHOAL_ENV_CLASS_LAUNCHER || v->cls == SHOAL_ENV_CLASS_FOREIGN) &&
            !with_internal)
            continue;
        if (extra && !with_internal && !cfg)
            continue;
        if (v->cls != last && v->cls >= SHOAL_ENV_CLASS_CX)
            fprintf(out, "  %s:\n",
                    v->cls == SHOAL_ENV_CLASS_CX ? "Cray OpenSHMEMX's variables"
                            : v->cls == SHOAL_ENV_CLASS_SPELLING ? "Cray OpenSHMEMX's names "
                                                                   "of Shoal's variables"
                                                                 : "Cray OpenSHMEMX's "
                                                                   "variables accepted, not "
                                                                   "applicable here");
        last = v->cls;
        fprintf(out, "  %-24s ", v->name);
        if (extra) {
            const char *s = getenv(v->name);
            fprintf(out, "%s", !cfg ? "" : s ? s : "(unset)");
            fprintf(out, "\n      %s%s\n",
                    v->cls == SHOAL_ENV_CLASS_NA ? "not applicable here: " : "", v->help);
            continue;
        }
        if (cfg) {
            print_value(out, v, cfg);
            fprintf(out, "%s",
                    env_lookup(v)                  ? ""
                            : was_carried(v->name) ? " (from Cray OpenSHMEMX's variables)"
                                                   : " (default)");
        } else {
            fprintf(out, "default %s", v->def);
        }
        fprintf(out, "\n      %s%s%s", v->help, v->alias ? "; deprecated alias " : "",
                v->alias ? v->alias : "");
        for (size_t j = 0; j < shoal_env_nvars; j++)
            if (shoal_env_vars[j].same_as && !strcmp(shoal_env_vars[j].same_as, v->name))
                fprintf(out, "; also %s (Cray OpenSHMEMX)", shoal_env_vars[j].name);
        fprintf(out, "\n");
    }
}

FILE *shoal_error_stream(void)
{
    return strcmp(shoal_env_value("SHMEM_ERROR_FILE"), "stdout") ? stderr : stdout;
}

int shoal_env_is_set(const char *name)
{
    return env_lookup(env_find(name)) != NULL;
}

const char *shoal_env_set_as(const char *name)
{
    const char *found;
    return env_lookup_as(env_find(name), &found) ? found : name;
}

/* Calls each(lo, hi, arg) for every item of a comma list of numbers and ranges
 * ("0,3,5-7", spaces allowed around items) in s[0..n); -1 when malformed or each
 * refuses. */
static int each_in_list(const char *s, size_t n, int (*each)(long, long, void *), void *arg)
{
    const char *p = s, *end = s + n;
    do {
        while (p < end && *p == ' ')
            p++;
        char *q;
        if (p >= end || !isdigit((unsigned char)*p))
            return -1;
        long lo = strtol(p, &q, 10), hi = lo;
        if (q < end && *q == '-') {
            if (q + 1 >= end || !isdigit((unsigned char)q[1]))
                return -1;
            hi = strtol(q + 1, &q, 10);
        }
        while (q < end && *q == ' ')
            q++;
        if (hi < lo || lo > INT_MAX || hi > INT_MAX || (q < end && *q != ',') ||
            each(lo, hi, arg))
            return -1;
        p = q + 1;
    } while (p <= end && p[-1] == ',');
    return 0;
}

static int has_pe(long lo, long hi, void *arg)
{
    int *pe = arg;
    if (*pe >= lo && *pe <= hi)
        *pe = -1; /* found */
    return 0;
}

int shoal_pe_list_has(const char *list, int pe)
{
    int probe = pe;
    if (each_in_list(list, strlen(list), has_pe, &probe))
        return -1;
    return probe == -1 && pe >= 0;
}

int shoal_parse_smp_limit(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s)
        return -1;
    long long mult = *end == 'k' || *end == 'K' ? 1LL << 10
            : *end == 'm' || *end == 'M'        ? 1LL << 20
                                                : 1;
    end += mult > 1;
    if (*end || v > LLONG_MAX / mult || v < LLONG_MIN / mult)
        return -1;
    *out = v < 0 ? -1 : v * mult;
    return 0;
}

/* The NIC indices of SHMEM_OFI_NUM_NICS's list, distinct. */
struct nic_seen {
    uint64_t bits;
    long count;
};

static int nic_index(long lo, long hi, void *arg)
{
    struct nic_seen *n = arg;
    for (long i = lo; i <= hi; i++) {
        if (i > 63 || (n->bits >> i & 1))
            return -1;
        n->bits |= UINT64_C(1) << i;
        n->count++;
    }
    return 0;
}

/* SHMEM_OFI_NIC_MAPPING's local PEs, each once: the ranges seen so far. */
struct pe_ranges {
    long lo[256], hi[256];
    int n;
};

static int pe_range(long lo, long hi, void *arg)
{
    struct pe_ranges *r = arg;
    for (int i = 0; i < r->n; i++)
        if (lo <= r->hi[i] && r->lo[i] <= hi)
            return -1;
    if (r->n == 256)
        return -1;
    r->lo[r->n] = lo;
    r->hi[r->n++] = hi;
    return 0;
}

/* Parses SHMEM_OFI_NIC_MAPPING ("0:0-7; 2:8-31") into r; -1 with why in err. */
static int parse_nic_mapping(const char *s, long nics, struct pe_ranges *r, char *err,
                             size_t errlen)
{
    r->n = 0;
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, ";");
        char *colon;
        while (*p == ' ')
            p++, n--;
        if (!n) { /* an empty entry: "0:0-7; " */
            p += *p == ';';
            continue;
        }
        long nic = strtol(p, &colon, 10);
        if (colon == p || *colon != ':' || nic < 0 || (size_t)(colon - p) > n) {
            snprintf(err, errlen,
                     "SHMEM_OFI_NIC_MAPPING=\"%s\" is not valid: expected NIC:local PEs "
                     "entries separated by ';', e.g. \"0:0-7; 1:8-15\"",
                     s);
            return -1;
        }
        if (nics > 0 && nic >= nics) {
            snprintf(err, errlen,
                     "SHMEM_OFI_NIC_MAPPING=\"%s\" names NIC %ld, but SHMEM_OFI_NUM_NICS "
                     "allows %ld (NICs 0 to %ld)",
                     s, nic, nics, nics - 1);
            return -1;
        }
        if (each_in_list(colon + 1, n - (size_t)(colon + 1 - p), pe_range, r)) {
            snprintf(err, errlen,
                     "SHMEM_OFI_NIC_MAPPING=\"%s\" is not valid: each NIC's local PEs are a "
                     "comma list of numbers and ranges (0,2-5), and no PE is mapped twice",
                     s);
            return -1;
        }
        p += n + (p[n] == ';');
    }
    return 0;
}

/* SHMEM_OFI_NUM_NICS: "2" or "2:1,3"; the count, or -1 with why in err. */
static long parse_num_nics(const char *s, char *err, size_t errlen)
{
    char *end;
    long n = strtol(s, &end, 10);
    struct nic_seen seen = { 0, 0 };
    if (end != s && n >= 1 && n <= 64 &&
        (!*end ||
         (*end == ':' && !each_in_list(end + 1, strlen(end + 1), nic_index, &seen) &&
          seen.count == n)))
        return n;
    snprintf(err, errlen,
             "SHMEM_OFI_NUM_NICS=\"%s\" is not valid: expected a count of NICs from 1 to 64, "
             "optionally with as many distinct NIC indices: 2 or 2:1,3",
             s);
    return -1;
}

/* Shoal's variables that shoal_env_cx_apply set from Cray OpenSHMEMX's, for the
 * display. */
static const char *carried[8];
static size_t ncarried;

/* Whether Shoal's own variable name is unset, so that a CX variable may set its
 * value; noted for the display when it does. */
static int carry(const char *name)
{
    if (shoal_env_is_set(name))
        return 0;
    for (size_t i = 0; i < ncarried; i++)
        if (!strcmp(carried[i], name))
            return 1;
    if (ncarried < sizeof carried / sizeof carried[0])
        carried[ncarried++] = name;
    return 1;
}

static int was_carried(const char *name)
{
    for (size_t i = 0; i < ncarried; i++)
        if (!strcmp(carried[i], name))
            return 1;
    return 0;
}

static const char *const coll_names[] = { "barrier",   "broadcast", "reduce",  "alltoall",
                                          "alltoalls", "collect",   "fcollect" };

/* SHMEM_COLL_OPT_OFF onto the SHOAL_COLL_* knobs that are not set themselves. */
static int coll_opt_off(struct shoal_config *cfg, char *err, size_t errlen)
{
    const char *s = cfg->coll_opt_off;
    if (!*s || !strcmp(s, "0"))
        return 0;
    int all = !strcmp(s, "1") || !strcasecmp(s, "all");
    int off[sizeof coll_names / sizeof coll_names[0]] = { 0 };
    for (const char *p = s; !all && *p;) {
        size_t n = strcspn(p, ","), k;
        for (k = 0; k < sizeof coll_names / sizeof coll_names[0]; k++)
            if (strlen(coll_names[k]) == n && !strncasecmp(p, coll_names[k], n))
                break;
        if (k == sizeof coll_names / sizeof coll_names[0]) {
            snprintf(err, errlen,
                     "SHMEM_COLL_OPT_OFF=\"%s\": \"%.*s\" is not a collective Shoal knows; "
                     "use 1 (all) or a comma list of barrier, broadcast, reduce, alltoall, "
                     "alltoalls, collect, fcollect",
                     s, (int)n, p);
            return -1;
        }
        off[k] = 1;
        p += n + (p[n] == ',');
    }
    /* The node-aware step serves barriers, broadcasts and reductions alike. */
    if ((all || off[0] || off[1] || off[2]) && carry("SHOAL_COLL_NODE_AWARE"))
        cfg->coll_node_aware = 0;
    if ((all || off[1]) && carry("SHOAL_COLL_BCAST_RING_MIN"))
        cfg->coll_bcast_ring_min = SIZE_MAX;
    if ((all || off[2]) && carry("SHOAL_COLL_REDUCE_RSAG_MIN"))
        cfg->coll_reduce_rsag_min = SIZE_MAX;
    if ((all || off[4]) && carry("SHOAL_COLL_ALLTOALLS_PACK_MIN"))
        cfg->coll_alltoalls_pack_min = LONG_MAX;
    return 0;
}

int shoal_env_cx_apply(struct shoal_config *cfg, char *err, size_t errlen)
{
    if (*cfg->ofi_progress && carry("SHMEM_OFI_PROGRESS_THREAD"))
        cfg->ofi_progress_thread = strcasecmp(cfg->ofi_progress, "manual") ? "off" : "on";
    long long smp;
    if (shoal_parse_smp_limit(cfg->smp_size_limit, &smp)) {
        snprintf(err, errlen,
                 "SHMEM_SMP_SIZE_LIMIT=\"%s\" is not valid: expected a number of bytes with "
                 "an optional K or M suffix (0: every transfer through the network), or a "
                 "negative number (no limit)",
                 cfg->smp_size_limit);
        return -1;
    }
    if ((!cfg->locality_onnode || smp == 0) && carry("SHOAL_NODE_MAP"))
        cfg->node_map = "pe";
    if (!cfg->locality_onnode && !cfg->locality_offnode) {
        snprintf(err, errlen,
                 "SHMEM_LOCALITY_ONNODE=0 and SHMEM_LOCALITY_OFFNODE=0 leave no path between "
                 "PEs; unset one of them");
        return -1;
    }
    if (coll_opt_off(cfg, err, errlen))
        return -1;
    long nics = 0;
    if (*cfg->ofi_num_nics && (nics = parse_num_nics(cfg->ofi_num_nics, err, errlen)) < 0)
        return -1;
    int user = !strcasecmp(cfg->ofi_nic_policy, "user");
    if (user != !!*cfg->ofi_nic_mapping) {
        snprintf(
                err, errlen,
                user ? "SHMEM_OFI_NIC_POLICY=USER needs SHMEM_OFI_NIC_MAPPING (NIC:local PEs "
                       "entries, e.g. \"0:0-7; 1:8-15\")"
                     : "SHMEM_OFI_NIC_MAPPING is set, but applies only with "
                       "SHMEM_OFI_NIC_POLICY=USER; set that, or unset the mapping");
        return -1;
    }
    struct pe_ranges r;
    if (user && parse_nic_mapping(cfg->ofi_nic_mapping, nics, &r, err, errlen))
        return -1;
    return 0;
}

int shoal_env_cx_check_local(const struct shoal_config *cfg, int local_pes, char *err,
                             size_t errlen)
{
    if (strcasecmp(cfg->ofi_nic_policy, "user"))
        return 0;
    for (int pe = 0; pe < local_pes; pe++) {
        /* Each entry's PE list after its "NIC:". */
        int found = 0;
        for (const char *p = cfg->ofi_nic_mapping; *p && !found;) {
            size_t n = strcspn(p, ";");
            const char *colon = memchr(p, ':', n);
            int probe = pe;
            if (colon &&
                !each_in_list(colon + 1, n - (size_t)(colon + 1 - p), has_pe, &probe))
                found = probe == -1;
            p += n + (p[n] == ';');
        }
        if (!found) {
            snprintf(err, errlen,
                     "SHMEM_OFI_NIC_MAPPING=\"%s\" maps no NIC for local PE %d of this "
                     "node's %d; map every local PE",
                     cfg->ofi_nic_mapping, pe, local_pes);
            return -1;
        }
    }
    return 0;
}

int shoal_env_warn_na(FILE *out, const struct shoal_config *cfg)
{
    int count = 0;
    for (size_t i = 0; i < shoal_env_nvars; i++) {
        const struct shoal_env_var *v = &shoal_env_vars[i];
        if (v->cls == SHOAL_ENV_CLASS_NA && getenv(v->name)) {
            fprintf(out,
                    "shoal: warning: %s is a Cray OpenSHMEMX variable that does not apply "
                    "here (%s); it is ignored\n",
                    v->name, v->help);
            count++;
        }
    }
    long long smp;
    if (!shoal_parse_smp_limit(cfg->smp_size_limit, &smp) && smp > 0) {
        fprintf(out,
                "shoal: warning: SHMEM_SMP_SIZE_LIMIT=%s does not apply here: same-node "
                "transfers of every size are load/store copies (0 sends them all through "
                "the network)\n",
                cfg->smp_size_limit);
        count++;
    }
    if (cfg->num_team_psync > 62) {
        fprintf(out,
                "shoal: warning: SHMEM_NUM_TEAM_PSYNC=%ld: Shoal keeps at most 62 teams "
                "alive besides SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED\n",
                cfg->num_team_psync);
        count++;
    }
    return count;
}
