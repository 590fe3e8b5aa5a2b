/*
 * A run: one process's life, as the report reads it. Most runs are the
 * probe's ring, loaded from the binary ring file or from the JSON lines
 * that `lastwords dump --json` prints for it (schemas/ring-events.schema.json),
 * which give the same run: fixtures can be JSON that reads in review. A run
 * may have no ring (DESIGN.md, "Runs without a ring"): the seed's events
 * JSON gives one, and a death that only the system's evidence tells (an
 * exit record, a tombstone, an ANR trace or an lmkd kill that joins no
 * ring: correlate.c) is a ring-less run of its own, with no record, no
 * stage and no candidate. Never prints.
 */
#ifndef LW_ANALYZER_RUN_H
#define LW_ANALYZER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <lastwords/ring.h>

#include "../evidence/evidence.h"
#include "../evidence/input.h"
#include "ring-file.h"

/* What a run was read from: the one thing that tells runs with a probe
 * from runs without one, in the report and in the history. */
enum run_ring {
	RUN_RING_PROBE, /* the probe's ring: its file, or its dump --json lines */
	RUN_RING_SEED,  /* the seed's events JSON: the app's own samples, no ring */
	RUN_RING_NONE,  /* no ring: a death the system's evidence alone tells */
};

/* "probe", "seed", "none". */
const char *run_ring_name(enum run_ring r);

struct run {
	char *path;                 /* the ring; of a ring-less run, its first witness's file */
	size_t line;                /* a ring-less run: that witness's line in path; else 0 */
	enum run_ring ring;
	int from_json;
	struct lw_ring_header hdr;  /* the fields a run has; others zero */
	enum ring_outcome outcome;
	enum lw_stage open_stage;
	/* The open stages are the header's (a ring file's counters and
	 * session table, or JSON lines whose ring value gives "open_stage" or
	 * "sessions"), which a lapped ring keeps; 0: only the records tell
	 * them (caveats.c). */
	int stages_from_header;
	struct ring_scan scan;      /* slot counts */
	int header_damaged;
	/* Its header's damaged fields (R7), "REASON; REASON...", each naming
	 * the field (ring_damage_text()), or NULL: none of its sessions is
	 * built on a damaged entry. */
	char *header_damage;
	/* Its model sessions ever opened, in id order (ring_file_sessions(),
	 * or the ring line's "sessions" when read from JSON lines): a version 1
	 * ring's is session 0 alone; a seed or ring-less run has none (NULL).
	 * hdr holds no session table (its session_slots is 0): they are here,
	 * on the heap, nsessions of them, as many as the ring has: a report
	 * holds thousands of ring-less runs. */
	struct ring_session *sessions;
	size_t nsessions;
	/* Its valid records in ticket order, whatever form the run came in,
	 * as a ring's slots hold them: seq is 2 * ticket + 2 (R9, see
	 * run_event_ticket()), crc is not kept (0). */
	struct lw_ring_slot *events;
	size_t nevents;
	/* Read from JSON: what the reader warns of, one "line N: text" a
	 * line (a counter given that disagrees with the records), or NULL. */
	char *warnings;
	int seed_exit_class;        /* a seed run: its last event's exit_reason, an
				     * lw_exit_class; 0 for none */
};

/* The ticket of one of a run's records. Does not allocate or block. */
static inline uint64_t run_event_ticket(const struct lw_ring_slot *e)
{
	return e->seq / 2 - 1;
}

/* Load a run from a binary ring file. Returns 0, or the ring_file_open()
 * status with *err set (see ring-file.h). Its records stay in the memory
 * the file was read into (ring_file_take_records()). A blank ring (never initialized)
 * loads as a run of outcome RING_OUTCOME_BLANK with no record, from the
 * file as from its JSON line; the bundle names it and leaves it out of its
 * runs. */
int run_load_ring(const char *path, struct run *out, struct ring_error *err);

/* Whether a file that ev_detect() finds is a ring, whose first bytes are
 * head (input_head()), is a binary ring (its magic, or zeros: a blank
 * file) rather than JSON lines: which of the loaders below reads it. */
int run_is_binary(struct span head);

/* Load a run from its JSON values, read from in: JSON lines, or the same
 * values pretty-printed, exactly as schemas/ring-events.schema.json allows
 * them. What the ring value leaves out (the counters, the outcome, the
 * open stage, the sessions, a record's ticket) comes from the records; a
 * counter given that disagrees with them is a warning (r->warnings).
 * Returns 0, or -1 with err naming the line and what is wrong ("missing
 * \"start_mono_ns\""), or the input's error when a read failed
 * (in->failed). */
