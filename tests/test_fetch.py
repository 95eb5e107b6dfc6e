"""Safe fetching: every URL and every redirect resolved and checked before any connection, the
connection made to the address checked, size and time capped. No test here connects anywhere
but 127.0.0.1: private ranges are checked with a faked resolver (the refusal happens before
connecting), and loopback's refusal is shown by a local server that counts its hits."""

from __future__ import annotations

import http.server
import ipaddress
import socket
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reflectcli.sources import fetch
from reflectcli.sources.fetch import FetchError, Refused, address_problem
from reflectcli.sources.readers import URLRefused, read_url

REFUSED = {
    "127.0.0.1": "loopback", "127.8.9.10": "loopback", "::1": "loopback",
    "0.0.0.0": "unspecified", "::": "unspecified",
    "10.1.2.3": "private", "172.16.0.9": "private", "192.168.1.1": "private", "fc00::1": "private",
    "169.254.169.254": "link-local", "fe80::1": "link-local",
    "224.0.0.251": "multicast", "ff02::1": "multicast",
    "240.0.0.1": "reserved", "100.64.0.1": "not a public address",
    "::ffff:127.0.0.1": "loopback", "::ffff:169.254.169.254": "link-local", "::ffff:10.0.0.1": "private",
    # the forms that wrap an IPv4, tunnels, and the ranges ipaddress calls global on Python 3.11
    "2002:0a00:0001::": "6to4 address wrapping 10.0.0.1, a private", "2002:7f00:1::1": "wrapping 127.0.0.1",
    "2002:a9fe:a9fe::": "wrapping 169.254.169.254, a link-local",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2": "a Teredo tunnel address",
    "fec0::1": "a site-local", "feff::1": "a site-local",
    "192.0.0.192": "not a public address", "192.0.0.9": "not a public address",
    "192.88.99.1": "not a public address", "3fff::1": "not a public address",
    "64:ff9b::a00:1": "reserved", "::10.0.0.1": "reserved",  # NAT64 and IPv4-compatible: in ::/8
}  # fmt: skip


@pytest.mark.parametrize(("address", "kind"), sorted(REFUSED.items()))
def test_addresses_on_this_machine_or_a_private_network_are_refused(address, kind):
    assert kind in address_problem(address)


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8",
                                     "2002:808:808::1", "192.0.1.1"])  # fmt: skip
def test_public_addresses_pass(address):
    assert address_problem(address) is None


@settings(max_examples=100, deadline=None)
@given(st.ip_addresses(v=4))
def test_an_ipv4_mapped_address_is_judged_as_its_ipv4(address):
    assert (address_problem(str(address)) is None) == (address_problem(f"::ffff:{address}") is None)


@settings(max_examples=100, deadline=None)
@given(st.ip_addresses(v=4))
def test_a_6to4_address_is_judged_as_the_ipv4_it_wraps(address):
    wrapped = ipaddress.IPv6Address((0x2002 << 112) | (int(address) << 80) | 1)
    assert wrapped.sixtofour == address
    assert (address_problem(str(address)) is None) == (address_problem(str(wrapped)) is None)


@pytest.fixture
def no_connections(monkeypatch):
    """Any attempt to connect fails the test (and records where it went)."""
    tried = []

    def refuse(address, *args, **kwargs):
        tried.append(address)
        raise AssertionError(f"connected to {address}")

    monkeypatch.setattr(fetch.socket, "create_connection", refuse)
    return tried


@pytest.mark.parametrize(("answers", "kind"), [
    (["10.0.0.7"], "private"),
    (["169.254.169.254"], "link-local"),
    (["93.184.215.14", "127.0.0.1"], "loopback"),  # one bad answer among good ones is enough
    (["fd12:3456::1"], "private"),
])  # fmt: skip
def test_a_private_answer_is_refused_without_connecting(answers, kind, no_connections):
    with pytest.raises(Refused, match=f"intranet.example resolves to .*{kind}"):
        fetch.fetch("https://intranet.example/hr", resolver=lambda host, port: answers)
    assert no_connections == []


@pytest.mark.parametrize("url", ["ftp://files.example/a.txt", "file:///etc/passwd", "gopher://x/1"])
def test_other_schemes_have_their_own_message(url, no_connections):
    with pytest.raises(URLRefused, match=r"unsupported scheme \w+:// \(only http and https\)"):
        read_url(url, allow_private=True)  # never fetched, whatever allow_private says
    assert no_connections == []


