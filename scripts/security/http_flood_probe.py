#!/usr/bin/env python3
"""Floods a running `platformd serve --http` with what a client that never logs in can send,
then times a fresh client and reads the server's resident memory.

    python3 scripts/security/http_flood_probe.py --port 8080 --pid PID [--idle 1100] [--bodies 1000]

Opens IDLE connections that send nothing and half a request head, and BODIES connections that
each send most of a 1 MB body to POST /rpc (no bearer, so the server must read it to find the
method), then asks GET /health/live and POST /rpc rpc.discover on new connections and prints how
long each took, how many flood connections the server closed, and its resident memory before and
after (from /proc/PID/status). Loopback only; every socket is closed at the end.
"""
import argparse
import socket
import sys
import time


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def connect(port):
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.setblocking(False)
    return sock


def timed_request(port, request):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        reply = sock.recv(4096)
    return time.monotonic() - started, reply.split(b"\r\n", 1)[0].decode(errors="replace")


def closed(sock):
    try:
        return sock.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--idle", type=int, default=1100)
    parser.add_argument("--bodies", type=int, default=1000)
    parser.add_argument("--body-bytes", type=int, default=1_000_000)
    arguments = parser.parse_args()

    before = resident_kib(arguments.pid)
    flood = []
    for index in range(arguments.idle):
        sock = connect(arguments.port)
        if index % 2:
            sock.send(b"GET /health/live HTTP/1.1\r\nHost: x\r\n")
        flood.append(sock)
    head = (
        "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {arguments.body_bytes}\r\n\r\n"
    ).encode()
    chunk = b" " * 65536
    for _ in range(arguments.bodies):
        try:
            sock = connect(arguments.port)
            sock.send(head)
            sent = 0
            while sent < arguments.body_bytes * 9 // 10:
                sent += sock.send(chunk)
        except (BlockingIOError, OSError):
            pass
        flood.append(sock)
    time.sleep(1)
    peak = resident_kib(arguments.pid)
    live = timed_request(arguments.port, b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
    body = b'{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}'
    rpc = timed_request(
        arguments.port,
        b"POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        + str(len(body)).encode() + b"\r\n\r\n" + body,
    )
    shut = sum(1 for sock in flood if closed(sock))
    print(f"flood: {arguments.idle} idle or half-head, {arguments.bodies} half-sent bodies; server closed {shut}")
    print(f"fresh GET /health/live: {live[0] * 1000:.0f} ms ({live[1]})")
    print(f"fresh POST /rpc rpc.discover: {rpc[0] * 1000:.0f} ms ({rpc[1]})")
    print(f"resident: {before // 1024} MB before, {peak // 1024} MB under the flood (+{(peak - before) // 1024} MB)")
    for sock in flood:
        sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
