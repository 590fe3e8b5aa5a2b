/* The label table generated from the reason list of exit-info.h. */
#include "exit-info.h"

#define LABEL_ENTRY(up, label, val) [val] = label,
static const char *const reason_labels[] = { EXIT_REASONS(LABEL_ENTRY) };
static const char *const subreason_labels[] = { EXIT_SUBREASONS(LABEL_ENTRY) };

const struct vocab exit_reason_labels = { "exit reason", reason_labels,
					  (int)(sizeof(reason_labels) / sizeof(reason_labels[0])) };
const struct vocab exit_subreason_labels = {
	"exit subreason", subreason_labels,
	(int)(sizeof(subreason_labels) / sizeof(subreason_labels[0]))
};
