/* CPU lists in the kernel's syntax (cpulist.c). */
#ifndef SHOAL_CPULIST_H
#define SHOAL_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* Parses "0-3,8,10-11" into set; -1 if malformed. */
int cpulist_parse(const char *s, cpu_set_t *set);
/* Writes set as "0-3,8" into buf (truncated to len). */
void cpulist_format(const cpu_set_t *set, char *buf, size_t len);

#endif
