import dev.lastwords.ErrorClass;
import dev.lastwords.Probe;
import dev.lastwords.Stage;

/*
 * The probe's crash handler in a JVM (tests/jvm-signals.py).
 *
 * usage: JvmSignals DIR MODE
 *   npe        installCrashHandler(), then a hot loop of caught
 *              NullPointerExceptions (the JVM's implicit null checks:
 *              SIGSEGVs that its handler turns into exceptions), then close
 *   npe-forced the same with the handler installed without the facade's
 *              check (TestNative.crashInstallUnchecked)
 *   native     installCrashHandler(), begin delegate_prepare, then a native
 *              crash in a JNI call (TestNative.crash()); never returns
 *   native-bare the same crash with no crash handler installed
 * Prints "installed", or "refused: MESSAGE" when installCrashHandler()
 * throws IllegalStateException, then "caught N" after the loop.
 */
public final class JvmSignals {
	static final int ROUNDS = 200000;

	static final class Box {
		int value;
	}

	static Box[] boxes = { new Box(), null };
	static int sink;

	/* A field read through a reference that is null every other call:
	 * the JIT's implicit null check, a SIGSEGV each time it is null. */
	static int touch(Box b) {
		return b.value;
	}

	public static void main(String[] args) throws Exception {
		String mode = args[1];
		try (Probe p = Probe.open(args[0], "com.example.jvm:inference", 1, 0, 0)) {
			if (mode.equals("npe-forced")) {
				System.out.println("forced " + TestNative.crashInstallUnchecked(p.nativeHandle()));
			} else if (!mode.equals("native-bare")) {
				try {
					p.installCrashHandler();
					System.out.println("installed");
				} catch (IllegalStateException e) {
					System.out.println("refused: " + e.getMessage());
				}
			}
			if (mode.startsWith("native")) {
				p.begin(Stage.DELEGATE_PREPARE);
				System.out.flush();
				TestNative.crash();
				System.out.println("survived the crash");
				System.exit(3);
			}
			p.begin(Stage.INFERENCE);
			int caught = 0;
			for (int i = 0; i < ROUNDS; i++) {
				try {
					sink += touch(boxes[i & 1]);
				} catch (NullPointerException e) {
					caught++;
				}
			}
			p.end(Stage.INFERENCE, ErrorClass.NONE);
			System.out.println("caught " + caught);
		}
	}
}
