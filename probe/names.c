/* Public names of vocabulary values, from the tables in src/vocab.c. */
#include "../src/vocab.h"
#include "internal.h"

const char *lw_stage_name(enum lw_stage stage)
{
	return vocab_name(&vocab_stages, (int)stage);
}

const char *lw_error_name(enum lw_error err)
{
	return vocab_name(&vocab_errors, (int)err);
}

const char *lw_mark_name(enum lw_mark kind)
{
	return vocab_name(&vocab_marks, (int)kind);
}

const char *lw_advice_name(enum lw_advice_kind kind)
{
	return vocab_name(&vocab_advices, (int)kind);
}
