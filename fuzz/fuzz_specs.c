/* Fuzz target: the parsers of structured settings, SHOAL_NODE_MAP (src/core/
 * node_map.c), SHOAL_LOG and SHOAL_LOG_FILE (src/env/log.c). Input: a byte that
 * picks the PE count (1 to 64), then the value. Each answer is checked against a
 * second, plainer reading. */
#include "core/topology.h"
#include "env/log.h"
#include "fuzz_check.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A node map the plain way: "pe", "block:K" or one number per PE; 0 when valid. */
static int ref_node_map(const char *m, int n, int *node)
{
    if (!strcmp(m, "pe")) {
        for (int i = 0; i < n; i++)
            node[i] = i;
        return 0;
    }
    if (!strncmp(m, "block:", 6)) {
        char *end;
        long k = strtol(m + 6, &end, 10);
        if (end == m + 6 || *end || k < 1)
            return -1;
        for (int i = 0; i < n; i++)
            node[i] = (int)(i / k);
        return 0;
    }
    /* n entries separated by commas, each in 0..n (strtol's leading blanks and sign
     * allowed); a trailing comma is not an entry. */
    const char *p = m;
    for (int i = 0; i < n; i++) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v < 0 || v > n)
            return -1;
        node[i] = (int)v;
        if (i < n - 1) {
            if (*end != ',')
                return -1;
            p = end + 1;
        } else {
            p = end + (*end == ',');
        }
    }
    return *p ? -1 : 0;
}

static void check_node_map(const char *m, int n)
{
    int node[66], want[66];
    for (int i = 0; i < 66; i++)
        node[i] = want[i] = -7;
    char err[256];
    err[0] = 0;
    int rc = shoal_node_map_parse(m, n, node, err, sizeof err);
    int ref = ref_node_map(m, n, want);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == (ref == 0));
    FUZZ_CHECK(node[n] == -7); /* nothing written past the last PE */
    if (rc) {
        FUZZ_CHECK(!strncmp(err, "SHOAL_NODE_MAP=\"", 16));
        return;
    }
    for (int i = 0; i < n; i++)
        FUZZ_CHECK(node[i] == want[i] && node[i] >= 0 && node[i] <= n);
}

static const char *const subs[] = {
#define SUB_NAME(id, name, help) name,
    SHOAL_LOG_SUBSYSTEMS(SUB_NAME)
#undef SUB_NAME
};
static const char *const levels[] = { "off", "info", "debug", "trace" };

/* A SHOAL_LOG spec the plain way: items "channel:level" between commas (one comma
 * may end the spec); the mask it sets, or -1. */
static int64_t ref_log(const char *spec)
{
    uint32_t mask = 0;
    const char *p = spec;
    while (*p) {
        size_t n = strcspn(p, ",");
        char item[4096];
        if (n >= sizeof item)
            return -1;
        memcpy(item, p, n);
        item[n] = 0;
        char *colon = strchr(item, ':');
        if (!colon)
            return -1;
        *colon = 0;
        const char *lv = colon + 1;
        int level = -1;
        for (int l = 0; l < 4; l++)
            if (!strcmp(lv, levels[l]))
                level = l;
        if (lv[0] >= '0' && lv[0] <= '3' && !lv[1])
            level = lv[0] - '0';
        if (level < 0)
            return -1;
        int any = 0;
        for (int s = 0; s < SHOAL_LOG_NSUB; s++)
            if (!strcmp(item, "all") || !strcmp(item, subs[s])) {
                any = 1;
                for (int l = 1; l <= 3; l++)
                    if (l <= level)
                        mask |= SHOAL_LOG_BIT(s, l);
                    else
                        mask &= ~SHOAL_LOG_BIT(s, l);
            }
        if (!any)
            return -1;
        p += n + (p[n] == ',');
    }
    return mask;
}

static void check_log(const char *spec)
{
    char err[512];
    err[0] = 0;
    int rc = shoal_log_parse(spec, err, sizeof err);
    int64_t want = ref_log(spec);
    FUZZ_CHECK(rc == 0 || rc == -1);
    FUZZ_CHECK((rc == 0) == (want >= 0));
    if (rc)
        FUZZ_CHECK(!strncmp(err, "SHOAL_LOG=\"", 11));
    else
        FUZZ_CHECK(shoal_log_mask == (uint32_t)want);
    shoal_log_mask = 0;

    /* As a SHOAL_LOG_FILE pattern: every '%' is one of %p %h %j %%, and it fits. */
    int ok = strlen(spec) < PATH_MAX;
    for (const char *c = spec; *c; c++)
        if (*c == '%') {
            ok &= c[1] && strchr("phj%", c[1]);
            c += c[1] != 0;
        }
    rc = shoal_log_target(spec, err, sizeof err);
    FUZZ_CHECK(rc == (ok ? 0 : -1));
    if (rc)
        FUZZ_CHECK(!strncmp(err, "SHOAL_LOG_FILE", 14));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char s[4096];
    size_t n = size - 1 < sizeof s - 1 ? size - 1 : sizeof s - 1;
    memcpy(s, data + 1, n);
    s[n] = 0; /* a value from getenv ends at its first NUL */
    check_node_map(s, 1 + data[0] % 64);
    check_log(s);
    shoal_log_target("", NULL, 0);
    return 0;
}
