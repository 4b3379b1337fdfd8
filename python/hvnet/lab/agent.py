"""The lab's agent: one process in each host's namespace that receives, sends and samples its NICs.

Standard library only, and run by its path (`ip netns exec NS python3 .../agent.py JOB.json`), so it
starts in tens of milliseconds and imports nothing of hvnet. `lab.runner` writes its JOB (the
host's interfaces, the connections it receives, the transfers it sends: `lab.timeline.agent_jobs`)
and talks to it in lines, on its standard input and output:

    agent  -> runner   ready              it listens on PORT
    runner -> agent    start T0           the scenario's 0 s is T0 (seconds since 1970, time.time())
    agent  -> runner   ended xN T         its transfer xN's last stream is done, T seconds after T0
    runner -> agent    ended xN T         another host's transfer ended (for transfers that wait on it)
    agent  -> runner   done               all it sends and receives is done
    runner -> agent    stop               stop, write the results, exit (so does the end of its input)

What it does, from T0 on:

- **samples** `/proc/net/dev` every `sample_s` (0.1 s), from T0, and writes the host's log as
  docs/import.md's "Snapshots over time" recipe would (line 1 the host's name, then `date +%s.%N`
  and the table, again and again), each interface under the scenario NIC's name, so that
  `hvnet import measurement` and `hvnet explain` read it as they read any host's;
- **receives** every connection it expects on one listening socket, each known by the local
  address it arrives at; a connection's end is when its sender's FIN arrives (all its bytes in);
- **sends** each transfer at its time (or when the transfers it waits for have ended, after the
  twin's pause), step after step, each stream a TCP connection from its own address: its bytes
  (a steady flow at its rate, paced by the sender, until its stop time), then FIN; it waits for
  the receiver's close, then reads the connection's `TCP_INFO` (segments retransmitted, MSS);
- counts the host's TCP segments sent and retransmitted (`/proc/net/snmp`) and its own CPU time.
"""

from __future__ import annotations

import contextlib
import json
import resource
import select
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from pathlib import Path
from typing import Any

__all__ = ["Agent", "main"]

#: struct tcp_info (include/uapi/linux/tcp.h): 8 bytes of u8 fields, then u32s: tcpi_snd_mss is
#: the 3rd (offset 16), tcpi_total_retrans the 24th (offset 100).
_TCP_INFO_BYTES = 104
_SND_MSS_AT = 16
_TOTAL_RETRANS_AT = 100
_CHUNK = 1 << 18
_POLL_S = 0.05
#: How much before its time each snapshot is taken.
_EARLY_S = 0.005


def _tcp_counters() -> dict[str, int]:
    """The namespace's TCP counters (/proc/net/snmp's Tcp: lines)."""
    rows = [line.split() for line in Path("/proc/net/snmp").read_text().splitlines() if line.startswith("Tcp:")]
    return dict(zip(rows[0][1:], map(int, rows[1][1:]))) if len(rows) >= 2 else {}


