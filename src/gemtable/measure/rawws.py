"""A bare WebSocket client on a plain socket: it sends frames and reads only when told to.

Client libraries read incoming frames in the background; a hostile client that
stops reading (and lets the server's socket buffers fill) needs a socket we
control.  Used by `gemtable soak` and the slow-reader tests.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct


class RawSocket:
    def __init__(self, host: str, port: int, path: str, protocols: list[str] | None = None,
                 timeout: float = 10.0, recv_buffer: int | None = 4096) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        if recv_buffer:  # a small receive buffer: a reader that stops is noticed sooner
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, recv_buffer)
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}", "Upgrade: websocket", "Connection: Upgrade",
                 f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13"]
        if protocols:
            lines.append("Sec-WebSocket-Protocol: " + ", ".join(protocols))
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("handshake failed")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(head.decode(errors="replace"))
        self.buffer = b""

    def send_text(self, text: str) -> None:
        payload = text.encode("utf-8")
        mask = os.urandom(4)
        n = len(payload)
        if n < 126:
            header = struct.pack("!BB", 0x81, 0x80 | n)
        elif n < 65536:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
        else:
            header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def send_json(self, msg) -> None:
        self.send_text(json.dumps(msg))

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def receive(self) -> tuple[int, bytes]:
        """(opcode, payload) of the next frame (server frames are not masked)."""
        b1, b2 = self._read(2)
        n = b2 & 0x7F
        if n == 126:
            (n,) = struct.unpack("!H", self._read(2))
        elif n == 127:
            (n,) = struct.unpack("!Q", self._read(8))
        return b1 & 0x0F, self._read(n)

    def receive_json(self):
        while True:
            op, data = self.receive()
            if op == 1:
                return json.loads(data)
            if op == 8:
                code = struct.unpack("!H", data[:2])[0] if len(data) >= 2 else 1005
                raise ConnectionError(f"closed {code} {data[2:].decode(errors='replace')}")

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
