/*
 * A vocabulary enum of the probe, generated from one X-macro list of
 * include/lastwords/vocab.h, the one table of the vocabulary, by
 * probe/java/enums.py and probe/java/enum.java.in. Do not edit it: change
 * vocab.h, then run `probe/java/enums.py --write cc .` at the top of the
 * tree. It is committed so that a Gradle build, which compiles
 * probe/java/ as it stands, has it; the test java-enums fails when it
 * differs from what vocab.h gives.
 *
 * Each constant carries its value as a ring stores it (code()) and its
 * name as rings and reports print it (label()).
 */
package dev.lastwords;

public enum Action {
	STOP_NEW_INFERENCE("stop_new_inference", 1),
	STOP_PREWARM("stop_prewarm", 2),
	REDUCE_CONCURRENCY("reduce_concurrency", 3),
	CLEAR_REBUILDABLE_CACHE("clear_rebuildable_cache", 4),
	ISOLATE_DELEGATE("isolate_delegate", 5),
	ISOLATE_CANDIDATE("isolate_candidate", 6),
	REVERT_TO_STABLE("revert_to_stable", 7),
	PRESERVE_EVIDENCE("preserve_evidence", 8),
	INSPECT_MAIN_THREAD("inspect_main_thread", 9),
	VERIFY_STATE_RESTORE("verify_state_restore", 10),
	COLLECT_MORE_EVIDENCE("collect_more_evidence", 11),
	;

	/* The constants by code, for fromCode(); null where a code is unused. */
	private static final Action[] BY_CODE;

	static {
		Action[] all = values();
		int max = 0;

		for (Action e : all)
			max = Math.max(max, e.code);
		BY_CODE = new Action[max + 1];
		for (Action e : all)
			BY_CODE[e.code] = e;
	}

	/* Read by Probe on the event path: a field, not a call. */
	final int code;
	private final String label;

	Action(String label, int code) {
		this.label = label;
		this.code = code;
	}

	/** The value that a ring stores, as in include/lastwords/vocab.h. */
	public int code() {
		return code;
	}

	/** The name that rings, {@code lastwords dump} and reports print. */
	public String label() {
		return label;
	}

	/** The constant whose {@link #code()} is {@code code}, or null. */
	public static Action fromCode(int code) {
		return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
	}
}