class Site:
    """A local server: `/page` answers HTML, `/to?url` redirects there, `/big` is large,
    `/slow` drips; every request is counted, with its Host header."""

    def __init__(self):
        self.hits: list[str] = []
        self.hosts: list[str | None] = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                site.hits.append(self.path)
                site.hosts.append(self.headers.get("Host"))
                if self.path.startswith("/to?"):
                    self.send_response(302)
                    self.send_header("Location", self.path[4:])
                    self.end_headers()
                    return
                if self.path == "/slow":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.end_headers()
                    for _ in range(20):
                        self.wfile.write(b"drip " * 10)
                        self.wfile.flush()
                        time.sleep(0.05)
                    return
                body = b"x" * 5000 if self.path == "/big" else (
                    b"<html><head><title>Inside</title></head><body><article><p>The staff "
                    b"handbook of the intranet says the vault code is 4417.</p></article></body></html>"
                )  # fmt: skip
                self.send_response(200)
                self.send_header("Content-Type", "text/html" if self.path != "/big" else "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def site():
    s = Site()
    yield s
    s.close()


@pytest.fixture
def loopback_is_public(monkeypatch):
    """127.0.0.1 stands in for a public host (the only place a test may connect to); every other
    address keeps its real check."""
    real = fetch.address_problem
    monkeypatch.setattr(fetch, "address_problem", lambda a: None if a == "127.0.0.1" else real(a))


def test_a_page_on_this_machine_is_refused_and_never_hit(site):
    """By name, by address and by the spellings that hide one (decimal, hex, IPv4-mapped)."""
    for host in ("127.0.0.1", "localhost", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "[::1]"):
        with pytest.raises(URLRefused, match="a loopback address"):
            read_url(f"http://{host}:{site.port}/page")
    assert site.hits == []
    assert "vault code" in read_url(f"http://127.0.0.1:{site.port}/page", allow_private=True).segments[0].text


def test_every_redirect_is_checked_before_it_is_followed(site, loopback_is_public, monkeypatch):
    answers = {"public.example": ["127.0.0.1"], "metadata.example": ["169.254.169.254"]}
    connected = []
    real_connect = socket.create_connection

    def connect(address, *args, **kwargs):
        connected.append(address[0])
        assert address[0] == "127.0.0.1", address
        return real_connect(address, *args, **kwargs)

    monkeypatch.setattr(fetch.socket, "create_connection", connect)
    resolver = lambda host, port: answers[host]  # noqa: E731
    start = f"http://public.example:{site.port}"
    got = fetch.fetch(f"{start}/to?{start}/page", resolver=resolver)
    assert got.url == f"{start}/page" and b"vault code" in got.data
    with pytest.raises(Refused, match="metadata.example resolves to 169.254.169.254, a link-local"):
        fetch.fetch(f"{start}/to?http://metadata.example/latest/meta-data/", resolver=resolver)
    with pytest.raises(Refused, match="unsupported scheme file://"):
        fetch.fetch(f"{start}/to?file:///etc/passwd", resolver=resolver)
    assert connected == ["127.0.0.1"] * 4 and site.hits[-1].startswith("/to?file")


def test_the_connection_goes_to_the_address_that_was_checked(site, loopback_is_public, monkeypatch):
    """A second DNS answer (rebinding to a private address) is never asked for: one lookup per
    hop, and the socket is opened to the address that passed."""
    answers = iter([["127.0.0.1"], ["10.0.0.1"]])
    asked = []

    def resolver(host, port):
        asked.append(host)
        return next(answers)

    got = fetch.fetch(f"http://rebind.example:{site.port}/page", resolver=resolver)
    assert b"vault code" in got.data and asked == ["rebind.example"]


def test_size_and_time_are_capped(site, loopback_is_public):
    resolver = lambda host, port: ["127.0.0.1"]  # noqa: E731
    with pytest.raises(FetchError, match="larger than 1,000 bytes"):
        fetch.fetch(f"http://big.example:{site.port}/big", max_bytes=1000, resolver=resolver)
    started = time.monotonic()
    with pytest.raises(FetchError, match="unreachable"):
        fetch.fetch(f"http://slow.example:{site.port}/slow", timeout=0.3, resolver=resolver)
    assert time.monotonic() - started < 0.9


def test_too_many_redirects_end_with_one_line(site, loopback_is_public):
    resolver = lambda host, port: ["127.0.0.1"]  # noqa: E731
    base = f"http://loop.example:{site.port}"
    url = f"{base}/page"
    for _ in range(fetch.MAX_REDIRECTS + 1):
        url = f"{base}/to?{url}"
    with pytest.raises(FetchError, match=f"more than {fetch.MAX_REDIRECTS} redirects"):
        fetch.fetch(url, resolver=resolver)


def tls_context(tmp_path, names: list[str]):
    """A server-side TLS context with a self-signed certificate for secure.example (which no
    client trusts); each SNI name a client sends is appended to `names`."""
    import datetime
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "secure.example")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("secure.example")]), False)
            .sign(key, hashes.SHA256()))  # fmt: skip
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pem = serialization.Encoding.PEM
    (tmp_path / "key.pem").write_bytes(key.private_bytes(pem, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    context.sni_callback = lambda sock, server_name, ctx: names.append(server_name)
    return context


def serve_tls_once(context) -> tuple[socket.socket, threading.Thread]:
    """A listener on 127.0.0.1 that takes one connection through the TLS handshake."""
    import ssl

    listener = socket.create_server(("127.0.0.1", 0))

    def serve():
        conn, _ = listener.accept()
        try:
            context.wrap_socket(conn, server_side=True)
        except (ssl.SSLError, OSError):
            pass
        finally:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_https_goes_to_the_checked_address_and_still_checks_the_certificate(tmp_path, loopback_is_public):
    """TLS to the pinned address, with the URL's host for SNI and the certificate check: a
    self-signed certificate is refused (verification is not turned off by pinning)."""
    names = []
    listener, thread = serve_tls_once(tls_context(tmp_path, names))
    port = listener.getsockname()[1]
    with pytest.raises(FetchError, match="CERTIFICATE_VERIFY_FAILED"):
        fetch.fetch(f"https://secure.example:{port}/", resolver=lambda host, p: ["127.0.0.1"])
    thread.join(5)
    listener.close()
    assert names == ["secure.example"]


def test_a_resolver_that_hangs_is_given_up_on_within_the_time_cap(no_connections):
    def hang(host, port):
        time.sleep(2)
        return ["93.184.215.14"]

    started = time.monotonic()
    with pytest.raises(FetchError, match="cannot resolve slow-dns.example: no answer within"):
        fetch.fetch("http://slow-dns.example/", timeout=0.2, resolver=hang)
    assert time.monotonic() - started < 1 and no_connections == []


class Drip:
    """A raw server on 127.0.0.1 that answers as slowly as `mode` says, for the time cap:
    `headers` sends its status line and headers one byte every `gap` seconds; `body` sends
    good headers and then a body that never ends; `loop` answers each request, after `gap`
    seconds, with a redirect to itself; `tls` relays a real TLS server's handshake one byte
    every `gap` seconds. Its waits end at once when it is closed (an event, not a sleep)."""

    def __init__(self, mode: str, gap: float = 2.0, context=None):
        self.mode, self.gap, self.context = mode, gap, context
        self.stop = threading.Event()
        self.requests = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        try:
            if self.mode == "tls":
                self._relay_tls(conn)
                return
            conn.recv(65536)  # the request
            self.requests += 1
            if self.mode == "headers":
                for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Pad: " + b"x" * 200:
                    conn.sendall(bytes([byte]))
                    if self.stop.wait(self.gap):
                        return
            elif self.mode == "body":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
                while not self.stop.wait(0.01):
                    conn.sendall(b"never ending " * 50)
            elif self.mode == "loop" and not self.stop.wait(self.gap):
                conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        finally:
            conn.close()

    def _relay_tls(self, conn):
        """The client's bytes go to a TLS server at once; the server's come back one at a time."""
        inner, outer = socket.socketpair()
        threading.Thread(target=self._tls_server, args=(inner,), daemon=True).start()

        def upstream():
            while data := conn.recv(65536):
                outer.sendall(data)

        threading.Thread(target=upstream, daemon=True).start()
        while (byte := outer.recv(1)) and not self.stop.wait(self.gap):
            conn.sendall(byte)
        outer.close()

    def _tls_server(self, sock):
        try:
            self.context.wrap_socket(sock, server_side=True)
        except OSError:
            pass
        finally:
            sock.close()

    def close(self):
        self.stop.set()
        self.listener.close()


CAP = 3.0  # seconds a fetch may take in these tests: longer than one drip's gap (2 s)


@pytest.mark.parametrize("mode", ["headers", "body", "loop", "tls"])
def test_every_fetch_ends_within_its_cap(mode, tmp_path, loopback_is_public):
    """One deadline from connecting to the last byte: headers dripped a byte every 2 s (each
    read well within the socket timeout), a body that never ends, a redirect loop whose hops
    each take a second, a TLS handshake relayed a byte every 2 s. Each is cut within the cap
    plus 2 s, with one line."""
    drip = Drip(mode, gap=1.0 if mode == "loop" else 2.0, context=tls_context(tmp_path, []))
    scheme = "https" if mode == "tls" else "http"
    started = time.monotonic()
    try:
        with pytest.raises(FetchError) as caught:
            fetch.fetch(f"{scheme}://slow.example:{drip.port}/", timeout=CAP,
                        resolver=lambda host, port: ["127.0.0.1"])  # fmt: skip
        took = time.monotonic() - started
    finally:
        drip.close()
    message = str(caught.value)
    assert took < CAP + 2, f"{mode}: {took:.1f} s"
    url = f"{scheme}://slow.example:{drip.port}/"
    assert message == f"{url}: unreachable (not fetched within 3 s, the time a fetch may take)"


class ConnectProxy:
    """A small HTTP proxy on 127.0.0.1 that only tunnels (CONNECT), as a company proxy does for
    https: it records each request's target and headers, answers `status` (200: the tunnel is
    made to the target and relayed both ways)."""

    def __init__(self, status: int = 200):
        self.status = status
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._tunnel, args=(conn,), daemon=True).start()

    def _tunnel(self, conn):
        reader = conn.makefile("rb")
        try:
            method, target, _ = reader.readline().decode("latin-1").split(" ", 2)
            headers = {}
            while (line := reader.readline().decode("latin-1").strip()) != "":
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            self.requests.append((f"{method} {target}", headers))
            if method != "CONNECT" or self.status != 200:
                status = 405 if method != "CONNECT" else self.status
                conn.sendall(f"HTTP/1.1 {status} No\r\nContent-Length: 0\r\n\r\n".encode())
                return
            host, _, port = target.rpartition(":")
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=10)
            conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            pipes = [threading.Thread(target=self._pipe, args=pair, daemon=True)
                     for pair in ((conn, upstream), (upstream, conn))]  # fmt: skip
            for pipe in pipes:
                pipe.start()
            for pipe in pipes:
                pipe.join(20)
        except (OSError, ValueError):
            pass
        finally:
            conn.close()

    @staticmethod
    def _pipe(source, sink):
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self):
        self.listener.close()


