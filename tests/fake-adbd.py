#!/usr/bin/env python3
"""A device daemon for tests/pull-real-adb.py: it speaks the adb transport
on loopback TCP, as an emulator's or a phone's adbd does after `adb tcpip`,
so that the real adb server (`adb connect 127.0.0.1:PORT`) and the real
client talk to it, and plays the first device of a scenario
(tests/fake_device.py runs its commands).

usage: fake-adbd.py SCENARIO

It listens on 127.0.0.1 at a free port, prints the port on a line, and
serves until it is killed. What it speaks (AOSP adb: protocol.txt,
SERVICES.TXT, shell_protocol.h):
- messages of a 24-byte header (command, arg0, arg1, payload length,
  payload checksum, command ^ 0xffffffff) and a payload;
- CNXN at once, with a "device::" banner and its features, so the server
  takes it online without AUTH; with "auth": "refuse" in the device, an
  AUTH token instead, never accepted (the server lists it unauthorized);
- OPEN, answered by OKAY and the service's output in WRTE messages, each
  sent after the server's OKAY for the one before, then CLSE;
- exec:CMD, the device shell's output with stderr mixed in and no status;
  shell,v2,...:CMD (with "shell_v2" in the features, as by default),
  stdout and stderr in shell-protocol packets (an id byte, a 4-byte length)
  and an exit packet with the status; shell:CMD without it, mixed output
  and no status. Other services are refused with CLSE.
The device's odd ways, beside those of tests/fake_device.py:
  "shell_v2": false     a device without the shell protocol
  "cut": {"when": TEXT, "after": N, "times": K}
                        the first K exec streams whose command has TEXT
                        are closed after N bytes
  "vanish_after": N     the connection is dropped at the (N+1)th OPEN
"""
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading

from fake_device import Device, load

A_CNXN, A_AUTH, A_OPEN, A_OKAY, A_CLSE, A_WRTE = (
    0x4E584E43, 0x48545541, 0x4E45504F, 0x59414B4F, 0x45534C43, 0x45545257)
A_VERSION = 0x01000001  # skips payload checksums once both sides have it
MAX_PAYLOAD = 256 * 1024
SHELL_STDOUT, SHELL_STDERR, SHELL_EXIT = 1, 2, 3


class Connection:
    def __init__(self, sock, dev, device):
        self.sock, self.dev, self.device = sock, dev, device
        self.wlock = threading.Lock()
        self.streams = {}  # our id -> Stream
        self.next_id = 1
        self.opens = 0
        self.cuts = 0
        self.max_data = 4096  # until the server's CNXN says more

    def send(self, cmd, arg0, arg1, data=b""):
        head = struct.pack("<6I", cmd, arg0, arg1, len(data), sum(data) & 0xFFFFFFFF,
                           cmd ^ 0xFFFFFFFF)
        with self.wlock:
            self.sock.sendall(head + data)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            got = self.sock.recv(n - len(buf))
            if not got:
                raise EOFError
            buf += got
        return buf

    def serve(self):
        try:
            while True:
                cmd, arg0, arg1, length, _, magic = struct.unpack("<6I", self.recv_exact(24))
                if magic != cmd ^ 0xFFFFFFFF:
                    return
                data = self.recv_exact(length) if length else b""
                self.handle(cmd, arg0, arg1, data)
        except (EOFError, OSError):
            pass
        finally:
            for st in list(self.streams.values()):
                st.close()
            self.sock.close()

    def handle(self, cmd, arg0, arg1, data):
        if cmd == A_CNXN:
            self.max_data = min(arg1, MAX_PAYLOAD)
            if self.dev.get("auth") == "refuse":
                self.send(A_AUTH, 1, 0, os.urandom(20))  # a token no key will do for
                return
            features = "shell_v2,cmd" if self.dev.get("shell_v2", True) else "cmd"
            props = self.dev.get("props", {})
            banner = "device::ro.product.name=%s;ro.product.model=%s;ro.product.device=%s;" \
                     "features=%s" % (props.get("ro.hardware", "demo"),
                                      props.get("ro.product.model", "demo"),
                                      props.get("ro.hardware", "demo"), features)
            self.send(A_CNXN, A_VERSION, MAX_PAYLOAD, banner.encode())
        elif cmd == A_AUTH:
            if arg0 == 2:  # a signature: refused, another token
                self.send(A_AUTH, 1, 0, os.urandom(20))
        elif cmd == A_OPEN:
            self.opens += 1
            if "vanish_after" in self.dev and self.opens > self.dev["vanish_after"]:
                self.sock.shutdown(socket.SHUT_RDWR)
                raise EOFError
            ours = self.next_id
            self.next_id += 1
            st = Stream(self, ours, arg0, data.rstrip(b"\0").decode())
            if not st.argv:
                self.send(A_CLSE, 0, arg0)
                return
            self.streams[ours] = st
            self.send(A_OKAY, ours, arg0)
            threading.Thread(target=st.run, daemon=True).start()
        elif cmd == A_OKAY:
            st = self.streams.get(arg1)
            if st:
                st.credit.release()
        elif cmd == A_WRTE:
            st = self.streams.get(arg1)
            if st:
                self.send(A_OKAY, st.ours, st.theirs)  # stdin: taken and dropped
        elif cmd == A_CLSE:
            st = self.streams.pop(arg1, None)
            if st:
                st.close()


