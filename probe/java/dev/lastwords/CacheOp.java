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

public enum CacheOp {
	HIT("hit", 1),
	MISS("miss", 2),
	REBUILD("rebuild", 3),
	INVALIDATE("invalidate", 4),
	;

	/* The constants by code, for fromCode(); null where a code is unused. */
	private static final CacheOp[] BY_CODE;

	static {
		CacheOp[] all = values();
		int max = 0;

		for (CacheOp e : all)
			max = Math.max(max, e.code);
		BY_CODE = new CacheOp[max + 1];
		for (CacheOp e : all)
			BY_CODE[e.code] = e;
	}

	/* Read by Probe on the event path: a field, not a call. */
	final int code;
	private final String label;

	CacheOp(String label, int code) {
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
	public static CacheOp fromCode(int code) {
		return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
	}
}