@pytest.fixture
def proxy():
    p = ConnectProxy()
    yield p
    p.close()


def test_through_a_proxy_the_tunnel_goes_to_the_checked_address(site, proxy, loopback_is_public):
    """An http page through `[research] proxy`: CONNECT to the address that passed the check
    (the proxy never resolves the name), the URL's host in the Host header."""
    got = fetch.fetch(f"http://public.example:{site.port}/page", proxy=proxy.url,
                      resolver=lambda host, port: ["127.0.0.1"])  # fmt: skip
    assert b"vault code" in got.data
    assert [r for r, _ in proxy.requests] == [f"CONNECT 127.0.0.1:{site.port}"]
    assert site.hosts == [f"public.example:{site.port}"]


def test_the_address_check_still_applies_behind_a_proxy(proxy, site):
    """A private target is refused before the proxy is asked for anything; so is one on this
    machine (the proxy would reach it as easily as a direct connection would)."""
    for answers in (["10.0.0.7"], ["127.0.0.1"], ["2002:a00:1::"]):
        with pytest.raises(Refused, match="intranet.example resolves to"):
            fetch.fetch("http://intranet.example/hr", proxy=proxy.url, resolver=lambda h, p, a=answers: a)
    with pytest.raises(URLRefused, match="a loopback address"):
        read_url(f"http://127.0.0.1:{site.port}/page", proxy=proxy.url)
    assert proxy.requests == [] and site.hits == []


