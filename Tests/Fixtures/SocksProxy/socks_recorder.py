#!/usr/bin/python3
"""A SOCKS5 proxy on 127.0.0.1 (RFC 1928: no authentication, CONNECT, IPv4 or domain name) that
records what it carries: one line per tunnel, `CONNECT host:port`, and one per HTTP request it
sees going out through that tunnel, `REQUEST host:port METHOD path`, on standard output. The
route a test gives an app as `socks5://127.0.0.1:PORT`; what went through it.

Usage: socks_recorder.py  (prints `READY <port>` once it accepts connections)
"""
import asyncio
import re
import socket
import struct
import sys

REQUEST_LINE = re.compile(rb"^(GET|POST|PUT|DELETE|HEAD|OPTIONS|PATCH) (\S+) HTTP/1\.[01]\r?$")


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def relay(reader, writer, watch=None):
    pending = b""
    try:
        while True:
            data = await reader.read(65536)
            if not data:
                break
            if watch is not None:
                pending += data
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    match = REQUEST_LINE.match(line)
                    if match:
                        watch(match.group(1).decode(), match.group(2).decode(errors="replace"))
                pending = pending[-8192:]
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        try:
            writer.close()
        except Exception:
            pass


async def client(reader, writer):
    try:
        version, count = await reader.readexactly(2)
        methods = await reader.readexactly(count)
        if version != 5 or 0 not in methods:
            writer.write(b"\x05\xff")
            await writer.drain()
            writer.close()
            return
        writer.write(b"\x05\x00")
        version, command, _, kind = await reader.readexactly(4)
        if kind == 1:
            host = socket.inet_ntoa(await reader.readexactly(4))
        elif kind == 3:
            length = (await reader.readexactly(1))[0]
            host = (await reader.readexactly(length)).decode()
        elif kind == 4:
            host = "[" + socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16)) + "]"
        else:
            writer.close()
            return
        (port,) = struct.unpack("!H", await reader.readexactly(2))
        if command != 1:
            writer.write(b"\x05\x07\x00\x01" + b"\x00" * 6)
            await writer.drain()
            writer.close()
            return
        authority = "%s:%d" % (host, port)
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host.strip("[]"), port)
        except OSError:
            say("REFUSED " + authority)
            writer.write(b"\x05\x05\x00\x01" + b"\x00" * 6)
            await writer.drain()
            writer.close()
            return
        say("CONNECT " + authority)
        writer.write(b"\x05\x00\x00\x01" + b"\x00" * 6)
        await writer.drain()
        await asyncio.gather(
            relay(reader, upstream_writer, lambda method, path: say("REQUEST %s %s %s" % (authority, method, path))),
            relay(upstream_reader, writer))
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def main():
    server = await asyncio.start_server(client, "127.0.0.1", 0)
    say("READY %d" % server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


asyncio.run(main())
