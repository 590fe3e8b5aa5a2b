/*
 * Names of the vocabulary values (include/lastwords/vocab.h), generated from
 * the same X-macro lists. Every printer and parser goes through these.
 */
#ifndef LW_SRC_VOCAB_H
#define LW_SRC_VOCAB_H

#include <lastwords/vocab.h>

/* One vocabulary list: names indexed by value, NULL where a value is unused. */
struct vocab {
	const char *what;          /* "stage", "error class", ... for messages */
	const char *const *names;
	int count;                 /* values 0 .. count-1 */
};

extern const struct vocab vocab_stages, vocab_event_types, vocab_errors, vocab_marks,
	vocab_delegates, vocab_actions, vocab_advices, vocab_payload_classes, vocab_cache_ops,
	vocab_scenarios, vocab_exit_classes,
	vocab_evidence_levels, vocab_memory_sources, vocab_graphics_sources, vocab_pressure_sources;

/* The name of value v, or NULL. Context: signal-safe; no allocation; no blocking. */
const char *vocab_name(const struct vocab *v, int value);

/* The value named name, or -1. Context: signal-safe; no allocation; no blocking. */
int vocab_value(const struct vocab *v, const char *name);

/* Whether s is an early stage: download, load, runtime_prepare or
 * delegate_prepare, the stages before inference. A death there comes back
 * at every start, so the probe's advice and the analyzer's boot loops count
 * it, and recovery stops prewarming (DESIGN.md, "Boot loops and safe mode").
 * Context: signal-safe; no allocation; no blocking. */
static inline int vocab_stage_early(enum lw_stage s)
{
	return s > LW_STAGE_NONE && s < LW_STAGE_INFERENCE;
}

#endif
