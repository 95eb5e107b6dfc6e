"""Fetching a URL without letting it reach the user's own network, and without letting it hang.

A web search result or a `sources add` URL is untrusted: it may name (or redirect to) a port on
this machine, an intranet host or a cloud metadata endpoint. So every URL, and every redirect,
is resolved first; each address it resolves to is checked (loopback, private, link-local,
multicast, reserved, site-local and unspecified addresses are refused, IPv4 and IPv6, and the
IPv6 forms that wrap an IPv4 are judged by the IPv4 they wrap) and the connection goes to the
very address that was checked, so a second DNS answer cannot swap it (no rebinding window).
Redirects are followed here, one hop at a time, never by urllib. Only http and https, always;
size is capped, and so is time: one deadline per fetch, from the DNS answer to the body's last
byte over every redirect, enforced by shutting the socket down when it passes (a server that
drips its headers a byte at a time is cut as surely as a slow body). `allow_private`
(`[research] allow_private`, for an intranet) lifts the address check only. `proxy`
(`[research] proxy`) sends each hop through an HTTP proxy as a CONNECT tunnel to the checked
address: the proxy never resolves the name itself. Bytes only: readers.read_url reads what
comes back.
"""

from __future__ import annotations

import http.client
import ipaddress
import os
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


# Special-purpose ranges (IANA's registries) that are not globally reachable but that Python
# 3.11's `ipaddress` calls global (3.12.4 and later know the first): the IETF protocol
# assignments (192.0.0.192 and the like), the deprecated 6to4 relay anycast (a relay, never a
# page) and IPv6 documentation's second prefix (RFC 9637).
NOT_GLOBAL = tuple(ipaddress.ip_network(n) for n in ("192.0.0.0/24", "192.88.99.0/24", "3fff::/20"))


def address_problem(address: str) -> str | None:
    """Why a connection to `address` is refused (a kind of address), or None when it is public.
    An IPv6 address that wraps an IPv4 (IPv4-mapped `::ffff:a.b.c.d`, 6to4 `2002:aabb:ccdd::`)
    is judged as the IPv4 it wraps; a Teredo tunnel's never passes (its client's address is a
    NAT's, its server a relay's)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 zone id is not part of it
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        elif ip.sixtofour is not None:
            wrapped = address_problem(str(ip.sixtofour))
            return f"a 6to4 address wrapping {ip.sixtofour}, {wrapped}" if wrapped else None
        elif ip.teredo is not None:
            return "a Teredo tunnel address"
    for kind in ("loopback", "unspecified", "link_local", "multicast", "reserved", "private", "site_local"):
        if getattr(ip, f"is_{kind}", False):  # site-local (fec0::/10) is IPv6's only
            return f"a {kind.replace('_', '-')} address"
    if not ip.is_global or any(ip in net for net in NOT_GLOBAL if net.version == ip.version):
        return "not a public address"  # shared (100.64/10), documentation and other special ranges
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


class Deadline:
    """The moment a fetch must be over by. Socket timeouts bound each read, not the sum of
    them: a server sending its headers one byte a second never trips one. So each socket the
    fetch opens is watched (through a duplicate of its descriptor, which stays valid when TLS
    takes the socket over), and when the deadline passes a timer shuts them down: whatever read
    is blocked on them (DNS aside, which resolve_within bounds) returns at once."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.passed = False
        self._lock = threading.Lock()
        self._watched: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._cut)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        return self.at - time.monotonic()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self.passed:
                sock.close()
                raise TimeoutError("the deadline passed")
            self._watched.append(sock.dup())

    def release(self) -> None:
        """Stop watching the sockets of a hop that is over (their duplicates are closed)."""
        with self._lock:
            for sock in self._watched:
                sock.close()
            self._watched.clear()

    def close(self) -> None:
        self._timer.cancel()
        self.release()

    def _cut(self) -> None:
        with self._lock:
            self.passed = True
            for sock in self._watched:
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # the connection, not only this descriptor
                except OSError:
                    pass


@dataclass(frozen=True)
class Proxy:
    """An HTTP proxy (`[research] proxy`): where it listens."""

    host: str
    port: int


