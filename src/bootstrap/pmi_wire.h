/* The text of the PMI-1 and PMI-2 wire protocols, parsed without I/O so that
 * boot_pmi.c and the fuzz target share every check on what a launcher sends. */
#ifndef SHOAL_PMI_WIRE_H
#define SHOAL_PMI_WIRE_H

#include <stddef.h>

/* Takes the first reply from buf[0..n) into out (NUL-terminated, at most len - 1
 * bytes). PMI-1: a line, out without its newline; PMI-2: a length of 6 characters
 * (digits, blank-padded) and that many bytes. Returns the bytes the reply took
 * from buf; 0 when buf holds only part of it; SHOAL_PMI_TOO_LONG when it would not
 * fit out; SHOAL_PMI_BAD_HEADER (PMI-2) when the length is not a number. */
#define SHOAL_PMI_TOO_LONG (-1L)
#define SHOAL_PMI_BAD_HEADER (-2L)
long shoal_pmi1_take(const char *buf, size_t n, char *out, size_t len);
long shoal_pmi2_take(const char *buf, size_t n, char *out, size_t len);

/* The value of key in a reply into out: PMI-1 fields are separated by spaces
 * (sep ' '), PMI-2 fields by ';' (sep ';', a literal ';' in a value doubled).
 * Returns 0; SHOAL_PMI_ABSENT when the reply has no such field; SHOAL_PMI_TOO_LONG
 * when its value has len bytes or more. */
#define SHOAL_PMI_ABSENT (-2)
int shoal_pmi_field(const char *msg, char sep, const char *key, char *out, size_t len);

/* A decimal number from lo to hi, digits only after an optional '-': 0, or -1 for
 * anything else ("44abcd", "", " 4", out of range). */
int shoal_pmi_number(const char *s, long lo, long hi, long *out);

/* n bytes from 2n lowercase hex digits: 0, or -1 when s is not exactly that. */
int shoal_pmi_unhex(const char *s, unsigned char *out, size_t n);

#endif