int run_load_json(const char *path, struct input *in, struct run *out, struct ev_error *err);

/* A ring-less run from the seed's events (seeds/lifecycle_probe.py): each
 * event becomes a record of its stage, RSS and sessions; the budget is the
 * last event's; the run died when the last event has an exit_reason other
 * than "none". It has no pid and no wall-clock time, so no system evidence
 * joins it. Returns 0, or -1 with err set when no event is usable. */
int run_from_seed(const char *path, const struct ev_file *seed, struct run *out,
		  struct ev_error *err);

/* A ring-less run (RUN_RING_NONE, outcome RING_OUTCOME_NO_RING): a process
 * and pid that died, known from the witness at line of path, of app
 * version app_version (0: unknown). Returns 0, or -1 on ENOMEM (out is
 * then zeroed). Release with run_release(). */
int run_ringless(const char *path, size_t line, const char *process, int64_t pid,
		 uint64_t app_version, struct run *out);

/* Accepts a zeroed run. */
void run_release(struct run *r);

/* What the memory was made of at one moment (schemas/ring-format.md, 8.1):
 * the last composition (memory record of a known source) and the last
 * graphics record at or before that moment, with the RSS sample of that
 * moment (the peak's, the last). Each figure in kB, or RUN_KB_UNKNOWN
 * where the ring does not say (a version 1 or 2 ring, statm's fallback for
 * shmem and swap, no graphics record; statm's file_kb is file-backed and
 * shared memory together). */
#define RUN_KB_UNKNOWN (-1)
struct run_memory {
	int have;                    /* a composition or a graphics figure is known */
	int64_t rel_ns;              /* the composition's record, since the run's start */
	enum lw_memory_source source; /* 0: no composition (graphics alone, or nothing) */
	int64_t rss_kb, anon_kb, file_kb, shmem_kb, swap_kb, graphics_kb;
};

/* A figure with nothing known (every figure RUN_KB_UNKNOWN). Does not
 * allocate or block. */
void run_memory_unknown(struct run_memory *m);

/* Record e into m, when it is a composition or a graphics figure: 1 if
 * so, 0 for any other record (m unchanged). Walking a run's records in
 * order through it gives the figures at each one. Does not allocate or
 * block. */
int run_memory_apply(struct run_memory *m, const struct lw_ring_slot *e);

/* What the process cannot give back (anon + shmem + swap + graphics, of
 * those m knows), with the kinds (RUN_MEM_*) summed in *kinds; -1 without
 * a composition. Does not allocate or block. */
int64_t run_memory_own(const struct run_memory *m, unsigned *kinds);

/* The kinds of memory, as bits of run_facts.grew. */
enum run_memory_kind {
	RUN_MEM_ANON = 1,
	RUN_MEM_FILE = 2,
	RUN_MEM_SHMEM = 4,
	RUN_MEM_SWAP = 8,
	RUN_MEM_GRAPHICS = 16,
};

/* "anon", "file", "shmem", "swap", "graphics": the name of one kind
 * (one bit), or NULL. */
const char *run_memory_kind_name(unsigned kind);

/* The kinds of bits joined by "+" into buf ("anon+shmem+swap+graphics"),
 * by their short names, or by long ones ("anonymous+shared+swap+graphics").
 * Does not allocate or block. */
void run_memory_kinds_text(unsigned kinds, int long_names, char *buf, size_t len);

/* What the budget was compared with. */
enum run_budget_measure {
	RUN_BUDGET_RSS,  /* the RSS: the composition is not known */
	RUN_BUDGET_OWN,  /* what the process cannot give back: anon + shmem + swap + graphics */
};

/* The system's pressure as the process saw it: pressure records (8.1). */
struct run_pressure {
	int trim_level;              /* the highest onTrimMemory level recorded; 0: none */
	int64_t trim_rel_ns;         /* when that level was first recorded */
	int memory_info;             /* memory_info records: 0 none, 1 none said low, 2 one said lowMemory */
	int64_t avail_kb, threshold_kb; /* the lowest availMem recorded, with its threshold; RUN_KB_UNKNOWN */
	int psi_some;                /* the highest "some avg10", hundredths of a percent; -1: none read */
	int psi_unreadable;          /* the errno with which the probe could not read PSI; 0 */
	int short_of_memory;         /* any said the system was short: trim level 10, 15, 60 or 80,
					lowMemory, or PSI some avg10 of 10% or more */
	int64_t short_rel_ns;        /* when it first said so */
};

