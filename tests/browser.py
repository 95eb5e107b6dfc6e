"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
commands on fd 3, answers and events on fd 4, each a JSON message ended by NUL), so a test can
open a page, click where a person would, read what is shown and take a screenshot. No port, no
websocket, no outside package; the browser is Debian's `chromium`."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from typing import Any

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
         "--disable-extensions", "--disable-sync", "--mute-audio", "--hide-scrollbars"]  # fmt: skip


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


class Browser:
    def __init__(self, timeout: float = 60.0) -> None:
        binary = chromium()
        assert binary, "no chromium"
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="h37-chromium-")
        to_child, self._send = os.pipe()
        self._recv, from_child = os.pipe()

        def wire() -> None:  # in the child: the pipes at fds 3 and 4 (moved out of the way first)
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_child, from_child)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        # close_fds=False: our own pipe ends are not inheritable (Python's default), fds 3 and 4 are
        self.proc = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=wire, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._n = 0
        self.events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Runtime.enable", session=True)

    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._recv], [], [], left)[0]:
                raise TimeoutError("chromium did not answer")
            chunk = os.read(self._recv, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._n += 1
        message: dict[str, Any] = {"id": self._n, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._n:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, event: str) -> dict[str, Any]:
        deadline = time.monotonic() + self.timeout
        while True:
            for n, seen in enumerate(self.events):
                if seen.get("method") == event:
                    return self.events.pop(n)
            self.events.append(self._message(deadline))

    def open(self, url: str, width: int = 1000, height: int = 1400) -> None:
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width, height=height,
                  deviceScaleFactor=1, mobile=False)  # fmt: skip
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed, released) at the middle of the element's first line."""
        box = self.js(f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
                      "el.scrollIntoView({block: 'center'}); const r = el.getClientRects()[0];"
                      "return [r.left + Math.min(r.width / 2, 20), r.top + r.height / 2]; })()")  # fmt: skip
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)  # fmt: skip

    def screenshot(self) -> bytes:
        return base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"])

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._send)
        os.close(self._recv)
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
