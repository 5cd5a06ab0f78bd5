/* The debug log (base/log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/state.h"

unsigned char shoal_log_level[SHOAL_LOG_NSUB];

static const char *const sub_name[SHOAL_LOG_NSUB] = {
#define SHOAL_LOG_NAME(id, name, help) name,
    SHOAL_LOG_SUBSYSTEMS(SHOAL_LOG_NAME)
#undef SHOAL_LOG_NAME
};

static const char *const level_name[] = { "off", "info", "debug", "trace" };

static int bad(char *err, size_t len, const char *spec, const char *why, size_t n,
               const char *item)
{
    snprintf(err, len,
             "SHOAL_LOG=\"%s\": %s \"%.*s\"; use subsystem:level pairs separated by "
             "commas, subsystem one of boot, mem, shm, ofi, coll, team or all, level one of "
             "off, info, debug, trace",
             spec, why, (int)n, item);
    return -1;
}

int shoal_log_parse(const char *spec, char *err, size_t len)
{
    memset(shoal_log_level, 0, sizeof shoal_log_level);
    for (const char *p = spec; p && *p;) {
        size_t n = strcspn(p, ","), name_len = strcspn(p, ":,");
        if (name_len == n)
            return bad(err, len, spec, "no level in", n, p);
        const char *lv = p + name_len + 1;
        size_t lv_len = n - name_len - 1;
        int level = -1;
        for (int l = 0; l <= SHOAL_LOG_TRACE; l++)
            if (strlen(level_name[l]) == lv_len && !strncmp(lv, level_name[l], lv_len))
                level = l;
        if (lv_len == 1 && *lv >= '0' && *lv <= '3')
            level = *lv - '0';
        if (level < 0)
            return bad(err, len, spec, "unknown level in", n, p);
        int found = 0;
        for (int s = 0; s < SHOAL_LOG_NSUB; s++)
            if ((name_len == 3 && !strncmp(p, "all", 3)) ||
                (strlen(sub_name[s]) == name_len && !strncmp(p, sub_name[s], name_len))) {
                shoal_log_level[s] = (unsigned char)level;
                found = 1;
            }
        if (!found)
            return bad(err, len, spec, "unknown subsystem in", n, p);
        p += n + (p[n] == ',');
    }
    return 0;
}

void shoal_log_emit(enum shoal_log_subsystem sub, const char *fmt, ...)
{
    char buf[512];
    int n = shoal.n_pes > 0
            ? snprintf(buf, sizeof buf, "shoal: PE %d: [%s] ", shoal.my_pe, sub_name[sub])
            : snprintf(buf, sizeof buf, "shoal: [%s] ", sub_name[sub]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof buf)
        vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    /* One write per line, so lines of PEs sharing the terminal do not interleave. */
    fprintf(stderr, "%s\n", buf);
}