def proxy_of(url: str) -> Proxy:
    """The proxy an `http://host[:port]` URL names (port 80 when it has none)."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or not parts.hostname or parts.username is not None:
        raise ValueError(f"{url!r} is not an http://host:port proxy URL")
    return Proxy(parts.hostname, parts.port or 80)


PROXY_VARIABLES = ("https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY")


def unused_proxy_note(proxy: str | None) -> str | None:
    """One line when the environment names a proxy that fetches do not use (they use
    `[research] proxy` only, never the environment's), else None. The value is not repeated:
    it may hold a password."""
    if proxy:
        return None
    named = [name for name in PROXY_VARIABLES if os.environ.get(name)]
    if not named:
        return None
    return (f"{named[0]} is set but pages are fetched without a proxy: set [research] proxy "
            "to fetch through it")  # fmt: skip


def _dial(
    address: str, port: int, timeout: float | None, deadline: Deadline, proxy: Proxy | None
) -> socket.socket:
    """A connected socket to the checked `address`: directly, or through a CONNECT tunnel to that
    address (never to its name: a proxy resolving it again would reopen the rebinding window)."""
    if proxy is None:
        sock = socket.create_connection((address, port), timeout)
        deadline.watch(sock)
        return sock
    found = resolve_within(system_resolver, proxy.host, proxy.port, deadline.left())
    sock = socket.create_connection((found[0], proxy.port), timeout)
    deadline.watch(sock)
    target = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    lines = [f"CONNECT {target} HTTP/1.1", f"Host: {target}", f"User-Agent: {USER_AGENT}"]
    try:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("ascii"))
        answer = http.client.HTTPResponse(sock, method="CONNECT")  # the tunnel's own status line
        try:
            answer.begin()  # reads the status and the headers only: the target speaks after us
        finally:
            answer.close()  # the reader, not the socket
        if answer.status != 200:
            raise OSError(f"the proxy {proxy.host}:{proxy.port} answered {answer.status} "
                          f"{answer.reason} to CONNECT {target}")  # fmt: skip
    except BaseException:
        sock.close()
        raise
    return sock


class _Pinned(http.client.HTTPConnection):
    """HTTP to a checked address, with the URL's host in the Host header."""

    def __init__(self, host: str, port: int, address: str, timeout: float, deadline: Deadline,
                 proxy: Proxy | None = None):  # fmt: skip
        super().__init__(host, port, timeout=timeout)
        self.address, self.deadline, self.proxy = address, deadline, proxy

    def connect(self) -> None:
        self.sock = _dial(self.address, self.port, self.timeout, self.deadline, self.proxy)


class _PinnedTLS(http.client.HTTPSConnection):
    """HTTPS to a checked address; the certificate is still checked against the URL's host."""

    def __init__(self, host: str, port: int, address: str, timeout: float, deadline: Deadline,
                 proxy: Proxy | None = None):  # fmt: skip
        self.tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.address, self.deadline, self.proxy = address, deadline, proxy

    def connect(self) -> None:
        sock = _dial(self.address, self.port, self.timeout, self.deadline, self.proxy)
        self.sock = self.tls.wrap_socket(sock, server_hostname=self.host)


def fetch(url: str, allow_private: bool = False, timeout: float = URL_TIMEOUT, max_bytes: int = MAX_BYTES,
          resolver: Resolver | None = None, proxy: str | None = None) -> Fetched:  # fmt: skip
    """GET `url`, following up to MAX_REDIRECTS redirects, each hop checked before connecting,
    the whole of it within `timeout` seconds (then cut with one line), through `proxy` if given."""
    resolver = resolver or system_resolver
    try:
        via = proxy_of(proxy) if proxy else None
    except ValueError as exc:
        raise FetchError(f"{url}: not fetched, [research] proxy {exc}") from exc
    deadline = Deadline(timeout)
    late = f"{url}: unreachable (not fetched within {timeout:g} s, the time a fetch may take)"
    current = url
    try:
        for _ in range(MAX_REDIRECTS + 1):
            host, address, port = checked_address(current, allow_private, resolver, deadline.left())
            left = deadline.left()
            if left <= 0:
                raise FetchError(late)
            pinned = _PinnedTLS if urlsplit(current).scheme.lower() == "https" else _Pinned
            conn = pinned(host, port, address, left, deadline, via)
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
                data = _read_capped(response, url, max_bytes, deadline, late)
                ctype = response.headers.get_content_type()
                return Fetched(current, ctype, data)
            except (OSError, http.client.HTTPException, ValueError) as exc:
                if deadline.passed or deadline.left() <= 0:  # the cut, whatever it broke
                    raise FetchError(late) from exc
                reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
                raise FetchError(f"{url}: unreachable ({reason})") from exc
            finally:
                conn.close()
                deadline.release()
        raise FetchError(f"{url}: more than {MAX_REDIRECTS} redirects")
    finally:
        deadline.close()


def _read_capped(response: http.client.HTTPResponse, url: str, max_bytes: int, deadline: Deadline,
                 late: str) -> bytes:  # fmt: skip
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
        if deadline.left() <= 0:
            raise FetchError(late)
    if deadline.passed:  # the cut ended the body early: what was read is not the page
        raise FetchError(late)
    return b"".join(parts)