/* Whether pressure record s says the system was short of memory (the
 * rule of run_pressure.short_of_memory). Does not allocate or block. */
int run_pressure_short(const struct lw_ring_slot *s);

/* What the ring says about a run, for rules and for the report. */
struct run_facts {
	enum ring_outcome outcome;
	enum lw_stage open_stage;      /* at death */
	enum lw_stage last_stage;      /* of the last stage record; with a stage open, of the
					* session that holds it (sessions_last_stage()) */
	uint64_t candidate;            /* current at the end */
	uint64_t stable_candidate;     /* known last stable, 0 if none */
	int crash_signo;               /* from the ring's crash record or header */
	uint32_t budget_kb, peak_kb, last_rss_kb;
	enum lw_stage peak_stage;      /* open at the peak, as its sessions tell it (sessions_peak_stage()) */
	/* The RSS slope at the end (run_facts_get()): a least-squares fit
	 * over the samples of the last RUN_SLOPE_WINDOW_MS up to the last
	 * one, given only when that window spans at least RUN_SLOPE_MIN_MS or
	 * holds at least RUN_SLOPE_MIN_SAMPLES samples (have_slope). */
	int have_slope;
	double slope_kb_per_s;
	double slope_window_ms;        /* from the window's first sample to its last */
	size_t slope_samples;          /* the samples in the window */
	int have_rss;
	/* The memory's composition (version 3 rings; run_memory.have is 0
	 * for the others) at the peak and at the ring's last record, the
	 * kinds (RUN_MEM_*) that grew by at least 1 MiB over grew_stage (the
	 * stage open at death, else the last stage: the last figure before
	 * its last begin against the last one in it, up to its end; without
	 * one before it, the first one in it), and the budget: over
	 * when budget_measure's figure at its largest (measured_peak_kb)
	 * passed budget_kb. The RSS's peak made of file-backed pages the
	 * kernel could drop is not over. */
	struct run_memory at_peak, at_death;
	unsigned grew;
	enum lw_stage grew_stage;
	enum run_budget_measure budget_measure;
	uint32_t measured_peak_kb;
	unsigned measured_kinds;       /* RUN_BUDGET_OWN: the kinds (RUN_MEM_*) summed at that largest */
	int64_t measured_rel_ns;       /* RUN_BUDGET_OWN: when it was reached, since the run's start */
	int over_budget;
	struct run_pressure pressure;
	/* The delegates the ring's delegate and fallback marks name, as a
	 * set (run_delegate_bit()), and the runtime version of its last
	 * runtime_version mark (have_runtime 0: no such mark). What the app
	 * ran on, for the history's matrix (lastwords history --by delegate,
	 * runtime). */
	uint32_t delegates;
	int have_runtime;
	uint64_t runtime_version;
};

/* The bit of a delegate (enum lw_delegate, a mark's value) in
 * run_facts.delegates: bit v for the vocabulary's values below 31, bit
 * 31 for any other (other, or a value this reader does not know). */
static inline uint32_t run_delegate_bit(uint64_t v)
{
	return v > 0 && v < 31 ? (uint32_t)1 << v : (uint32_t)1 << 31;
}

#define RUN_SLOPE_WINDOW_MS 10000
#define RUN_SLOPE_MIN_MS 100
#define RUN_SLOPE_MIN_SAMPLES 5

/* One RSS sample: the records that carry one (all but a few types) hold
 * the latest sample and its age, so one sample may be carried by several
 * records; it was taken at the record's time less its age. */
struct run_sample {
	int64_t rel_ns;  /* since the run's start */
	uint32_t rss_kb;
};

/* The next distinct sample of r from record *i on: 1 with *out set and *i
 * past the record that carries it, or 0 when there is none. Start with *i
 * at 0 and prev zeroed; prev is the last sample returned, which a record
 * that carries it again does not repeat. Does not allocate or block. */
int run_next_sample(const struct run *r, size_t *i, const struct run_sample *prev,
		    struct run_sample *out);

/* The facts of a run, from its records: the peak by ring_facts_add()'s
 * rule, whatever form the run came in. Never fails. */
void run_facts_get(const struct run *r, struct run_facts *out);

/* Whether the ring says the run died, or cannot say it did not. A
 * ring-less run has no ring to say it: 0 (its witnesses say it died). Does
 * not allocate or block. */
int run_facts_died(const struct run_facts *f);

#endif
