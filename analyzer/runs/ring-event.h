/*
 * One ring record, told for people (a label and details) or for machines
 * (a cJSON object). Names come from the vocabulary tables in src/. Never
 * prints.
 */
#ifndef LW_ANALYZER_RING_EVENT_H
#define LW_ANALYZER_RING_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <lastwords/ring.h>

/* Nanoseconds since the run's start (negative if the record predates it). */
int64_t ring_event_rel_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s);

/* CLOCK_REALTIME of the record, from the header's clock pair. */
uint64_t ring_event_real_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s);

/* "begin load", "CRASH", ... and the details ("SIGSEGV (SEGV_MAPERR) ..."). */
void ring_event_text(const struct lw_ring_header *h, const struct lw_ring_slot *s, char *label,
		     size_t label_len, char *detail, size_t detail_len);

/* The record as a JSON object (free with cJSON_Delete), or NULL on ENOMEM. */
cJSON *ring_event_json(const char *file, uint64_t ticket, const struct lw_ring_header *h,
		       const struct lw_ring_slot *s);

#endif
