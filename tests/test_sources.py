"""The source library: files, folders and URLs read into chunks with their places, an FTS5
index ranked by BM25, unchanged files left alone, changed ones re-indexed under their id, and
every bad input one line while the rest of the batch goes on."""

from __future__ import annotations

import http.server
import io
import json
import socket
import threading

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.sources import library
from reflectcli.sources.readers import SourceError, read_path
from reflectcli.store.library import Library, fts_query
from tests.corpus import FACTS, make_corpus, text_pdf
from tests.helpers import raw_db

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path / "notes")


def test_a_folder_of_every_format_is_indexed_with_places(corpus, runs_dir, backend):
    outcomes = library.add(runs_dir, [str(corpus["md"].parent)])
    assert sorted(o.status for o in outcomes) == ["added"] * 6, outcomes
    kinds = {s["kind"]: s for s in library.sources(runs_dir)}
    assert set(kinds) == {"md", "txt", "html", "docx", "pdf"}
    for kind, fact in FACTS.items():
        query = "胶泥活字" if kind == "zh" else " ".join(fact.split()[1:4])
        hits = library.search(runs_dir, query, limit=3)
        assert hits and fact[:20] in hits[0]["text"], (kind, hits)
    pdf_hit = library.search(runs_dir, "Kestrel lighthouse")[0]
    assert pdf_hit["page"] == 2  # the page the fact is on
    md_hit = library.search(runs_dir, "zoetrope Lindqvist")[0]
    assert md_hit["heading"] == "Early animation › Devices"  # its heading path
    docx_hit = library.search(runs_dir, "orrery bronze")[0]
    assert docx_hit["heading"] == "Orreries" and docx_hit["title"] == "Museum notes"


def test_unchanged_is_a_no_op_and_changed_is_reindexed_under_its_id(corpus, runs_dir, backend):
    first = {o.location: o for o in library.add(runs_dir, [str(corpus["txt"])])}
    (source_id,) = [o.source_id for o in first.values()]
    again = library.add(runs_dir, [str(corpus["txt"])])
    assert [o.status for o in again] == ["unchanged"]
    corpus["txt"].write_text("Archive notes\n\nThe Arvelo archive now holds ledger fragments.\n")
    changed = library.add(runs_dir, [str(corpus["txt"])])
    assert [(o.status, o.source_id) for o in changed] == [("updated", source_id)]
    assert library.search(runs_dir, "ledger fragments")[0]["source_id"] == source_id
    assert library.search(runs_dir, "quipu grain tallies") == []  # the old chunks are gone


def test_removed_ids_are_never_given_again(corpus, runs_dir, backend):
    library.add(runs_dir, [str(corpus["md"]), str(corpus["txt"])])
    library.remove(runs_dir, 2)
    library.add(runs_dir, [str(corpus["html"])])
    assert [s["id"] for s in library.sources(runs_dir)] == [1, 3]  # a citation [S2] stays dead


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "not a readable PDF"),
        ("blank.pdf", text_pdf([""]), "no text in it"),
        ("empty.md", b"", "no text in it"),
        ("binary.txt", b"\x00\x01\x02\x03" * 50, "binary data"),
        ("broken.docx", b"PK\x03\x04 not a zip", "not a readable DOCX"),
        ("image.png", b"\x89PNG", "unsupported type .png"),
    ],
)
def test_a_bad_file_is_one_line_and_the_rest_goes_on(corpus, runs_dir, name, content, message):
    bad = corpus["md"].parent / name
    bad.write_bytes(content)
    outcomes = library.add(runs_dir, [str(bad), str(corpus["txt"])])
    skipped = [o for o in outcomes if o.status == "skipped"]
    assert len(skipped) == 1 and message in skipped[0].error and "\n" not in skipped[0].error
    assert [o.status for o in outcomes if o.status != "skipped"] == ["added"]
    assert [s["kind"] for s in library.sources(runs_dir)] == ["txt"]  # nothing of the bad one


def test_a_reader_that_crashes_on_one_file_skips_only_that_file(corpus, runs_dir, monkeypatch):
    from reflectcli.sources import library as lib

    real = lib.read_path

    def fragile(path):
        if path.suffix == ".docx":
            raise KeyError("word/document.xml")  # as python-docx does on a broken archive
        return real(path)

    monkeypatch.setattr(lib, "read_path", fragile)
    outcomes = library.add(runs_dir, [str(corpus["docx"]), str(corpus["md"])])
    assert [o.status for o in outcomes] == ["skipped", "added"]
    assert "could not be read (KeyError" in outcomes[0].error


