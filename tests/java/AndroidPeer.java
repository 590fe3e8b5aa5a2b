import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import android.app.ActivityManager;
import android.content.ComponentName;
import android.os.IBinder;
import android.os.RemoteException;

import dev.lastwords.Probe;
import dev.lastwords.android.PeerWatcher;

/*
 * PeerWatcher in the main process, on a JVM against the stand-in android.*
 * classes (tests/android-peer-watcher.py). It opens the main process's
 * probe in FILES and plays the system through the deaths of the bound
 * :inference process: binderDied() then onServiceDisconnected() (pid
 * 4101), the other order (4102), a clean unbind and a death after it
 * (4103: none), a binder dead at bind (4104), an :inference process that
 * is not listed (none), then 50 deaths whose two signals come at once on
 * two threads (5000..5049). Prints "ring PATH" and closes the probe.
 *
 * usage: AndroidPeer FILES
 */
public final class AndroidPeer {
	static final String PROCESS = "com.example.app:inference";
	static final ComponentName NAME = new ComponentName("com.example.app", "InferenceService");

	/* A binder of the peer: dies when told to, calling its recipients as
	 * a binder thread does. */
	static final class TestBinder implements IBinder {
		final List<DeathRecipient> recipients = new ArrayList<DeathRecipient>();
		boolean dead;

		TestBinder(boolean dead) {
			this.dead = dead;
		}

		@Override
		public synchronized void linkToDeath(DeathRecipient r, int flags) throws RemoteException {
			if (dead)
				throw new RemoteException("the binder is dead");
			recipients.add(r);
		}

		@Override
		public synchronized boolean unlinkToDeath(DeathRecipient r, int flags) {
			return !dead && recipients.remove(r);
		}

		void die() {
			List<DeathRecipient> rs;
			synchronized (this) {
				dead = true;
				rs = new ArrayList<DeathRecipient>(recipients);
				recipients.clear();
			}
			for (DeathRecipient r : rs)
				r.binderDied();
		}
	}

	public static void main(String[] args) throws Exception {
		TestContext ctx = new TestContext("com.example.app", new File(args[0]), null);
		Probe probe = Probe.open(args[0], "com.example.app", 42, 0, 0);
		PeerWatcher w = new PeerWatcher(ctx, probe, PROCESS);

		TestBinder b = connect(ctx, w, 4101, false);
		b.die();
		w.onServiceDisconnected(NAME);

		b = connect(ctx, w, 4102, false);
		w.onServiceDisconnected(NAME);
		b.die();

		b = connect(ctx, w, 4103, false);
		w.unbind();
		b.die();
		if (ctx.unbound.size() != 1 || ctx.unbound.get(0) != w)
			throw new AssertionError("unbind() did not unbind the watcher: " + ctx.unbound);

		connect(ctx, w, 4104, true);
		w.onServiceDisconnected(NAME);

		ctx.am.running.clear();
		b = new TestBinder(false);
		w.onServiceConnected(NAME, b);
		b.die();
		w.onServiceDisconnected(NAME);

		for (int i = 0; i < 50; i++) {
			final TestBinder x = connect(ctx, w, 5000 + i, false);
			final PeerWatcher fw = w;
			final CountDownLatch go = new CountDownLatch(1);
			Thread t = new Thread(new Runnable() {
				@Override
				public void run() {
					await(go);
					x.die();
				}
			});
			t.start();
			go.countDown();
			fw.onServiceDisconnected(NAME);
			t.join();
		}
		System.out.println("ring " + probe.path());
		probe.close();
	}

	/* The system binds the service in a process of that pid. */
	static TestBinder connect(TestContext ctx, PeerWatcher w, int pid, boolean dead) {
		ctx.am.running.clear();
		ctx.am.running.add(new ActivityManager.RunningAppProcessInfo("com.example.app", 4000,
				new String[] { "com.example.app" }));
		ctx.am.running.add(new ActivityManager.RunningAppProcessInfo(PROCESS, pid,
				new String[] { "com.example.app" }));
		TestBinder b = new TestBinder(dead);
		w.onServiceConnected(NAME, b);
		return b;
	}

	static void await(CountDownLatch l) {
		try {
			l.await();
		} catch (InterruptedException e) {
			throw new AssertionError(e);
		}
	}
}
