"""Fetching a URL without letting it reach the user's own network.

A web search result or a `sources add` URL is untrusted: it may name (or redirect to) a port on
this machine, an intranet host or a cloud metadata endpoint. So every URL, and every redirect,
is resolved first; each address it resolves to is checked (loopback, private, link-local,
multicast, reserved and unspecified addresses are refused, IPv4 and IPv6, IPv4-mapped IPv6
too) and the connection goes to the very address that was checked, so a second DNS answer
cannot swap it (no rebinding window). Redirects are followed here, one hop at a time, never by
urllib. Only http and https, always; size and time are capped. `allow_private` (`[research]
allow_private`, for an intranet) lifts the address check only. Bytes only: readers.read_url
reads what comes back.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

URL_TIMEOUT = 20.0  # seconds for the whole fetch, redirects included
MAX_BYTES = 50_000_000  # the most a fetch reads (readers.py caps a file the same)
MAX_REDIRECTS = 5
SCHEMES = ("http", "https")
USER_AGENT = "reflectcli (source library)"
Resolver = Callable[[str, int], list[str]]  # (host, port) -> IP addresses


class FetchError(Exception):
    """A URL that could not be fetched; the message is one line fit to show the user."""


class Refused(FetchError):
    """A URL not fetched because of where it points (checked before any connection)."""


@dataclass
class Fetched:
    url: str  # after redirects
    content_type: str
    data: bytes


def system_resolver(host: str, port: int) -> list[str]:
    """Every address the system's resolver gives for `host` (TCP)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def address_problem(address: str) -> str | None:
    """Why a connection to `address` is refused (a kind of address), or None when it is public."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is not part of it
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for kind in ("loopback", "unspecified", "link_local", "multicast", "reserved", "private"):
        if getattr(ip, f"is_{kind}"):
            return f"a {kind.replace('_', '-')} address"
    if not ip.is_global:  # shared (100.64/10), documentation and other special ranges
        return "not a public address"
    return None


def scheme_problem(url: str) -> str | None:
    """Why a URL's scheme is not fetched, or None for http(s)."""
    scheme = urlsplit(url).scheme.lower()
    if scheme in SCHEMES:
        return None
    return f"unsupported scheme {scheme + '://' if scheme else '(none)'} (only http and https)"


def resolve_within(resolver: Resolver, host: str, port: int, seconds: float) -> list[str]:
    """The resolver's answer, given up on after `seconds` (getaddrinfo has no timeout)."""
    answer: list[tuple[bool, object]] = []

    def ask() -> None:
        try:
            answer.append((True, resolver(host, port)))
        except Exception as exc:  # re-raised in the caller's thread
            answer.append((False, exc))

    thread = threading.Thread(target=ask, daemon=True)  # left behind if it hangs: never joined
    thread.start()
    thread.join(max(seconds, 0.0))
    if not answer:
        raise OSError(f"no answer within {seconds:g} s")
    ok, value = answer[0]
    if not ok:
        raise value  # type: ignore[misc]
    return value  # type: ignore[return-value]


def checked_address(url: str, allow_private: bool, resolver: Resolver,
                    seconds: float = URL_TIMEOUT) -> tuple[str, str, int]:  # fmt: skip
    """(host, address to connect to, port) for a URL, after its checks; Refused otherwise."""
    problem = scheme_problem(url)
    if problem:
        raise Refused(f"{url}: refused, {problem}")
    parts = urlsplit(url)
    host = parts.hostname
    if not host:
        raise Refused(f"{url}: refused, no host in it")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError as exc:
        raise Refused(f"{url}: refused, {exc}") from exc
    try:
        addresses = resolve_within(resolver, host, port, seconds)
    except (OSError, UnicodeError) as exc:
        raise FetchError(f"{url}: unreachable (cannot resolve {host}: {exc})") from exc
    if not addresses:
        raise FetchError(f"{url}: unreachable (no address for {host})")
    if not allow_private:
        for address in addresses:  # one bad answer is enough: the connection could pick it
            problem = address_problem(address)
            if problem:
                where = f"{host} is" if host == address else f"{host} resolves to {address},"
                raise Refused(f"{url}: refused, {where} {problem} "
                              "(set [research] allow_private = true to allow it)")  # fmt: skip
    return host, addresses[0], port


class _Pinned(http.client.HTTPConnection):
    """HTTP to a checked address, with the URL's host in the Host header."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    """HTTPS to a checked address; the certificate is still checked against the URL's host."""

    def __init__(self, host: str, port: int, address: str, timeout: float):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self.address = address

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def fetch(url: str, allow_private: bool = False, timeout: float = URL_TIMEOUT,
          max_bytes: int = MAX_BYTES, resolver: Resolver | None = None) -> Fetched:  # fmt: skip
    """GET `url`, following up to MAX_REDIRECTS redirects, each hop checked before connecting."""
    resolver = resolver or system_resolver
    deadline = time.monotonic() + timeout
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        host, address, port = checked_address(current, allow_private, resolver, deadline - time.monotonic())
        left = deadline - time.monotonic()
        if left <= 0:
            raise FetchError(f"{url}: unreachable (no answer within {timeout:g} s)")
        pinned = _PinnedTLS if urlsplit(current).scheme.lower() == "https" else _Pinned
        conn = pinned(host, port, address, left)
        try:
            parts = urlsplit(current)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            conn.request("GET", target, headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity"})
            response = conn.getresponse()
            if response.status in (301, 302, 303, 307, 308) and response.getheader("Location"):
                current = urljoin(current, response.getheader("Location"))
                continue
            if response.status >= 400:
                raise FetchError(f"{url}: the server answered {response.status} {response.reason}")
            data = _read_capped(response, url, max_bytes, deadline, timeout)
            ctype = response.headers.get_content_type()
            return Fetched(current, ctype, data)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
            raise FetchError(f"{url}: unreachable ({reason})") from exc
        finally:
            conn.close()
    raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _read_capped(response: http.client.HTTPResponse, url: str, max_bytes: int, deadline: float,
                 timeout: float) -> bytes:  # fmt: skip
    """The body, at most `max_bytes`, read before the deadline (a slow drip is cut too)."""
    length = response.getheader("Content-Length")
    if length and length.isdigit() and int(length) > max_bytes:
        raise FetchError(f"{url}: larger than {max_bytes:,} bytes")
    parts, size = [], 0
    while chunk := response.read1(min(65536, max_bytes + 1 - size)):  # what has arrived
        parts.append(chunk)
        size += len(chunk)
        if size > max_bytes:
            raise FetchError(f"{url}: larger than {max_bytes:,} bytes")
        if time.monotonic() > deadline:
            raise FetchError(f"{url}: unreachable (not read within {timeout:g} s)")
    return b"".join(parts)
