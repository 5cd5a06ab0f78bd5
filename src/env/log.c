/* The debug log (env/log.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env/env.h"
#include "env/log.h"

uint32_t shoal_log_mask;

static const char *const sub_name[SHOAL_LOG_NSUB] = {
#define SHOAL_LOG_NAME(id, name, help) name,
    SHOAL_LOG_SUBSYSTEMS(SHOAL_LOG_NAME)
#undef SHOAL_LOG_NAME
};

static const char *const level_name[] = { "off", "info", "debug", "trace" };

/* Lines go to fd once started; before, to kept (the PE number, and so the file's
 * name, comes from the bootstrap, whose steps are logged too). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int fd = STDERR_FILENO, started, my_pe = -1;
static char pattern[PATH_MAX];
static char kept[8192];
static size_t kept_len, kept_lost;

/* "boot, mem, ..., " from the channel table, for messages. */
#define SHOAL_LOG_LIST(id, name, help) name ", "
static const char channel_list[] = SHOAL_LOG_SUBSYSTEMS(SHOAL_LOG_LIST);
#undef SHOAL_LOG_LIST
#define CHANNELS (int)sizeof channel_list - 3, channel_list

static int bad(char *err, size_t len, const char *spec, const char *why, size_t n,
               const char *item)
{
    snprintf(err, len,
             "SHOAL_LOG=\"%s\": %s \"%.*s\"; use channel:level pairs separated by "
             "commas, channel one of %.*s or all, level one of off, info, debug, trace",
             spec, why, (int)n, item, CHANNELS);
    return -1;
}

static void set_level(int sub, int level)
{
    for (int l = SHOAL_LOG_INFO; l <= SHOAL_LOG_TRACE; l++)
        if (l <= level)
            shoal_log_mask |= SHOAL_LOG_BIT(sub, l);
        else
            shoal_log_mask &= ~SHOAL_LOG_BIT(sub, l);
}

int shoal_log_parse(const char *spec, char *err, size_t len)
{
    shoal_log_mask = 0;
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
                set_level(s, level);
                found = 1;
            }
        if (!found)
            return bad(err, len, spec, "unknown channel in", n, p);
        p += n + (p[n] == ',');
    }
    return 0;
}

/* Cray OpenSHMEMX's debug categories, each onto the Shoal channels nearest it. */
static const struct {
    const char *category;
    uint32_t channels; /* bit per channel */
} cx_categories[] = {
#define CH(id) (UINT32_C(1) << SHOAL_LOG_##id)
    { "init", CH(BOOT) },
    { "timers", CH(BOOT) },
    { "locality", CH(BOOT) | CH(SHM) },
    { "mem", CH(MEM) | CH(DEVICE) },
    { "fi", CH(OFI) },
    { "nic", CH(OFI) },
    { "counters", CH(OFI) },
    { "put", CH(SHM) | CH(OFI) | CH(MPI) | CH(API) },
    { "get", CH(SHM) | CH(OFI) | CH(MPI) | CH(API) },
    { "amo", CH(SHM) | CH(OFI) | CH(MPI) | CH(API) },
    { "synch", CH(COLL) },
    { "coll", CH(COLL) },
    { "lock", CH(COLL) },
    { "thread", CH(OFI) | CH(TEAM) },
    { "enter", CH(API) },
    { "all", (UINT32_C(1) << SHOAL_LOG_NSUB) - 1 },
#undef CH
};

/* SHMEM_DEBUG_RANKS: the PEs that log, "" for all. */
static char log_ranks[256];

int shoal_log_parse_cx(long level, const char *categories, const char *ranks, char *err,
                       size_t len)
{
    if (strlen(ranks) >= sizeof log_ranks || (*ranks && shoal_pe_list_has(ranks, 0) < 0)) {
        snprintf(err, len,
                 "SHMEM_DEBUG_RANKS=\"%s\" is not valid: expected a comma list of PE numbers "
                 "and ranges, e.g. 0,4-7",
                 ranks);
        return -1;
    }
    strcpy(log_ranks, ranks);
    if (level <= 0 && !*categories)
        return 0;
    uint32_t channels = *categories ? 0 : (UINT32_C(1) << SHOAL_LOG_NSUB) - 1;
    int unknown = 0;
    for (const char *p = categories; *p;) {
        size_t n = strcspn(p, ","), k;
        uint32_t c = 0;
        for (k = 0; k < sizeof cx_categories / sizeof cx_categories[0]; k++)
            if (strlen(cx_categories[k].category) == n &&
                !strncasecmp(p, cx_categories[k].category, n))
                c = cx_categories[k].channels;
        for (int sub = 0; sub < SHOAL_LOG_NSUB; sub++)
            if (strlen(sub_name[sub]) == n && !strncasecmp(p, sub_name[sub], n))
                c |= UINT32_C(1) << sub;
        /* Cray OpenSHMEMX documents more categories than it names: a job script's
         * other ones are skipped with a warning, not refused. */
        if (!c && !unknown++)
            snprintf(err, len,
                     "SHMEM_DEBUG_CATEGORIES=\"%s\": category \"%.*s\" has no "
                     "counterpart here and is ignored; known: init, locality, synch, put, "
                     "get, coll, mem, fi, timers, lock, thread, amo, counters, nic, enter, "
                     "all and the SHOAL_LOG channels (%.*s)",
                     categories, (int)n, p, CHANNELS);
        channels |= c;
        p += n + (p[n] == ',');
    }
    /* 1 warnings and errors (which Shoal always prints) and set-up facts; 2 per
     * object; 3 and up every operation. */
    int lv = level <= 1 ? SHOAL_LOG_INFO : level == 2 ? SHOAL_LOG_DEBUG : SHOAL_LOG_TRACE;
    shoal_log_mask = 0;
    for (int sub = 0; sub < SHOAL_LOG_NSUB; sub++)
        if (channels >> sub & 1)
            set_level(sub, lv);
    return unknown ? 1 : 0;
}

