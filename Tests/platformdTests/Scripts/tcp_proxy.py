#!/usr/bin/env python3
"""A TCP proxy a test can cut, to take a database away from a serving host and give it back.

Usage: tcp_proxy.py TARGET_HOST TARGET_PORT

Listens on 127.0.0.1 (a free port, printed as "port N" on stdout once listening) and forwards each
connection to TARGET_HOST:TARGET_PORT. A line "down" on stdin cuts it: every open connection is
closed and new ones are refused (the listener is closed); "up" restores it on the same port. It
prints "down" and "up" as it changes, and runs until stdin closes or SIGTERM. (Commands come on
stdin rather than as signals: a test runner's children may inherit a mask that blocks them.)
"""
import asyncio
import signal
import socket
import sys


async def main(target_host, target_port):
    connections = set()
    state = {"server": None, "port": 0}

    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def handle(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        tasks = [asyncio.ensure_future(pipe(client_reader, server_writer)), asyncio.ensure_future(pipe(server_reader, client_writer))]
        entry = (client_writer, server_writer, tuple(tasks))
        connections.add(entry)
        try:
            await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            connections.discard(entry)

    async def start():
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", state["port"]))
        state["port"] = listener.getsockname()[1]
        state["server"] = await asyncio.start_server(handle, sock=listener)

    async def down():
        if state["server"] is not None:
            state["server"].close()
            state["server"] = None
        for client_writer, server_writer, tasks in list(connections):
            for task in tasks:
                task.cancel()
            client_writer.transport.abort()
            server_writer.transport.abort()
        print("down", flush=True)

    async def up():
        if state["server"] is None:
            await start()
        print("up", flush=True)

    await start()
    print(f"port {state['port']}", flush=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)

    def command():
        line = sys.stdin.readline()
        if not line:
            stop.set()
        elif line.strip() == "down":
            asyncio.ensure_future(down())
        elif line.strip() == "up":
            asyncio.ensure_future(up())

    loop.add_reader(sys.stdin, command)
    await stop.wait()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
