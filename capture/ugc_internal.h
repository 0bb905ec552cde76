/* ugc_internal.h — what the library's own files share (not installed).
 *
 * ugc_flags_format() turns the engine's flag words into the FLAGS field;
 * ugc_object_flag_names is the EObjectFlags name table, indexed by bit
 * number (NULL for the unassigned bit 26), which ugc-analyze reuses. */
#ifndef UGC_INTERNAL_H
#define UGC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

extern const char *const ugc_object_flag_names[32];

/* Longest FLAGS field: every name once, with commas. */
#define UGC_FLAGS_MAX 1024

/* Write the FLAGS field ("-" when no named bit is set) into BUF (at least
 * UGC_FLAGS_MAX bytes); returns its length.  Object flags in bit order,
 * then internal flags, then traits, as ugc-analyze writes them. */
size_t ugc_flags_format(char *buf, uint32_t object_flags, uint32_t internal_flags, uint32_t traits);

#endif
