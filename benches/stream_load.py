#!/usr/bin/env python3
"""Load test of live analysis: N clients streaming GET /api/v1/analyze/stream.

Starts `boardscan serve` (release build) with Stockfish beside our engine,
then runs CONNECTIONS client threads for SECONDS. Each client opens a
stream, reads its events to `done` (or leaves after the first depth, for a
share of the streams given by --leave), and opens the next one; a 503 `busy`
answer is counted and retried after --backoff seconds. Meanwhile the
server's child processes (engine processes) and peak RSS are sampled.

    python3 benches/stream_load.py [--connections 64] [--seconds 30]
        [--engine stockfish|boardscan] [--movetime 1000] [--cpu-workers 2]
        [--max-jobs 6] [--leave 0.25] [--backoff 0.2]

Prints streams completed per second, time to the first depth and to `done`
(p50/p99), the answers by status, and the most engine processes seen.
"""

import argparse
import os
import socket
import subprocess
import threading
import time
import urllib.parse

STOCKFISH = "/usr/games/stockfish"
FENS = [
    "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3",
    "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7",
    "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 w - - 0 40",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def children(pid):
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        rest = stat.rsplit(") ", 1)[1].split()
        if int(rest[1]) == pid:
            found.append(int(entry))
    return found


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) // 1024
    return 0


def percentile(values, p):
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.status = {}
        self.first = []
        self.done = []
        self.depths = 0
        self.left = 0
        self.errors = []

    def add(self, **kw):
        with self.lock:
            for key, value in kw.items():
                if key == "status":
                    self.status[value] = self.status.get(value, 0) + 1
                elif key in ("first", "done"):
                    getattr(self, key).append(value)
                elif key == "error":
                    self.errors.append(value)
                else:
                    setattr(self, key, getattr(self, key) + value)


def one_stream(port, query, leave, stats):
    start = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(
            f"GET /api/v1/analyze/stream?{query} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        )
        reader = sock.makefile("rb")
        status = int(reader.readline().split()[1])
        stats.add(status=status)
        if status != 200:
            return status
        event = None
        depths = 0
        for raw in reader:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                if event == "depth":
                    depths += 1
                    if depths == 1:
                        stats.add(first=time.monotonic() - start)
                        if leave:
                            stats.add(left=1, depths=1)
                            return status
                elif event == "done":
                    stats.add(done=time.monotonic() - start, depths=depths)
                    return status
                elif event == "error":
                    stats.add(error=line[6:])
                    return status
        stats.add(error="stream ended without done")
        return status


def client(index, port, args, stop_at, stats):
    n = 0
    while time.monotonic() < stop_at:
        fen = FENS[(index + n) % len(FENS)]
        query = urllib.parse.urlencode(
            {"fen": fen, "engine": args.engine, "movetimeMs": args.movetime}
        )
        leave = ((index + n) % 100) < args.leave * 100
        n += 1
        try:
            if one_stream(port, query, leave, stats) == 503:
                time.sleep(args.backoff)
        except OSError as e:
            stats.add(error=str(e))
            time.sleep(args.backoff)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--engine", default="stockfish")
    parser.add_argument("--movetime", type=int, default=1000)
    parser.add_argument("--cpu-workers", type=int, default=2)
    parser.add_argument("--max-jobs", type=int, default=6)
    parser.add_argument("--leave", type=float, default=0.25)
    parser.add_argument("--backoff", type=float, default=0.2)
    parser.add_argument("--binary", default="target/release/boardscan")
    args = parser.parse_args()

    port = free_port()
    server = subprocess.Popen(
        [
            args.binary, "serve", "--bind", f"127.0.0.1:{port}",
            "--engine", f"stockfish={STOCKFISH}",
            "--cpu-workers", str(args.cpu_workers),
            "--max-jobs", str(args.max_jobs),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        stats = Stats()
        started = time.monotonic()
        stop_at = started + args.seconds
        threads = [
            threading.Thread(target=client, args=(i, port, args, stop_at, stats))
            for i in range(args.connections)
        ]
        for t in threads:
            t.start()
        most = 0
        while any(t.is_alive() for t in threads):
            most = max(most, len(children(server.pid)))
            time.sleep(0.2)
        elapsed = time.monotonic() - started
        time.sleep(1)
        after = children(server.pid)
        idle = []
        for pid in after:
            with open(f"/proc/{pid}/stat") as f:
                idle.append(f.read().rsplit(") ", 1)[1].split()[0])
        print(f"engine {args.engine}, {args.connections} connections, {args.seconds:.0f} s, "
              f"movetime {args.movetime} ms, cpu workers {args.cpu_workers}, max jobs {args.max_jobs}, "
              f"{args.leave:.0%} of streams left after their first depth")
        print(f"streams to done: {len(stats.done)} ({len(stats.done) / elapsed:.2f}/s); "
              f"left early: {stats.left}; depth events: {stats.depths}")
        print(f"first depth: p50 {percentile(stats.first, 50) * 1000:.0f} ms, "
              f"p99 {percentile(stats.first, 99) * 1000:.0f} ms")
        print(f"to done: p50 {percentile(stats.done, 50) * 1000:.0f} ms, "
              f"p99 {percentile(stats.done, 99) * 1000:.0f} ms")
        print(f"answers by status: {dict(sorted(stats.status.items()))}; "
              f"errors: {len(stats.errors)} {stats.errors[:3]}")
        print(f"engine processes: at most {most} during the run, {len(after)} after "
              f"(states {idle}); server peak RSS {peak_rss_mib(server.pid)} MiB")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