class Agent:
    def __init__(self, job: dict[str, Any]) -> None:
        self.job = job
        self.t0 = 0.0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.ended: dict[str, float] = {}
        self.changed = threading.Condition(self.lock)
        self.sent: list[dict[str, Any]] = []
        self.received = {
            r["address"]: {"id": r["id"], "bytes": 0, "first_s": None, "end_s": None} for r in job["receive"]
        }
        self.samples: list[str] = []
        self.threads: list[threading.Thread] = []
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp_before: dict[str, int] = {}
        self.errors: list[str] = []

    def now(self) -> float:
        return time.time() - self.t0

    def say(self, line: str) -> None:
        with self.lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    # --- sampling ---------------------------------------------------------------------------

    def _snapshot(self) -> str:
        stamp = time.time_ns()
        lines = Path("/proc/net/dev").read_text().splitlines()
        names: dict[str, str] = self.job["interfaces"]
        rows = []
        for line in lines[2:]:
            name, _, rest = line.partition(":")
            if name.strip() in names:
                rows.append(f"{names[name.strip()]:>6}:{rest}")
        return "\n".join([f"{stamp // 1_000_000_000}.{stamp % 1_000_000_000:09d}", *lines[:2], *rows])

    def _sample(self) -> None:
        step = float(self.job["sample_s"])
        k = 0
        while True:  # a little early: the first snapshot is before any traffic
            pause = self.t0 + k * step - _EARLY_S - time.time()
            if pause > 0 and self.stop.wait(pause):
                self.samples.append(self._snapshot())  # the last: where the run stopped
                return
            self.samples.append(self._snapshot())
            k += 1

    # --- receiving ------------------------------------------------------------------------

    def listen(self) -> None:
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("0.0.0.0", int(self.job["port"])))
        self.listener.listen(512)
        self.listener.setblocking(False)

    def _receive(self) -> None:
        chooser = selectors.DefaultSelector()
        chooser.register(self.listener, selectors.EVENT_READ, None)
        buffer = bytearray(1 << 20)
        pending = len(self.received)
        while pending and not self.stop.is_set():
            for key, _ in chooser.select(_POLL_S):
                if key.data is None:
                    with contextlib.suppress(BlockingIOError):
                        conn, _ = self.listener.accept()
                        conn.setblocking(False)
                        chooser.register(conn, selectors.EVENT_READ, conn.getsockname()[0])
                    continue
                record = self.received.get(key.data)
                conn = key.fileobj  # type: ignore[assignment]
                try:
                    n = conn.recv_into(buffer)
                except BlockingIOError:
                    continue
                except OSError as error:
                    self.errors.append(f"receive {key.data}: {error}")
                    n = 0
                if record is None:
                    if not n:
                        chooser.unregister(conn)
                        conn.close()
                    continue
                if n:
                    record["bytes"] += n
                    if record["first_s"] is None:
                        record["first_s"] = self.now()
                    continue
                record["end_s"] = self.now()
                chooser.unregister(conn)
                conn.close()
                pending -= 1
        for key in list(chooser.get_map().values()):
            if key.data is not None:
                key.fileobj.close()  # type: ignore[union-attr]
        chooser.close()

    # --- sending ----------------------------------------------------------------------------

    def _connect(self, spec: dict[str, Any], record: dict[str, Any]) -> socket.socket | None:
        while not self.stop.is_set():
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.bind((spec["src"], 0))
            sock.setblocking(False)
            error = sock.connect_ex((spec["dst"], int(spec["port"])))
            while error in (115, 114) and not self.stop.is_set():  # EINPROGRESS, EALREADY
                _, writable, _ = select.select([], [sock], [], _POLL_S)
                if writable:
                    error = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error == 0:
                record["connected_s"] = self.now()
                sock.settimeout(_POLL_S)
                return sock
            sock.close()
            record["error"] = f"connect: errno {error}"
            self.stop.wait(0.2)
        return None

    def _pace(self, spec: dict[str, Any], started: float, sent: int) -> int:
        """How much a stream may send now: all of it, or what its rate allows (0: wait)."""
        rate = spec.get("rate_bytes_per_s")
        if rate is None:
            return _CHUNK
        allowed = int(rate * (self.now() - started)) - sent
        if allowed <= 0:
            time.sleep(min(0.005, -allowed / rate + 0.0005))
        return max(0, min(_CHUNK, allowed))

    def _stream(self, spec: dict[str, Any], records: list[dict[str, Any]]) -> None:
        """Sends one stream (module doc); its record joins `records`."""
        record: dict[str, Any] = {"id": spec["id"], "start_s": self.now(), "connected_s": None, "sent_bytes": 0}
        records.append(record)
        record |= {"done_s": None, "retransmits": None, "mss": None, "error": None}
        sock = self._connect(spec, record)
        if sock is None:
            return
        zeros = memoryview(bytes(_CHUNK))
        left, stop_s = int(spec["bytes"]), spec.get("stop_s")
        started = self.now()
        try:
            while left > 0 and not self.stop.is_set() and (stop_s is None or self.now() < stop_s):
                allowed = self._pace(spec, started, record["sent_bytes"])
                if not allowed:
                    continue
                with contextlib.suppress(TimeoutError):
                    n = sock.send(zeros[: min(left, allowed)])
                    left -= n
                    record["sent_bytes"] += n
            sock.shutdown(socket.SHUT_WR)
            while not self.stop.is_set():
                with contextlib.suppress(TimeoutError):
                    if not sock.recv(4096):
                        record["done_s"] = self.now()
                        break
            info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
            record["mss"] = struct.unpack_from("I", info, _SND_MSS_AT)[0]
            record["retransmits"] = struct.unpack_from("I", info, _TOTAL_RETRANS_AT)[0]
            record["error"] = None if record["done_s"] is not None else "stopped before the end"
        except OSError as error:
            record["error"] = str(error)
        finally:
            sock.close()

    def _wait_for(self, transfer: dict[str, Any]) -> bool:
        """Waits until the transfer may start (its time, or its waits ended and the pause); False: stopped."""
        after = transfer["after"]
        with self.changed:
            while after and not all(a in self.ended for a in after):
                if self.stop.is_set():
                    return False
                self.changed.wait(_POLL_S)
            start = max(self.ended[a] for a in after) + transfer["gap_s"] if after else transfer["start_s"]
        return not self.stop.wait(max(0.0, start - self.now()))

    def _send(self, transfer: dict[str, Any]) -> None:
        if not self._wait_for(transfer):
            return
        last = self.now()
        for k, step in enumerate(transfer["steps"]):
            if k and self.stop.wait(max(0.0, last + transfer["step_gaps_s"][k - 1] - self.now())):
                return
            records: list[dict[str, Any]] = []
            workers = [threading.Thread(target=self._stream, args=(s, records)) for s in step]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            self.sent += records
            if any(r["done_s"] is None for r in records):
                return
            last = max(r["done_s"] for r in records)
        self.note_ended(transfer["id"], last)
        self.say(f"ended {transfer['id']} {last:.6f}")

    def note_ended(self, transfer: str, at: float) -> None:
        with self.changed:
            self.ended[transfer] = at
            self.changed.notify_all()

    # --- the run ----------------------------------------------------------------------------

    def run(self, t0: float) -> None:
        self.t0 = t0
        self.tcp_before = _tcp_counters()
        self.threads = [threading.Thread(target=self._sample), threading.Thread(target=self._receive)]
        self.threads += [threading.Thread(target=self._send, args=(t,)) for t in self.job["send"]]
        for thread in self.threads:
            thread.start()
        threading.Thread(target=self._watch, daemon=True).start()

    def _watch(self) -> None:
        """Says `done` once every thread but the sampler has finished; stops at the deadline."""
        deadline = self.t0 + float(self.job["deadline_s"])
        for thread in self.threads[1:]:
            thread.join(max(0.0, deadline - time.time()))
        if time.time() >= deadline:
            self.stop.set()
        self.say("done")

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(10.0)
        self.listener.close()
        after = _tcp_counters()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        result = {
            "host": self.job["host"],
            "t0": self.t0,
            "sent": sorted(self.sent, key=lambda r: r["id"]),
            "received": sorted(self.received.values(), key=lambda r: r["id"]),
            "ended": self.ended,
            "tcp": {k: after.get(k, 0) - self.tcp_before.get(k, 0) for k in ("OutSegs", "RetransSegs", "InSegs")},
            "cpu_s": usage.ru_utime + usage.ru_stime,
            "errors": self.errors,
        }
        log = "\n".join([self.job["host"], *self.samples]) + "\n"
        Path(self.job["log"]).write_text(log)
        Path(self.job["result"]).write_text(json.dumps(result, indent=1) + "\n")


def main(argv: list[str]) -> int:
    """The agent's process (module doc); its exit code."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner stops it; a terminal's Ctrl-C is the runner's
    agent = Agent(json.loads(Path(argv[1]).read_text()))
    agent.listen()
    agent.say("ready")
    first = sys.stdin.readline().split()
    if len(first) != 2 or first[0] != "start":
        return 2
    agent.run(float(first[1]))
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["stop"]:
            break
        if words[:1] == ["ended"] and len(words) == 3:
            agent.note_ended(words[1], float(words[2]))
    agent.finish()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
