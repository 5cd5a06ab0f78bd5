/* Parsed configuration from the environment (see env_table.h). */
#ifndef SHOAL_ENV_H
#define SHOAL_ENV_H

#include <stddef.h>
#include <stdio.h>
#include "env_table.h"

#define SHOAL_ENV_CTYPE_BOOL int
#define SHOAL_ENV_CTYPE_SIZE size_t
#define SHOAL_ENV_CTYPE_INT long
#define SHOAL_ENV_CTYPE_STR const char *

struct shoal_config {
#define SHOAL_ENV_FIELD(name, alias, kind, def, accept, field, help)                         \
    SHOAL_ENV_CTYPE_##kind field;
    SHOAL_ENV_TABLE(SHOAL_ENV_FIELD)
#undef SHOAL_ENV_FIELD
};

enum shoal_env_kind { SHOAL_ENV_BOOL, SHOAL_ENV_SIZE, SHOAL_ENV_INT, SHOAL_ENV_STR };
enum shoal_env_class {
    SHOAL_ENV_CLASS_USER,
    SHOAL_ENV_CLASS_LAUNCHER,
    SHOAL_ENV_CLASS_FOREIGN,
    SHOAL_ENV_CLASS_CX,       /* Cray OpenSHMEMX's, honoured */
    SHOAL_ENV_CLASS_SPELLING, /* another name of the row same_as names */
    SHOAL_ENV_CLASS_NA        /* accepted, not applicable here: help is why */
};

struct shoal_env_var {
    const char *name;
    const char *alias;
    enum shoal_env_kind kind;
    enum shoal_env_class cls;
    const char *def;
    const char *accept; /* see env_table.h; NULL: what kind allows */
    size_t offset;
    const char *help;
    const char *same_as; /* SHOAL_ENV_CLASS_SPELLING only */
};

extern const struct shoal_env_var shoal_env_vars[];
extern const size_t shoal_env_nvars;

/* Fills cfg from the environment. On a malformed value, writes a message naming
 * the variable and the accepted syntax into err and returns -1. */
int shoal_env_load(struct shoal_config *cfg, char *err, size_t errlen);

/* The raw value of one variable of the table (or its alias), else its default;
 * for programs that need one variable without loading them all (oshrun).
 * Aborts on a name the table lacks, so no variable is read outside it. */
const char *shoal_env_value(const char *name);

/* The raw value of one variable of the table (or its alias), NULL when unset. */
const char *shoal_env_get(const char *name);

/* Checks one variable's value as shoal_env_load does: 0, or -1 with the message
 * (variable, value, what it accepts) in err. */
int shoal_env_check(const char *name, char *err, size_t errlen);

/* Names read by the project's other programs (SHOAL_ENV_OTHER). */
struct shoal_env_other {
    const char *name; /* ends in '_' for a prefix */
    const char *who;
};
extern const struct shoal_env_other shoal_env_others[];
extern const size_t shoal_env_nothers;

/* Warns on out, one line each, about SHMEM_* / SHOAL_* / SMA_* variables of env
 * that nothing in Shoal reads, naming the nearest known name when one is close
 * (a misspelt SHMEM_DEBG must not be silently ignored). Returns how many. */
int shoal_env_warn_unknown(FILE *out, char *const *env);

/* Warns on out, one line each, about variables of SHOAL_ENV_CX_NA that are set, and
 * those of SHOAL_ENV_CX set to what Shoal accepts but cannot do (the NIC choices, a
 * positive SHMEM_SMP_SIZE_LIMIT, more teams than it has slots). Returns how many. */
int shoal_env_warn_na(FILE *out, const struct shoal_config *cfg);

/* Where the library's error and warning messages go: stdout under
 * SHMEM_ERROR_FILE=stdout, else stderr. */
FILE *shoal_error_stream(void);

/* Whether the variable (or another name of it) is set in the environment. */
int shoal_env_is_set(const char *name);
/* The name the environment set the variable by (itself, an alias or Cray OpenSHMEMX's
 * spelling), for messages in the user's own words; name itself when unset. */
const char *shoal_env_set_as(const char *name);

/* Carries Cray OpenSHMEMX's variables over onto Shoal's where Shoal's own are not
 * set (SHMEM_OFI_PROGRESS, SHMEM_COLL_OPT_OFF, SHMEM_LOCALITY_ONNODE,
 * SHMEM_SMP_SIZE_LIMIT), and checks the NIC variables. -1 with a message in err on
 * a value it refuses. */
int shoal_env_cx_apply(struct shoal_config *cfg, char *err, size_t errlen);
/* SHMEM_OFI_NIC_MAPPING covers each of local_pes local PEs exactly once (when the
 * policy is USER); -1 with a message in err otherwise. */
int shoal_env_cx_check_local(const struct shoal_config *cfg, int local_pes, char *err,
                             size_t errlen);
/* SHMEM_SMP_SIZE_LIMIT's value: bytes with an optional K or M suffix, or negative
 * for no limit (-1). -1 return for a malformed one. */
int shoal_parse_smp_limit(const char *s, long long *out);
/* Is pe in list ("0,3,5-7")? -1 for a malformed list. */
int shoal_pe_list_has(const char *list, int pe);

/* Prints every variable: name, value (or default), meaning. */
void shoal_env_print(FILE *out, const struct shoal_config *cfg, int with_internal);

/* SHMEM_SYMMETRIC_SIZE syntax: "512M", "3.1m", ".5G", "4096". Returns 0 and
 * stores the byte count (rounded up), or -1 for a malformed or overflowing value. */
int shoal_parse_size(const char *s, size_t *out);
/* Decimal integer, optional sign; -1 on anything else. */
int shoal_parse_int(const char *s, long *out);
/* Presence means on, except 0/no/false/off (any case) and the empty string. */
int shoal_parse_bool(const char *s);

#endif
