"""A fake SearXNG on 127.0.0.1 (stdlib only): `/search?q=...&format=json` answers results that
point at pages on the same server, `/page/<n>` serves each page's HTML. Every search is counted
by its query, so a test can tell whether a resumed run searched again; every page request is
counted too, so a test can tell that a refused URL was never fetched."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PAGES = [
    ("The Vellmar psalter", "The Mainz workshop cast a ninth typeface for the Vellmar psalter in 1457."),
    ("Kestrel lighthouse", "The Kestrel lighthouse log notes forty-one ships in the winter gale."),
    ("Bi Sheng", "Bi Sheng made movable type from baked clay in China around 1040."),
    ("Venice printers", "Venice had 417 printers by 1500, more than any other city in Europe."),
]


class _Server(ThreadingHTTPServer):
    request_queue_size = 64  # many fetches at once: the default backlog (5) drops connections,
    # and a dropped SYN is retried after a second


class SearchServer:
    def __init__(self, pages=PAGES, fail_pages: bool = False, secret: str = "", statuses=(),
                 page_delay: float = 0.0, results_per_search: int | None = None,
                 drip: dict[int, float] | None = None):  # fmt: skip
        self.pages = list(pages)
        self.drip = dict(drip or {})  # page -> seconds between the bytes of its headers (a tarpit)
        self.closed = threading.Event()  # ends a drip's waits when the server closes
        self.page_delay = page_delay  # seconds each page takes to answer (a slow web)
        self.results_per_search = results_per_search  # at most this many results a search
        self.in_flight = 0  # page requests being answered now, and the most at once
        self.most_in_flight = 0
        self._lock = threading.Lock()
        self.secret = secret  # in every page's body, never in a result's snippet
        self.fail_pages = fail_pages  # pages answer 404: results keep only their snippets
        self.statuses = list(statuses)  # HTTP errors the next searches answer, in turn (401, 503)
        self.queries: Counter[str] = Counter()
        self.page_hits = 0  # every request for a page (a refused URL must leave it at 0)
        self.page_requests: Counter[str] = Counter()  # the requests for each page, by path
        self.answered: list[list[str]] = []  # each search's result URLs, in order
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                url = urlparse(self.path)
                if url.path.rstrip("/") == "/search":
                    query = parse_qs(url.query).get("q", [""])[0]
                    server.queries[query] += 1
                    if server.statuses:
                        self._send(server.statuses.pop(0), "application/json", '{"error": "no"}')
                        return
                    self._send(200, "application/json", json.dumps({"results": server.results(query)}))
                elif url.path.startswith("/page/") and not server.fail_pages:
                    with server._lock:
                        server.page_hits += 1
                        server.page_requests[url.path] += 1
                        server.in_flight += 1
                        server.most_in_flight = max(server.most_in_flight, server.in_flight)
                    time.sleep(server.page_delay)  # the page's latency
                    with server._lock:
                        server.in_flight -= 1
                    n = int(url.path.rsplit("/", 1)[1])
                    if n in server.drip:
                        self._drip(server.drip[n])
                        return
                    title, text = server.pages[n]
                    body = (f"<html><head><title>{title}</title></head><body><article><h1>{title}"
                            f"</h1><p>{text}</p><p>More about {title.lower()} follows in later "
                            f"chapters of this page. {server.secret}</p></article></body>"
                            "</html>")  # fmt: skip
                    self._send(200, "text/html; charset=utf-8", body)
                else:
                    self._send(404, "text/plain", "not found")

            def _drip(self, gap: float):
                """Headers that never end, one byte every `gap` seconds."""
                for byte in b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Pad: " + b"x" * 500:
                    try:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                    except OSError:
                        return
                    if server.closed.wait(gap):
                        return

            def _send(self, code: int, ctype: str, body: str):
                data = body.encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def results(self, query: str) -> list[dict[str, str]]:
        """Pages sharing a word with the query, best first (the most shared words); every page
        when none does (a search engine always answers something)."""
        words = {w.lower() for w in query.split() if len(w) > 3}
        scored = []
        for n, (title, text) in enumerate(self.pages):
            shared = len(words & {w.lower().strip(".,") for w in f"{title} {text}".split()})
            if shared:
                scored.append((-shared, n))
        scored = scored or [(0, n) for n in range(len(self.pages))]
        scored = sorted(scored)[: self.results_per_search]
        self.answered.append([f"{self.base_url}/page/{n}" for _, n in scored])
        return [{"title": self.pages[n][0], "url": f"{self.base_url}/page/{n}",
                 "content": self.pages[n][1][:80]} for _, n in scored]  # fmt: skip

    def __enter__(self) -> SearchServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closed.set()
        self.httpd.shutdown()
        self.httpd.server_close()