def test_https_through_a_proxy_checks_the_targets_certificate(tmp_path, proxy, loopback_is_public):
    names = []
    listener, thread = serve_tls_once(tls_context(tmp_path, names))
    port = listener.getsockname()[1]
    with pytest.raises(FetchError, match="CERTIFICATE_VERIFY_FAILED"):
        fetch.fetch(f"https://secure.example:{port}/", proxy=proxy.url, resolver=lambda h, p: ["127.0.0.1"])
    thread.join(5)
    listener.close()
    assert [r for r, _ in proxy.requests] == [f"CONNECT 127.0.0.1:{port}"] and names == ["secure.example"]


def test_a_proxy_that_refuses_the_tunnel_is_one_line(site, loopback_is_public):
    refusing = ConnectProxy(status=403)
    try:
        with pytest.raises(FetchError) as caught:
            fetch.fetch(f"http://public.example:{site.port}/page", proxy=refusing.url,
                        resolver=lambda host, port: ["127.0.0.1"])  # fmt: skip
    finally:
        refusing.close()
    proxy_at = refusing.url.removeprefix("http://")
    assert str(caught.value) == (f"http://public.example:{site.port}/page: unreachable (the proxy {proxy_at} "
                                 f"answered 403 No to CONNECT 127.0.0.1:{site.port})")  # fmt: skip
    assert site.hits == []


