import dev.lastwords.Action;
import dev.lastwords.AdviceKind;
import dev.lastwords.CacheOp;
import dev.lastwords.Delegate;
import dev.lastwords.ErrorClass;
import dev.lastwords.Mark;
import dev.lastwords.PayloadClass;
import dev.lastwords.PressureSource;
import dev.lastwords.Scenario;
import dev.lastwords.Stage;

/*
 * The Java enums generated at build time (probe/java/enum.java.in) hold
 * exactly the values of include/lastwords/vocab.h as the C compiler reads
 * it (TestNative.vocab(), tests/jni-test.c): the same constants, in the
 * same order, with the same names and codes; fromCode() finds each and
 * nothing else. tests/jvm-vocab.py runs it.
 *
 * Prints the lines that differ ("c: ..." and "java: ..."), then "ok N
 * values"; exits 1 when they differ.
 */
public final class JvmVocab {
	interface Lookup {
		Object at(int code);
	}

	static int failures;

	static <E extends Enum<E>> void rows(StringBuilder out, Class<E> cls, Lookup fromCode) {
		for (E e : cls.getEnumConstants()) {
			int code;
			String label;
			try {
				code = (Integer) cls.getMethod("code").invoke(e);
				label = (String) cls.getMethod("label").invoke(e);
			} catch (ReflectiveOperationException x) {
				throw new IllegalStateException(x);
			}
			out.append(cls.getSimpleName()).append(' ').append(e.name()).append(' ').append(label)
					.append(' ').append(code).append('\n');
			if (fromCode.at(code) != e) {
				System.out.println("FAIL: " + cls.getSimpleName() + ".fromCode(" + code + ") is not " + e);
				failures++;
			}
		}
		for (int code : new int[] { -1, 256, 1000 })
			if (fromCode.at(code) != null) {
				System.out.println("FAIL: " + cls.getSimpleName() + ".fromCode(" + code + ") is not null");
				failures++;
			}
	}

	public static void main(String[] args) {
		StringBuilder java = new StringBuilder();
		rows(java, Stage.class, Stage::fromCode);
		rows(java, ErrorClass.class, ErrorClass::fromCode);
		rows(java, Mark.class, Mark::fromCode);
		rows(java, Delegate.class, Delegate::fromCode);
		rows(java, Action.class, Action::fromCode);
		rows(java, AdviceKind.class, AdviceKind::fromCode);
		rows(java, PayloadClass.class, PayloadClass::fromCode);
		rows(java, CacheOp.class, CacheOp::fromCode);
		rows(java, Scenario.class, Scenario::fromCode);
		rows(java, PressureSource.class, PressureSource::fromCode);
		String c = TestNative.vocab();
		String[] cl = c.split("\n"), jl = java.toString().split("\n");
		for (int i = 0; i < Math.max(cl.length, jl.length); i++) {
			String a = i < cl.length ? cl[i] : "(none)", b = i < jl.length ? jl[i] : "(none)";
			if (!a.equals(b)) {
				System.out.println("c:    " + a);
				System.out.println("java: " + b);
				failures++;
			}
		}
		System.out.println("ok " + cl.length + " values");
		System.exit(failures == 0 && cl.length > 40 ? 0 : 1);
	}
}
