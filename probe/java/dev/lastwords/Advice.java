package dev.lastwords;

/**
 * The boot-loop advice of {@link Probe#advice()}: what the previous runs of
 * this process died of, for the app to act on before it prewarms or loads
 * the candidate again. Candidates are digests ({@link Probe#digest(String)}):
 * the probe never keeps their names.
 */
public final class Advice {
	private final AdviceKind kind;
	private final Stage stage;
	private final int count;
	private final long candidate;
	private final long stableCandidate;

	Advice(AdviceKind kind, Stage stage, int count, long candidate, long stableCandidate) {
		this.kind = kind;
		this.stage = stage;
		this.count = count;
		this.candidate = candidate;
		this.stableCandidate = stableCandidate;
	}

	/** {@link AdviceKind#NONE}, {@link AdviceKind#SKIP_PREWARM} after one
	 * death in the same early stage or in inference,
	 * {@link AdviceKind#QUARANTINE} after two or more in a row with the
	 * same candidate. */
	public AdviceKind kind() {
		return kind;
	}

	/** The stage the previous runs died in; {@link Stage#NONE} with no advice. */
	public Stage stage() {
		return stage;
	}

	/** The consecutive deaths in that stage with that candidate. */
	public int count() {
		return count;
	}

	/** The digest of the candidate they died with, 0 if none. */
	public long candidate() {
		return candidate;
	}

	/** The digest of the last candidate that completed an inference in a
	 * run that ended cleanly, 0 if none is known: the one to revert to. */
	public long stableCandidate() {
		return stableCandidate;
	}

	@Override
	public boolean equals(Object o) {
		if (!(o instanceof Advice))
			return false;
		Advice a = (Advice) o;
		return kind == a.kind && stage == a.stage && count == a.count
				&& candidate == a.candidate && stableCandidate == a.stableCandidate;
	}

	@Override
	public int hashCode() {
		int h = kind.code * 31 + stage.code;
		h = h * 31 + count;
		h = h * 31 + (int) (candidate ^ candidate >>> 32);
		return h * 31 + (int) (stableCandidate ^ stableCandidate >>> 32);
	}

	@Override
	public String toString() {
		return "Advice[" + kind.label() + ", stage " + stage.label() + ", count " + count
				+ ", candidate " + Long.toHexString(candidate) + ", stable candidate "
				+ Long.toHexString(stableCandidate) + "]";
	}
}
