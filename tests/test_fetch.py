"""Safe fetching: every URL and every redirect resolved and checked before any connection, the
connection made to the address checked, size and time capped. No test here connects anywhere
but 127.0.0.1: private ranges are checked with a faked resolver (the refusal happens before
connecting), and loopback's refusal is shown by a local server that counts its hits."""

from __future__ import annotations

import http.server
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
}  # fmt: skip


@pytest.mark.parametrize(("address", "kind"), sorted(REFUSED.items()))
def test_addresses_on_this_machine_or_a_private_network_are_refused(address, kind):
    assert kind in address_problem(address)


@pytest.mark.parametrize("address", ["93.184.215.14", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address):
    assert address_problem(address) is None


@settings(max_examples=100, deadline=None)
@given(st.ip_addresses(v=4))
def test_an_ipv4_mapped_address_is_judged_as_its_ipv4(address):
    assert (address_problem(str(address)) is None) == (address_problem(f"::ffff:{address}") is None)


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
    `/slow` drips; every request is counted."""

    def __init__(self):
        self.hits: list[str] = []
        site = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):  # noqa: N802
                site.hits.append(self.path)
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


def test_https_goes_to_the_checked_address_and_still_checks_the_certificate(tmp_path, loopback_is_public):
    """TLS to the pinned address, with the URL's host for SNI and the certificate check: a
    self-signed certificate is refused (verification is not turned off by pinning)."""
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
    names = []
    context.sni_callback = lambda sock, server_name, ctx: names.append(server_name)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

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
