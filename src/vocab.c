/* Name tables generated from the X-macro lists in include/lastwords/vocab.h. */
#include "vocab.h"

#include <string.h>

#define NAME_ENTRY(up, name, val) [val] = #name,
#define DEFINE_VOCAB(ident, label, LIST)                                         \
	static const char *const ident##_names[] = { LIST(NAME_ENTRY) };         \
	const struct vocab ident = { label, ident##_names,                       \
				     (int)(sizeof(ident##_names) / sizeof(ident##_names[0])) };

DEFINE_VOCAB(vocab_stages, "stage", LW_STAGES)
DEFINE_VOCAB(vocab_event_types, "event type", LW_EVENT_TYPES)
DEFINE_VOCAB(vocab_errors, "error class", LW_ERRORS)
DEFINE_VOCAB(vocab_marks, "mark", LW_MARKS)
DEFINE_VOCAB(vocab_delegates, "delegate", LW_DELEGATES)
DEFINE_VOCAB(vocab_actions, "recovery action", LW_ACTIONS)
DEFINE_VOCAB(vocab_advices, "advice", LW_ADVICES)
DEFINE_VOCAB(vocab_payload_classes, "payload class", LW_PAYLOAD_CLASSES)
DEFINE_VOCAB(vocab_cache_ops, "cache operation", LW_CACHE_OPS)
DEFINE_VOCAB(vocab_scenarios, "scenario", LW_SCENARIOS)
DEFINE_VOCAB(vocab_exit_classes, "exit class", LW_EXIT_CLASSES)
DEFINE_VOCAB(vocab_evidence_levels, "evidence level", LW_EVIDENCE_LEVELS)
DEFINE_VOCAB(vocab_memory_sources, "memory source", LW_MEMORY_SOURCES)
DEFINE_VOCAB(vocab_graphics_sources, "graphics source", LW_GRAPHICS_SOURCES)
DEFINE_VOCAB(vocab_pressure_sources, "pressure source", LW_PRESSURE_SOURCES)

const char *vocab_name(const struct vocab *v, int value)
{
	if (value < 0 || value >= v->count)
		return NULL;
	return v->names[value];
}

int vocab_value(const struct vocab *v, const char *name)
{
	int i;

	if (!name)
		return -1;
	for (i = 0; i < v->count; i++)
		if (v->names[i] && strcmp(v->names[i], name) == 0)
			return i;
	return -1;
}