int shoal_log_target(const char *pat, char *err, size_t len)
{
    for (const char *p = pat; *p; p++)
        if (*p == '%' && !(p[1] && strchr("phj%", p[1]))) {
            snprintf(err, len,
                     "SHOAL_LOG_FILE=\"%s\": \"%%%.1s\" is not one of %%p (the PE), %%h "
                     "(the host), %%j (the pid), %%%% (a %%)",
                     pat, p + 1);
            return -1;
        } else if (*p == '%') {
            p++;
        }
    if (strlen(pat) >= sizeof pattern) {
        snprintf(err, len, "SHOAL_LOG_FILE is longer than %zu bytes", sizeof pattern - 1);
        return -1;
    }
    strcpy(pattern, pat);
    return 0;
}

/* The file name for this PE; 0, or -1 when it does not fit. */
static int expand(char *out, size_t len, int pe)
{
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    size_t at = 0;
    for (const char *p = pattern; *p && at < len; p++) {
        int n;
        if (*p != '%')
            n = snprintf(out + at, len - at, "%c", *p);
        else if (*++p == 'p')
            n = snprintf(out + at, len - at, "%d", pe);
        else if (*p == 'h')
            n = snprintf(out + at, len - at, "%s", host);
        else if (*p == 'j')
            n = snprintf(out + at, len - at, "%ld", (long)getpid());
        else
            n = snprintf(out + at, len - at, "%%");
        at += (size_t)n;
    }
    return at < len ? 0 : -1;
}

/* Opens path for appending, refusing what another user could have planted there: a
 * symbolic link (O_NOFOLLOW), a FIFO or device (O_NONBLOCK, so the open cannot block,
 * then a regular-file check), another user's file, a file with other names. New
 * files get mode 0600. Returns the fd, or -1 with why set. */
static int open_safely(const char *path, const char **why)
{
    int f = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                 0600);
    if (f < 0) {
        *why = errno == ELOOP ? "it is a symbolic link" : strerror(errno);
        return -1;
    }
    struct stat st;
    *why = fstat(f, &st)                  ? strerror(errno)
            : !S_ISREG(st.st_mode)        ? "it is not a regular file"
            : st.st_uid != geteuid()      ? "it belongs to another user"
            : st.st_nlink != 1            ? "it has other names (hard links)"
            : fcntl(f, F_SETFL, O_APPEND) ? strerror(errno)
                                          : NULL;
    if (*why) {
        close(f);
        return -1;
    }
    return f;
}

static void write_all(const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

/* "shoal: PE n: " or, before the PE is known, "shoal: ". */
static int prefix(char *buf, size_t len)
{
    return my_pe >= 0 ? snprintf(buf, len, "shoal: PE %d: ", my_pe)
                      : snprintf(buf, len, "shoal: ");
}

void shoal_log_start(int pe)
{
    pthread_mutex_lock(&lock);
    my_pe = pe;
    /* A PE outside SHMEM_DEBUG_RANKS logs nothing, its kept lines included. */
    if (log_ranks[0] && pe >= 0 && shoal_pe_list_has(log_ranks, pe) != 1) {
        shoal_log_mask = 0;
        kept_len = kept_lost = 0;
    }
    /* Logging off: no file is made. */
    if (pattern[0] && pe >= 0 && shoal_log_mask) {
        char path[PATH_MAX] = "";
        const char *why = "the name is too long";
        int f = expand(path, sizeof path, pe) ? -1 : open_safely(path, &why);
        if (f >= 0)
            fd = f;
        else
            fprintf(stderr,
                    "shoal: PE %d: warning: SHOAL_LOG_FILE: cannot log to %s (%s); logging "
                    "to stderr: name a file of your own, in a directory of your own\n",
                    pe, path[0] ? path : pattern, why);
    }
    started = 1;
    /* The kept lines, each with the prefix it now has. */
    for (size_t at = 0; at < kept_len;) {
        char buf[sizeof kept + 64];
        size_t n = strcspn(kept + at, "\n") + 1;
        int p = prefix(buf, sizeof buf);
        memcpy(buf + p, kept + at, n);
        write_all(buf, (size_t)p + n);
        at += n;
    }
    if (kept_lost) {
        char note[96];
        int n = snprintf(note, sizeof note,
                         "shoal: PE %d: [boot] %zu earlier log lines lost\n", pe, kept_lost);
        write_all(note, (size_t)n);
    }
    kept_len = kept_lost = 0;
    pthread_mutex_unlock(&lock);
}

void shoal_log_emit(enum shoal_log_subsystem sub, const char *fmt, ...)
{
    char buf[1024];
    pthread_mutex_lock(&lock);
    /* Kept lines get their prefix when written (shoal_log_start). */
    int keep = !started && (pattern[0] || log_ranks[0]);
    int p = keep ? 0 : prefix(buf, sizeof buf);
    int n = p + snprintf(buf + p, sizeof buf - (size_t)p, "[%s] ", sub_name[sub]);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n < sizeof buf - 1 ? (size_t)n : sizeof buf - 2;
    buf[len++] = '\n';
    if (!keep) {
        /* One write per line: lines of PEs sharing a terminal or a file stay whole. */
        write_all(buf, len);
    } else if (kept_len + len <= sizeof kept) {
        memcpy(kept + kept_len, buf, len);
        kept_len += len;
    } else {
        kept_lost++;
    }
    pthread_mutex_unlock(&lock);
}

double shoal_log_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double shoal_log_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}
