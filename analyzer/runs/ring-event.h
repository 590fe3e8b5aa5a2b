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

/* A memory record's composition (schemas/ring-format.md, 8.1): each
 * figure in kB, or -1 where its source does not give it (statm's shmem
 * and swap; statm's file_kb is file-backed and shared memory together). */
struct ring_composition {
	int source; /* enum lw_memory_source: 0 none, or a value this reader does not know */
	int64_t anon_kb, file_kb, shmem_kb, swap_kb;
};

/* The composition of memory record s: 1 with *out set when its source is
 * one this reader knows (status or statm), else 0 (a version 1 or 2
 * record, or a newer writer's source). Does not allocate or block. */
int ring_event_composition(const struct lw_ring_slot *s, struct ring_composition *out);

/* "RUNNING_CRITICAL", ...: the onTrimMemory level's name, or NULL. */
const char *ring_trim_level_name(uint64_t level);

/* CLOCK_REALTIME of the record, from the header's clock pair. */
uint64_t ring_event_real_ns(const struct lw_ring_header *h, const struct lw_ring_slot *s);

/* "begin load", "CRASH", ... and the details ("SIGSEGV (SEGV_MAPERR) ..."). */
void ring_event_text(const struct lw_ring_header *h, const struct lw_ring_slot *s, char *label,
		     size_t label_len, char *detail, size_t detail_len);

/* The record as a JSON object (free with cJSON_Delete), or NULL on ENOMEM. */
cJSON *ring_event_json(const char *file, uint64_t ticket, const struct lw_ring_header *h,
		       const struct lw_ring_slot *s);

#endif
