/* CPU lists as the kernel writes them ("0-3,8"), for oshrun's binding and the
 * library's SHMEM_INFO report of it. */
#include "cpulist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Parses a kernel CPU list ("0-3,8,10-11") into set; -1 if malformed. */
int cpulist_parse(const char *s, cpu_set_t *set)
{
    CPU_ZERO(set);
    while (*s && *s != '\n') {
        char *end;
        errno = 0;
        long a = strtol(s, &end, 10), b = a;
        if (errno || end == s || a < 0)
            return -1;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -1;
            s = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return 0;
}

/* Writes set as a kernel CPU list ("0-3,8") into buf. */
void cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
            e++;
        int n = e > c ? snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, e)
                      : snprintf(buf + at, len - at, "%s%d", at ? "," : "", c);
        if (n < 0 || (size_t)n >= len - at)
            return;
        at += (size_t)n;
        c = e;
    }
}
