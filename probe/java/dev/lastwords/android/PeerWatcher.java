package dev.lastwords.android;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import android.app.ActivityManager;
import android.content.ComponentName;
import android.content.Context;
import android.content.ServiceConnection;
import android.os.IBinder;
import android.os.RemoteException;

import dev.lastwords.Probe;

/**
 * The main process's witness of its bound {@code :inference} process: a
 * {@link ServiceConnection} that records {@link Probe#peerDied} on the
 * main process's probe when the peer process dies, once per death.
 * Bind with it as the connection:
 * {@code context.bindService(intent, watcher, Context.BIND_AUTO_CREATE)}, and
 * unbind with {@link #unbind()}, which records nothing.
 *
 * <p>Both of the system's signals of a death are taken, whichever comes
 * first: {@link IBinder.DeathRecipient#binderDied()} (on a binder thread,
 * within milliseconds) and {@link #onServiceDisconnected} (on the main
 * thread). One death is one {@code peer_died}; a clean
 * {@code unbindService()} is none (the system calls neither then). When
 * the system restarts the service, {@link #onServiceConnected} starts the
 * watch of the new process.
 *
 * <p>The peer's pid comes from {@code ActivityManager.getRunningAppProcesses()}
 * at {@link #onServiceConnected}, by the peer's process name: from API 22
 * it lists the caller's own processes, which the {@code :inference}
 * process is one of, and it needs no code in the service. The binder
 * itself does not tell its process ({@code Binder.getCallingPid()} is the
 * system's in these callbacks). When no process of that name is listed
 * (it died in between), its death is not recorded: a {@code peer_died}
 * joins its run by the pid.
 *
 * <p>Works on every API level: nothing here needs API 30.
 */
public final class PeerWatcher implements ServiceConnection {
	private final Context context;
	private final Probe probe;
	private final String processName;
	private final AtomicReference<Peer> current = new AtomicReference<Peer>();

	/**
	 * @param context the main process's context (to unbind, and to find
	 *        the peer's pid)
	 * @param probe the main process's probe, which records the deaths
	 * @param processName the peer's process name, as its
	 *        {@code android:process} makes it:
	 *        {@code "com.example.app:inference"}
	 */
	public PeerWatcher(Context context, Probe probe, String processName) {
		if (context == null || probe == null || processName == null)
			throw new NullPointerException(context == null ? "context"
					: probe == null ? "probe" : "processName");
		this.context = context;
		this.probe = probe;
		this.processName = processName;
	}

	/* One bound process: its death is recorded once. */
	private final class Peer implements IBinder.DeathRecipient {
		final IBinder binder;
		final int pid;
		final AtomicBoolean over = new AtomicBoolean();

		Peer(IBinder binder, int pid) {
			this.binder = binder;
			this.pid = pid;
		}

		@Override
		public void binderDied() {
			current.compareAndSet(this, null);
			died();
		}

		void died() {
			if (over.compareAndSet(false, true) && pid > 0)
				probe.peerDied(pid, processName);
		}

		/* The end of the watch without a death: unbound, or replaced. */
		void forget() {
			if (over.compareAndSet(false, true))
				binder.unlinkToDeath(this, 0);
		}
	}

	@Override
	public void onServiceConnected(ComponentName name, IBinder service) {
		Peer peer = new Peer(service, pidOf(processName));
		Peer old = current.getAndSet(peer);
		if (old != null)
			old.forget();
		try {
			service.linkToDeath(peer, 0);
		} catch (RemoteException e) {
			peer.binderDied(); /* dead already */
		}
	}

	@Override
	public void onServiceDisconnected(ComponentName name) {
		Peer peer = current.getAndSet(null);
		if (peer != null)
			peer.died();
	}

	/** Ends the watch and unbinds ({@code context.unbindService(this)}):
	 * nothing is recorded for it, nor for a death after it. */
	public void unbind() {
		Peer peer = current.getAndSet(null);
		if (peer != null)
			peer.forget();
		context.unbindService(this);
	}

	/* The pid of the app's process of that name, or 0 when none runs. */
	private int pidOf(String process) {
		ActivityManager am = (ActivityManager) context.getSystemService(Context.ACTIVITY_SERVICE);
		List<ActivityManager.RunningAppProcessInfo> running = am.getRunningAppProcesses();
		if (running != null)
			for (ActivityManager.RunningAppProcessInfo p : running)
				if (process.equals(p.processName))
					return p.pid;
		return 0;
	}
}
