#!/usr/bin/env python3
"""Connect N WebSocket clients at once to a sudoku-race server and say how each fared.

Usage: scripts/fd-limit-probe.py HOST:PORT [N=70] [WAIT_S=10] [STAGGER_MS=0]

All N connect at once, or one every STAGGER_MS.

Each client opens a socket, sends the WebSocket handshake for /ws and reads frames:
- served:  `welcome`, and its `ping` is answered with `pong` (the first one served also
           creates a room and must get `room_joined`); the socket is kept open until every
           client is done, so the served ones hold their descriptors;
- full:    `welcome`, `error` `server_full`, then a close frame (its code is counted);
- closed:  the connection is refused, reset or closed before `welcome`;
- hung:    no answer for WAIT_S seconds at some step (what must never happen).

Only the standard library: the handshake and frames are written by hand (text frames, masked,
no extensions), which is all the server's answers need.
"""

import asyncio
import base64
import collections
import json
import os
import struct
import sys
import time


async def read_frame(reader):
    """One frame: (opcode, payload)."""
    head = await reader.readexactly(2)
    opcode = head[0] & 0x0F
    length = head[1] & 0x7F
    if length == 126:
        length = struct.unpack("!H", await reader.readexactly(2))[0]
    elif length == 127:
        length = struct.unpack("!Q", await reader.readexactly(8))[0]
    return opcode, await reader.readexactly(length)


async def read_message(reader):
    """The next text message as JSON, or ('close', code)."""
    while True:
        opcode, payload = await read_frame(reader)
        if opcode == 0x1:
            return json.loads(payload)
        if opcode == 0x8:
            code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
            return ("close", code)


def text_frame(obj):
    data = json.dumps(obj).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    assert len(data) < 126
    return bytes([0x81, 0x80 | len(data)]) + mask + masked


async def client(host, port, i, wait_s, done, waiting):
    """One client's outcome, and how long it took to have it (seconds)."""
    start = time.monotonic()
    outcome = await fare(host, port, i, wait_s, done, waiting)
    return outcome + (time.monotonic() - start,)


async def fare(host, port, i, wait_s, done, waiting):
    step = "connect"
    writer = None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), wait_s)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        await writer.drain()
        step = "handshake"
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), wait_s)
        if not head.startswith(b"HTTP/1.1 101"):
            return ("closed", head.split(b"\r\n")[0].decode())
        step = "welcome"
        msg = await asyncio.wait_for(read_message(reader), wait_s)
        if not (isinstance(msg, dict) and msg.get("type") == "welcome"):
            return ("closed", f"before welcome: {msg}")
        writer.write(text_frame({"type": "ping", "id": i}))
        await writer.drain()
        step = "answer"
        msg = await asyncio.wait_for(read_message(reader), wait_s)
        if isinstance(msg, dict) and msg.get("type") == "pong":
            if not waiting:
                # The first one served creates a room.
                waiting.append(i)
                step = "room"
                writer.write(text_frame({"type": "create_room", "name": f"p{i}"}))
                await writer.drain()
                msg = await asyncio.wait_for(read_message(reader), wait_s)
                if not (isinstance(msg, dict) and msg.get("type") == "room_joined"):
                    return ("other", f"to create_room: {msg}")
                print(f"client {i}: room_joined {msg.get('room')}", file=sys.stderr)
            else:
                waiting.append(i)
            await done.wait()
            return ("served", None)
        if isinstance(msg, dict) and msg.get("code") == "server_full":
            step = "close"
            msg = await asyncio.wait_for(read_message(reader), wait_s)
            code = msg[1] if isinstance(msg, tuple) else msg
            return ("full", f"close {code}")
        return ("other", str(msg))
    except asyncio.TimeoutError:
        return ("hung", f"no answer at {step}")
    except (OSError, asyncio.IncompleteReadError) as e:
        return ("closed", f"{type(e).__name__} at {step}")
    finally:
        if writer is not None:
            writer.close()


async def main():
    addr = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 70
    wait_s = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    stagger_s = float(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0.0
    host, port = addr.rsplit(":", 1)
    done = asyncio.Event()
    waiting = []
    tasks = []
    for i in range(n):
        tasks.append(asyncio.create_task(client(host, int(port), i, wait_s, done, waiting)))
        if stagger_s:
            await asyncio.sleep(stagger_s)
    # The served ones hold their sockets until every other client has its outcome (each step
    # is bounded by WAIT_S, so this ends).
    while sum(t.done() for t in tasks) + len(waiting) < n:
        await asyncio.sleep(0.1)
    done.set()
    results = await asyncio.gather(*tasks)
    counts = collections.Counter(kind for kind, _, _ in results)
    details = collections.Counter(f"{kind}: {d}" for kind, d, _ in results if d)
    kinds = ["served", "full", "closed", "hung", "other"]
    print(" ".join(f"{k}={counts.get(k, 0)}" for k in kinds))
    for d, c in sorted(details.items()):
        print(f"  {c} x {d}")
    slowest = max((s for kind, _, s in results if kind in ("full", "closed")), default=0)
    print(f"  slowest answer past the cap: {slowest * 1000:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