def test_nothing_half_indexed_stays_behind(corpus, runs_dir, monkeypatch, backend):
    """A failure while a source's chunks are written leaves no trace of it (one transaction)."""
    library.add(runs_dir, [str(corpus["txt"])])
    calls = {"n": 0}
    original = Library.save

    def failing_save(self, source, chunks):
        calls["n"] += 1
        return original(self, source, [*chunks, {"broken": True}])  # the last chunk is invalid

    monkeypatch.setattr(Library, "save", failing_save)
    with pytest.raises(KeyError):
        library.add(runs_dir, [str(corpus["md"])])
    with raw_db(runs_dir) as db:
        assert db.execute("SELECT COUNT(*) FROM sources").fetchone()[0] == 1
        assert db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] == db.execute(
            "SELECT COUNT(*) FROM chunk_index").fetchone()[0]  # fmt: skip


class _Pages(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []  # every path asked for, over the test session

    def log_message(self, *args):
        pass

    def do_GET(self):  # noqa: N802
        _Pages.hits.append(self.path)
        pages = {
            "/press": (
                "text/html",
                f"<html><head><title>Press</title></head><body><article>"
                f"<p>{FACTS['html']}</p><p>More on the Rhine towns and their "
                "printers.</p></article></body></html>".encode(),
            ),  # fmt: skip
            "/log.pdf": ("application/pdf", text_pdf([FACTS["pdf"]])),
            "/image": ("image/png", b"\x89PNG"),
        }
        if self.path not in pages:
            self.send_error(404)
            return
        ctype, data = pages[self.path]
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def site(monkeypatch):
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_urls_are_fetched_and_bad_ones_are_one_line(site, runs_dir):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = sock.getsockname()[1]
    outcomes = library.add(runs_dir, [f"{site}/press", f"{site}/log.pdf", f"{site}/missing",
                                      f"{site}/image", f"http://127.0.0.1:{closed}/x"],
                           allow_private=True)  # fmt: skip
    status = {o.location.rsplit("/", 1)[-1]: (o.status, o.error) for o in outcomes}
    assert status["press"][0] == "added" and status["log.pdf"][0] == "added"
    assert "answered 404" in status["missing"][1]
    assert "unsupported content type image/png" in status["image"][1]
    assert "unreachable" in status["x"][1]
    assert library.search(runs_dir, "Vellmar psalter")[0]["kind"] == "url"


def test_a_url_on_this_machine_is_refused_before_connecting(site, runs_dir):
    _Pages.hits.clear()
    outcomes = library.add(runs_dir, [f"{site}/press", "ftp://files.example/notes.txt"])
    errors = [o.error for o in outcomes]
    assert [o.status for o in outcomes] == ["skipped", "skipped"]
    assert "ftp://files.example/notes.txt: unsupported scheme ftp:// (only http and https)" in errors
    assert errors[1].startswith(f"{site}/press: refused, 127.0.0.1 is a loopback address")
    assert _Pages.hits == [] and library.sources(runs_dir) == []


def test_the_allow_private_key_lets_sources_add_fetch_an_intranet_page(site, runs_dir, tmp_path):
    (tmp_path / "config.toml").write_text("[research]\nallow_private = true\n")
    added = invoke("sources", "add", f"{site}/press", "--runs-dir", runs_dir)
    assert added.exit_code == 0 and "1 added" in added.output, added.output
    (tmp_path / "config.toml").write_text("")
    refused = invoke("sources", "add", f"{site}/log.pdf", "--runs-dir", runs_dir)
    assert refused.exit_code == 1 and "a loopback address" in refused.stderr


@pytest.mark.parametrize("query", ['"movable', "a OR NOT b*", "NEAR(x y)", "title:foo", "^x", "''", "-"])
def test_any_query_text_is_safe(corpus, runs_dir, query):
    library.add(runs_dir, [str(corpus["md"])])
    library.search(runs_dir, query)  # never an FTS5 syntax error
    assert fts_query(query) is None or all(part.startswith('"') for part in fts_query(query).split(" OR "))


def test_the_commands(corpus, runs_dir, backend):
    folder = corpus["md"].parent
    (folder / "photo.jpg").write_bytes(b"\xff\xd8")
    added = invoke("sources", "add", folder, "--runs-dir", runs_dir)
    assert added.exit_code == 0, added.output
    assert "6 added" in added.output and "photo" not in added.stdout
    assert "note:" in added.stderr and "other types ignored (.jpg)" in added.stderr
    listing = json.loads(invoke("sources", "list", "--json", "--runs-dir", runs_dir).stdout)
    assert {"id", "title", "kind", "location", "chunks", "added_at"} <= set(listing[0])
    hits = json.loads(invoke("sources", "search", "Tessaly orrery", "--json", "--runs-dir",
                             runs_dir).stdout)  # fmt: skip
    assert hits[0]["title"] == "Museum notes" and "Tessaly" in hits[0]["snippet"]
    shown = invoke("sources", "show", hits[0]["source_id"], "--runs-dir", runs_dir)
    assert shown.exit_code == 0 and "Orreries" in shown.output
    bad = invoke("sources", "add", folder / "nope.md", "--runs-dir", runs_dir)
    assert bad.exit_code == 1 and bad.stderr.strip() == f"error: {folder / 'nope.md'}: no such file or folder"
    gone = invoke("sources", "remove", "999", "--runs-dir", runs_dir)
    assert gone.exit_code == 1 and "no source 999" in gone.stderr


def test_read_commands_on_an_empty_folder_create_nothing(tmp_path):
    runs = tmp_path / "runs"
    assert "no sources in" in invoke("sources", "list", "--runs-dir", runs).output
    assert "nothing in the library matches" in invoke("sources", "search", "x", "--runs-dir",
                                                      runs).output  # fmt: skip
    assert not runs.exists()


def test_readers_refuse_what_they_cannot_read(tmp_path):
    path = tmp_path / "notes.rtf"
    path.write_text("{\\rtf1 hello}")
    with pytest.raises(SourceError, match="unsupported type .rtf"):
        read_path(path)


def test_common_words_do_not_drown_the_rare_one(runs_dir, monkeypatch):
    """A word in most chunks is dropped from the query (the rarest stays), and a query of only
    common words ranks a bounded set of matches instead of the whole library."""
    from reflectcli.store import library as store_library
    from reflectcli.store.db import Store

    store = Store(runs_dir)
    lib = Library(store.conn)
    chunks = [{"text": f"the press number {i}", "page": None, "heading": None, "start": 0,
               "end": 10, "body": f"the press number {i}"} for i in range(40)]  # fmt: skip
    chunks.append({"text": "the colophon of Mainz", "page": None, "heading": None, "start": 0,
                   "end": 10, "body": "the colophon of Mainz"})  # fmt: skip
    lib.save({"kind": "md", "location": "/x.md", "title": "X", "content_hash": "h",
              "chars": 1}, chunks)  # fmt: skip
    assert lib._useful_words("the colophon")[0] == "colophon the"  # a small library keeps all
    monkeypatch.setattr(store_library, "MANY", 10)
    assert lib._useful_words("the colophon")[0] == "colophon"
    assert lib._useful_words("the")[0] == "the"  # the rarest word always stays
    assert lib._useful_words("zzz unknown")[0] == ""
    assert lib.search("the press colophon", limit=1)[0]["text"] == "the colophon of Mainz"
    monkeypatch.setattr(store_library, "CANDIDATES", 5)
    assert len(lib.search("the", limit=10)) == 5
    store.close()


def test_stemmed_matching_with_the_words_as_written_first(runs_dir, tmp_path, backend):
    """A query for "coroutines" finds "coroutine" (and back), and the chunk holding the query's own form
    ranks first, on both stores."""
    notes = tmp_path / "stems"
    notes.mkdir()
    (notes / "one.md").write_text("# One\n\nA coroutine is awaited by the event loop here.\n")
    (notes / "many.md").write_text("# Many\n\nCoroutines are awaited by the event loop here.\n")
    (notes / "other.md").write_text("# Other\n\nThreads are scheduled by the kernel.\n")
    library.add(runs_dir, [str(notes)])
    for query, first in (("coroutines", "Coroutines are"), ("coroutine", "A coroutine"),
                         ("awaiting coroutine", "A coroutine")):  # fmt: skip
        hits = library.search(runs_dir, query)
        assert len(hits) == 2 and hits[0]["text"].startswith(first), (query, hits)
        assert hits[0]["score"] < hits[1]["score"]


def test_an_older_library_gets_its_stemmed_index_built(corpus, runs_dir, backend):
    """A library indexed before migration 010 (no stemmed index yet) is upgraded on open, and
    what it already holds is found by stem."""
    library.add(runs_dir, [str(corpus["md"])])
    with raw_db(runs_dir) as db:
        if backend:
            db.execute("ALTER TABLE chunk_index DROP COLUMN stems")
        else:
            db.execute("DROP TABLE chunk_stems")
        db.execute("DELETE FROM _migrations WHERE name = '010_chunk_stems'")
    assert library.search(runs_dir, "zoetropes")  # the file says "zoetrope"
    with raw_db(runs_dir) as db:
        done = db.execute("SELECT COUNT(*) FROM _migrations WHERE name = '010_chunk_stems'").fetchone()
    assert done[0] == 1


def test_a_query_of_stop_words_is_one_clear_line(corpus, runs_dir):
    library.add(runs_dir, [str(corpus["md"])])
    out = invoke("sources", "search", "the of and", "--runs-dir", runs_dir)
    assert out.exit_code == 1 and "holds only stop words" in out.stderr and "0.00" not in out.output


def test_output_cut_off_by_head_is_silent(corpus, runs_dir):
    """`reflectcli sources list | head -1`: the reader goes away, we stop without a word."""
    import subprocess
    import sys

    library.add(runs_dir, [str(corpus["md"])])
    child = subprocess.Popen([sys.executable, "-m", "reflectcli", "sources", "list", "--runs-dir",
                              str(runs_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    child.stdout.close()  # before it writes anything
    err = child.stderr.read()
    child.stderr.close()
    assert child.wait(timeout=60) in (1, 141) and err == b""  # 1: click's own EPIPE exit at the flush


def test_symlinked_folders_are_followed_once_and_loops_reported(tmp_path, runs_dir):
    root, elsewhere = tmp_path / "notes", tmp_path / "elsewhere"
    (root / "sub").mkdir(parents=True)
    elsewhere.mkdir()
    (root / "sub" / "a.md").write_text("# A\n\nThe Arvelo archive holds ledgers.\n")
    (elsewhere / "b.md").write_text("# B\n\nThe Kestrel log lists ships.\n")
    (root / "linked").symlink_to(elsewhere, target_is_directory=True)
    (root / "sub" / "up").symlink_to(root, target_is_directory=True)  # a loop
    outcomes = library.add(runs_dir, [str(root)])
    assert sorted(o.title for o in outcomes if o.status == "added") == ["A", "B"]
    notes = [o.error for o in outcomes if o.status == "ignored"]
    assert len(notes) == 1 and "sub/up: a link to" in notes[0] and "already read" in notes[0]


def test_a_library_warning_joins_its_files_one_line(tmp_path, runs_dir):
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import NameObject

    data = text_pdf(["The Kestrel lighthouse log notes forty-one ships in the winter gale.", "Notes."])
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    first = writer.add_outline_item(title="Log", page_number=0)
    last = writer.add_outline_item(title="Notes", page_number=1)
    last.get_object()[NameObject("/Next")] = first  # an outline that loops: pypdfium2 warns
    with (tmp_path / "log.pdf").open("wb") as out:
        writer.write(out)
    out = invoke("sources", "add", tmp_path / "log.pdf", "--runs-dir", runs_dir)
    assert out.exit_code == 0 and "1 added" in out.stdout, out.output
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("note: log.pdf: the reader warned: "
                                                   "A circular bookmark reference"), lines  # fmt: skip
    assert "WARNING" not in out.output


def test_ctrl_c_during_add_says_what_was_kept(corpus, runs_dir, monkeypatch):
    real, calls = library._add_read, []

    def stop_at_the_third(*args):
        calls.append(args[1])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    monkeypatch.setattr(library, "_add_read", stop_at_the_third)
    out = invoke("sources", "add", corpus["md"].parent, "--runs-dir", runs_dir)
    assert out.exit_code == 130
    assert "2 added" in out.stdout and "interrupted after 2 of 6: the sources listed are kept" in out.stderr
    assert len(library.sources(runs_dir)) == 2


def test_prune_removes_the_sources_of_files_gone_from_a_folder(corpus, runs_dir):
    folder = corpus["md"].parent
    library.add(runs_dir, [str(folder)])
    corpus["txt"].unlink()
    again = invoke("sources", "add", folder, "--runs-dir", runs_dir)
    assert "1 source in the library no longer in this folder (--prune removes them)" in again.stderr
    assert len(library.sources(runs_dir)) == 6
    pruned = invoke("sources", "add", folder, "--prune", "--runs-dir", runs_dir)
    assert pruned.exit_code == 0 and "removed [" in pruned.stdout and "no longer" not in pruned.stderr
    assert str(corpus["txt"].resolve()) not in {s["location"] for s in library.sources(runs_dir)}
    assert len(library.sources(runs_dir)) == 5