class Stream:
    def __init__(self, conn, ours, theirs, service):
        self.conn, self.ours, self.theirs = conn, ours, theirs
        self.credit = threading.Semaphore(0)  # the server's OKAY for our last WRTE
        self.closed = False
        self.proc = None
        self.v2 = False
        self.cut_after = None
        self.argv = None
        if service.startswith("exec:"):
            cmd = service[5:]
            cut = conn.dev.get("cut")
            if cut and cut["when"] in cmd and conn.cuts < cut.get("times", 1):
                conn.cuts += 1
                self.cut_after = cut["after"]
        elif service.startswith("shell") and ":" in service:
            opts, cmd = service.split(":", 1)
            self.v2 = "v2" in opts.split(",") and conn.dev.get("shell_v2", True)
        else:
            return
        self.argv, self.env, self.cwd = conn.device.shell(cmd)

    def write(self, data):
        for i in range(0, len(data), self.conn.max_data):
            if self.closed:
                return False
            self.conn.send(A_WRTE, self.ours, self.theirs, data[i:i + self.conn.max_data])
            while not self.credit.acquire(timeout=0.2):
                if self.closed:
                    return False
        return True

    def packet(self, kind, data):
        return self.write(struct.pack("<BI", kind, len(data)) + data)

    def run(self):
        err = subprocess.PIPE if self.v2 else subprocess.STDOUT
        self.proc = subprocess.Popen(self.argv, env=self.env, cwd=self.cwd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=err)
        if self.v2:
            # stderr on its own thread, so neither pipe can fill and block.
            errs = []
            t = threading.Thread(target=lambda: errs.append(self.proc.stderr.read()), daemon=True)
            t.start()
        sent = 0
        while True:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                break
            if self.cut_after is not None and sent + len(chunk) >= self.cut_after:
                self.write(chunk[:self.cut_after - sent])
                self.proc.kill()
                break
            sent += len(chunk)
            if not (self.packet(SHELL_STDOUT, chunk) if self.v2 else self.write(chunk)):
                self.proc.kill()
                break
        status = self.proc.wait()
        if self.v2 and not self.closed and self.cut_after is None:
            t.join()
            if errs[0]:
                self.packet(SHELL_STDERR, errs[0])
            self.packet(SHELL_EXIT, bytes([status & 0xFF]))
        if not self.closed:
            self.conn.streams.pop(self.ours, None)
            self.closed = True
            self.conn.send(A_CLSE, self.ours, self.theirs)

    def close(self):
        self.closed = True
        if self.proc and self.proc.poll() is None:
            self.proc.kill()


def main():
    if len(sys.argv) != 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    scenario, base = load(sys.argv[1])
    dev = scenario["devices"][0]
    device = Device(dev, base, tempfile.mkdtemp(prefix="lw-adbd-",
                                                dir=os.path.dirname(os.path.abspath(sys.argv[1]))))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    print(listener.getsockname()[1], flush=True)
    while True:
        sock, _ = listener.accept()
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=Connection(sock, dev, device).serve, daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
