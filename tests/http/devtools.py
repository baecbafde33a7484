"""A small client of Chromium's DevTools protocol for the dashboard's browser
test: headless Chromium started on a free debugging port, and one page
driven over a WebSocket (RFC 6455, text frames, written here on the standard
library so the test needs no Python package beyond the interpreter, whichever
interpreter runs it)."""

import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import time
import urllib.request


class WebSocket:
    """A client WebSocket to a loopback server: text messages out (masked, as
    a client must), whole messages in (fragments joined, pings answered)."""

    def __init__(self, url, timeout_s=30):
        assert url.startswith("ws://"), url
        host_port, _, path = url[len("ws://"):].partition("/")
        host, _, port = host_port.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout_s)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError(f"{url}: closed during the WebSocket handshake: {head!r}")
            head += chunk
        head, _, self.buffer = head.partition(b"\r\n\r\n")
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise ConnectionError(f"{url}: the WebSocket handshake was refused: {head!r}")

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])  # FIN, text
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack("!H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack("!Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise ConnectionError("the DevTools WebSocket closed")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def receive(self, timeout_s):
        """The next whole text message, or None when none came within timeout_s."""
        self.sock.settimeout(timeout_s)
        message = b""
        try:
            while True:
                first, second = self._read(2)
                opcode, n = first & 0x0F, second & 0x7F
                if n == 126:
                    n = struct.unpack("!H", self._read(2))[0]
                elif n == 127:
                    n = struct.unpack("!Q", self._read(8))[0]
                payload = self._read(n)  # a server's frames are not masked
                if opcode == 0x9:  # ping: answer with a (masked) pong
                    self.sock.sendall(bytes([0x8A, 0x80 | len(payload)]) + b"\0\0\0\0" + payload)
                    continue
                if opcode == 0x8:
                    raise ConnectionError("the DevTools WebSocket was closed by the browser")
                message += payload
                if first & 0x80:
                    return message.decode()
        except socket.timeout:
            if message:
                raise
            return None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """Headless Chromium with one page, its protocol events kept in `events`."""

    def __init__(self, profile_dir, width=1400, height=1800):
        self.binary = shutil.which("chromium")
        args = [self.binary, "--headless=new", "--no-sandbox", "--remote-debugging-port=0",
                f"--user-data-dir={profile_dir}", "--no-first-run", "--no-default-browser-check",
                "--disable-gpu", "--disable-extensions", "--disable-background-networking",
                f"--window-size={width},{height}", "about:blank"]
        self.log = open(os.path.join(profile_dir, "..", "chromium.log"), "w")
        self.process = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        port_file = os.path.join(profile_dir, "DevToolsActivePort")
        deadline = time.monotonic() + 30
        while not (os.path.exists(port_file) and len(open(port_file).read().split()) >= 2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"chromium wrote no {port_file} (exit {self.process.poll()}); see chromium.log")
            time.sleep(0.05)
        port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
        page = next(t for t in targets if t["type"] == "page")
        self.ws = WebSocket(page["webSocketDebuggerUrl"])
        self.next_id = 0
        self.events = []

    def _receive_until(self, deadline, want_id=None):
        """Keeps the events that arrive until `deadline`; the answer to command
        `want_id` as soon as it comes (None: none came)."""
        while time.monotonic() < deadline:
            message = self.ws.receive(max(0.01, deadline - time.monotonic()))
            if message is None:
                return None
            data = json.loads(message)
            if want_id is not None and data.get("id") == want_id:
                return data
            if "method" in data:
                self.events.append(data)
        return None

    def call(self, method, timeout_s=30, **params):
        """Sends one command and returns its result; events that arrive meanwhile are kept."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        data = self._receive_until(time.monotonic() + timeout_s, self.next_id)
        if data is None:
            raise TimeoutError(f"{method}: no answer in {timeout_s} s")
        if "error" in data:
            raise RuntimeError(f"{method}: {data['error']}")
        return data.get("result", {})

    def pump(self, seconds):
        """Collects events for `seconds`."""
        self._receive_until(time.monotonic() + seconds)

    def evaluate(self, expression):
        """The expression's value in the page (JSON-able), or an error naming it."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout_s, what):
        """Evaluates `expression` until it is truthy; its value, or an error naming `what`."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"not within {timeout_s} s: {what} (last: {value!r})")
            self.pump(0.2)

    def click(self, selector):
        """A real click: the mouse pressed and released at the element's centre."""
        box = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView();"
                            f" const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)

    def type_into(self, selector, text):
        """Focuses the field and types `text` as keyboard input would insert it."""
        self.click(selector)
        self.call("Input.insertText", text=text)

    def close(self):
        self.ws.close()
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.close()
