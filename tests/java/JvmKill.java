import java.lang.management.ManagementFactory;

import dev.lastwords.Delegate;
import dev.lastwords.ErrorClass;
import dev.lastwords.Mark;
import dev.lastwords.Probe;
import dev.lastwords.Stage;

/*
 * A stand-in inference process on a JVM, to be killed with SIGKILL
 * mid-inference (tests/jvm-kill.py): it opens the probe, records the
 * candidate, load, runtime and delegate prepare and a first inference,
 * begins a second, prints "ready PID PATH RUNID", then records queue depth
 * marks inside that inference until it is killed.
 *
 * usage: JvmKill DIR PROCESS
 */
public final class JvmKill {
	public static void main(String[] args) throws Exception {
		Probe p = Probe.open(args[0], args[1], 42, 64 * 1024, 20);
		p.candidate("model-v7-int8");
		for (Stage s : new Stage[] { Stage.LOAD, Stage.RUNTIME_PREPARE, Stage.DELEGATE_PREPARE }) {
			p.begin(s);
			if (s == Stage.DELEGATE_PREPARE)
				p.mark(Mark.DELEGATE, Delegate.GPU.code());
			p.end(s, ErrorClass.NONE);
		}
		p.begin(Stage.INFERENCE);
		p.end(Stage.INFERENCE, ErrorClass.NONE);
		p.begin(Stage.INFERENCE);
		String vm = ManagementFactory.getRuntimeMXBean().getName(); /* "pid@host" */
		System.out.println("ready " + vm.substring(0, vm.indexOf('@')) + " " + p.path() + " "
				+ p.runId());
		System.out.flush();
		for (long i = 0;; i++) {
			p.mark(Mark.QUEUE_DEPTH, i % 8);
			Thread.sleep(5);
		}
	}
}
