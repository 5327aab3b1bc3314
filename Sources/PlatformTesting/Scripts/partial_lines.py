"""Holds partial lines open against a platformd Unix socket, in a process of its own.

Usage: partial_lines.py SOCKET COUNT BYTES

Opens COUNT connections and sends each BYTES bytes of one JSON-RPC line that never ends, until
every connection has sent them all or the server has closed it. Prints one line,
"ready closed=C holding=H", then holds the open connections until stdin closes.

A process of its own, so the test process keeps its descriptors below 1024: Foundation's
Process.run crashed when a test held hundreds of sockets while other tests launched processes.
"""
import os
import select
import socket
import sys


def main():
    path, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    prefix = b'{"jsonrpc":"2.0","id":1,"method":"platform.info","params":{"pad":"'
    line = prefix + b"x" * (size - len(prefix))
    clients = []
    for _ in range(count):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(path)
        client.setblocking(False)
        clients.append(client)
    sent = [0] * count
    closed = [False] * count
    poller = select.poll()
    for client in clients:
        poller.register(client, select.POLLOUT)
    by_fd = {client.fileno(): index for index, client in enumerate(clients)}
    while any(not closed[i] and sent[i] < size for i in range(count)):
        for fd, _ in poller.poll(200):
            index = by_fd[fd]
            try:
                written = clients[index].send(line[sent[index]:])
                sent[index] += written
            except BlockingIOError:
                continue
            except OSError:
                closed[index] = True
            if closed[index] or sent[index] >= size:
                poller.unregister(fd)
    # A connection whose whole line went out before the server chose it is closed too when the
    # server reads on: look for its end of file.
    for index, client in enumerate(clients):
        if closed[index]:
            continue
        readable, _, _ = select.select([client], [], [], 0)
        if readable:
            try:
                if client.recv(1) == b"":
                    closed[index] = True
            except OSError:
                closed[index] = True
    print(f"ready closed={sum(closed)} holding={count - sum(closed)}", flush=True)
    sys.stdin.read()
    for client in clients:
        client.close()


if __name__ == "__main__":
    main()