def test_a_proxy_in_the_environment_is_not_used_and_a_note_says_so(monkeypatch, site, loopback_is_public):
    monkeypatch.setenv("HTTPS_PROXY", "http://user:hunter2@proxy.corp.example:3128")
    note = fetch.unused_proxy_note(None)
    assert note.startswith("HTTPS_PROXY is set but pages are fetched without a proxy")
    assert "hunter2" not in note
    assert fetch.unused_proxy_note("http://proxy.corp.example:3128") is None  # configured: used
    got = fetch.fetch(f"http://public.example:{site.port}/page", resolver=lambda host, port: ["127.0.0.1"])
    assert b"vault code" in got.data  # fetched directly, the environment's proxy untouched
    monkeypatch.delenv("HTTPS_PROXY")
    assert fetch.unused_proxy_note(None) is None


NOT_PROXIES = ["socks5://proxy:1080", "https://proxy:443", "proxy.corp:3128", "http://",
               "http://me:secret@proxy.corp:3128", "http://proxy.corp:99999"]  # fmt: skip


@pytest.mark.parametrize("value", NOT_PROXIES)
def test_a_proxy_setting_that_is_not_an_http_url_is_a_config_error(value):
    from pydantic import ValidationError

    from reflectcli.config import Research

    with pytest.raises(ValidationError, match="proxy"):
        Research(proxy=value)
    assert Research(proxy="http://proxy.corp:3128").proxy == "http://proxy.corp:3128"
    assert Research().proxy is None  # off by default


def test_sources_add_says_once_that_the_environments_proxy_is_not_used(monkeypatch, site, runs_dir):
    from reflectcli.sources import library

    monkeypatch.setenv("http_proxy", "http://proxy.corp.example:3128")
    outcomes = library.add(runs_dir, [f"http://127.0.0.1:{site.port}/page"], allow_private=True)
    assert [o.status for o in outcomes] == ["added", "ignored"]
    assert outcomes[-1].error.startswith("http_proxy is set but pages are fetched without a proxy")
    files = runs_dir.parent / "notes.md"
    files.write_text("# Notes\n\nNo URL here.\n")
    assert [o.status for o in library.add(runs_dir, [str(files)])] == ["added"]  # no URL: no note


@pytest.mark.parametrize(("a", "b", "same"), [
    ("HTTP://Example.COM:80/a?q=1#top", "http://example.com/a?q=1", True),
    ("https://example.com", "https://example.com:443/", True),
    ("https://[2606:4700::1]:443/x", "https://[2606:4700::1]/x", True),
    ("https://example.com/A", "https://example.com/a", False),  # a path's case is the server's
    ("https://example.com/?a=1&b=2", "https://example.com/?b=2&a=1", False),
    ("http://example.com/", "https://example.com/", False),
    ("https://example.com:8443/", "https://example.com/", False),
])  # fmt: skip
def test_a_pages_key_is_the_url_as_a_fetch_sees_it(a, b, same):
    from reflectcli.sources.pages import page_key

    assert (page_key(a) == page_key(b)) is same


def test_searches_at_once_that_want_one_page_share_one_fetch():
    from reflectcli.sources.pages import Pages

    pages, loads, release = Pages(), [], threading.Event()

    def load():
        loads.append(1)
        release.wait(5)  # the fetch in flight, until the test lets it finish
        return "page"

    got = []
    threads = [threading.Thread(target=lambda: got.append(pages.get("https://example.com/p#x", load)))
               for _ in range(4)]  # fmt: skip
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join(5)
    assert got == ["page"] * 4 and loads == [1]

    def fails():
        loads.append(2)
        raise ValueError("cut at the cap")

    for _ in range(2):  # a failure is kept too: not fetched again
        with pytest.raises(ValueError, match="cut at the cap"):
            pages.get("https://example.com/slow", fails)
    assert loads == [1, 2] and len(pages) == 2
