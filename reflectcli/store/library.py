"""The source library's SQL: sources, their chunks, and full-text indexes ranked by BM25.

A source and all its chunks are written in one transaction, so a failure half way leaves
nothing half indexed. The indexes hold each chunk's searchable form (`body`, prepared by the
caller: CJK characters spaced out so that unicode61 can match them one by one) under the
chunk's id as rowid: `chunk_index` as written, `chunk_stems` Porter-stemmed (on PostgreSQL,
both are tsvectors of `chunk_index`: `simple` and `english`). Matching is by stem; the words as
written add to the score, so they rank first.
"""

from __future__ import annotations

import math
import re
import time
import unicodedata
from typing import Any

from reflectcli.store.connection import Connection

SOURCE_KEYS = ("id", "kind", "location", "title", "content_hash", "chars", "added_at", "updated_at", "shown")
HIT_KEYS = ("chunk_id", "source_id", "title", "location", "kind", "page", "heading", "text", "score")
# a hit's location is the source's as shown (a file's path relative to the folder added; a URL)
_HIT_COLUMNS = "c.id, c.source_id, s.title, COALESCE(s.shown, s.location), s.kind, c.page, c.heading, c.text"
_TOKEN = re.compile(r"\w+", re.UNICODE)


COMMON = 0.2  # a word in more than this share of the chunks adds little to BM25, costs a lot
MANY = 2000  # ... and in more chunks than this (a small library keeps every word: it is fast)
CANDIDATES = 5000  # a query of only common words ranks the first this many matching chunks
POOL = 3  # chunks ranked by stem per chunk asked for, among which the exact forms then count


def fts_query(prepared: str) -> str | None:
    """An FTS5 query from free text: every word quoted (no operator can sneak in), any of them
    may match, BM25 ranks chunks holding more of them (and rarer ones) first. None when the
    text holds no word."""
    words = _TOKEN.findall(prepared)
    if not words:
        return None
    return " OR ".join(f'"{w}"' for w in dict.fromkeys(words))


def tsquery(fts_query: str) -> str:
    """FTS5's `"a" OR "b"` (every word quoted) as PostgreSQL's `'a' | 'b'`, for to_tsquery."""
    words = [_folded(w) for w in re.findall(r'"([^"]*)"', fts_query)]  # as the index keeps them
    return " | ".join("'" + w.replace("\\", "").replace("'", "''") + "'" for w in words if w)


def _folded(word: str) -> str:
    """A word as the unicode61 tokenizer stores it (lower case, diacritics removed). The same as
    writing.textops.fold: the store layer imports nothing above it, so it keeps its own."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")


def _folded_text(text: str) -> str:
    """A long text folded as `_folded` does a word, at C speed: the combining marks' blocks."""
    return _MARKS.sub("", unicodedata.normalize("NFKD", text.lower()))


class Library:
    """Sources and chunks in an open reflect.db connection (the store's)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.postgres = getattr(conn, "dialect", "sqlite") == "postgres"
        # FTS5 keeps one tokenizer per table: the exact forms and the stemmed ones are two
        # tables on SQLite; PostgreSQL keeps both tsvectors in one row, computed from `body`
        self.indexes = ("chunk_index",) if self.postgres else ("chunk_index", "chunk_stems")

    def indexed(self, body: str) -> str:
        """The text as the full-text index keeps it: PostgreSQL's `simple` configuration does
        not drop diacritics as FTS5's unicode61 does, so they are dropped here (queries are
        folded the same way)."""
        return _folded(body) if self.postgres else body

    def find(self, location: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {', '.join(SOURCE_KEYS)} FROM sources WHERE location = ?", (location,)
        ).fetchone()
        return dict(zip(SOURCE_KEYS, row, strict=True)) if row else None

    def get(self, source_id: int) -> dict[str, Any] | None:
        row = self.conn.execute(
            f"SELECT {', '.join(SOURCE_KEYS)} FROM sources WHERE id = ?", (source_id,)
        ).fetchone()
        return dict(zip(SOURCE_KEYS, row, strict=True)) if row else None

    def save(self, source: dict[str, Any], chunks: list[dict[str, Any]]) -> tuple[int, str]:
        """Insert a source, or replace a changed one's chunks (its id stays); one transaction.
        Returns (id, "added" | "updated")."""
        now = time.time()
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            old = self.conn.execute(
                "SELECT id FROM sources WHERE location = ?", (source["location"],)
            ).fetchone()
            if old is None:
                source_id = self.conn.execute(
                    "INSERT INTO sources (kind, location, title, content_hash, chars, added_at, "
                    "updated_at, shown) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (source["kind"], source["location"], source["title"], source["content_hash"],
                     source["chars"], now, now, source.get("shown")),
                ).fetchone()[0]  # fmt: skip
                what = "added"
            else:
                source_id, what = old[0], "updated"
                self._drop_chunks(source_id)
                self.conn.execute(
                    "UPDATE sources SET kind = ?, title = ?, content_hash = ?, chars = ?, "
                    "updated_at = ?, shown = COALESCE(?, shown) WHERE id = ?",
                    (source["kind"], source["title"], source["content_hash"], source["chars"],
                     now, source.get("shown"), source_id),
                )  # fmt: skip
            for seq, chunk in enumerate(chunks):
                chunk_id = self.conn.execute(
                    "INSERT INTO chunks (source_id, seq, text, page, heading, char_start, char_end, toc) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                    (source_id, seq, chunk["text"], chunk.get("page"), chunk.get("heading"),
                     chunk["start"], chunk["end"], int(bool(chunk.get("toc")))),
                ).fetchone()[0]  # fmt: skip
                for table in self.indexes:
                    self.conn.execute(
                        f"INSERT INTO {table} (rowid, body) VALUES (?, ?)",
                        (chunk_id, self.indexed(chunk["body"])),
                    )
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return int(source_id), what

    def set_shown(self, source_id: int, shown: str) -> None:
        """A source's path as shown, for one added before it was kept (or from another folder)."""
        self.conn.execute("UPDATE sources SET shown = ? WHERE id = ?", (shown, source_id))

    def _drop_chunks(self, source_id: int) -> None:
        for table in self.indexes:
            self.conn.execute(
                f"DELETE FROM {table} WHERE rowid IN (SELECT id FROM chunks WHERE source_id = ?)",
                (source_id,),
            )
        self.conn.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))

    def remove(self, source_id: int) -> bool:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            self._drop_chunks(source_id)
            gone = self.conn.execute("DELETE FROM sources WHERE id = ?", (source_id,)).rowcount
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return gone > 0

    def sources(self) -> list[dict[str, Any]]:
        """Every source with its chunk count, oldest first (ids are stable)."""
        cursor = self.conn.execute(
            f"SELECT {', '.join('s.' + k for k in SOURCE_KEYS)}, COUNT(c.id) FROM sources s "
            "LEFT JOIN chunks c ON c.source_id = s.id GROUP BY s.id ORDER BY s.id"
        )
        return [{**dict(zip(SOURCE_KEYS, row[:-1], strict=True)), "chunks": row[-1]}
                for row in cursor]  # fmt: skip

    def chunks(self, source_id: int) -> list[dict[str, Any]]:
        cursor = self.conn.execute(
            "SELECT id, seq, text, page, heading, char_start, char_end FROM chunks WHERE source_id = ? "
            "ORDER BY seq",
            (source_id,),
        )
        keys = ("id", "seq", "text", "page", "heading", "char_start", "char_end")
        return [dict(zip(keys, row, strict=True)) for row in cursor]

    def _useful_words(self, prepared_query: str) -> tuple[str, int]:
        """The query without the words that are in the index but in so many chunks (over 20 %
        of a library, and over MANY) that they barely change the ranking and would make BM25
        score most of the library; the rarest word always stays. Words in no chunk in any form
        (as written or stemmed) cannot match and go too."""
        words = list(dict.fromkeys(_folded(w) for w in _TOKEN.findall(prepared_query)))
        if not words:
            return "", 0
        if self.postgres:  # no vocabulary table: every word stays, the ranking is bounded below
            return " ".join(words), CANDIDATES + 1
        docs, total = self._vocabulary(words)
        present = sorted((docs[w], w) for w in words if docs.get(w))
        present += [(0, w) for w in words if not docs.get(w) and self._stem_matches(w)]
        if not present:
            return "", 0
        kept = [(n, w) for n, w in present if n <= max(COMMON * total, MANY)] or present[:1]
        return " ".join(w for _, w in kept), sum(n for n, _ in kept)

    def _vocabulary(self, words: list[str]) -> tuple[dict[str, int], int]:
        """How many chunks hold each word as written (FTS5's vocabulary), and how many there are."""
        marks = ", ".join("?" * len(words))
        docs = dict(self.conn.execute(
            f"SELECT term, doc FROM chunk_terms WHERE term IN ({marks})", words
        ).fetchall())  # fmt: skip
        return docs, self.conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0] or 1

    def sources_holding(self, words: list[str]) -> tuple[dict[str, int], int]:
        """How many sources hold each word in some form (by its stem: "lighthouses" counts the
        sources with "lighthouse"), and how many sources there are: how rare each word is in
        this library, an IDF over its documents. A word of ordinary prose ("see", "make") turns
        up in most documents, a topic's word in few, however often each repeats it. One indexed
        count per word: a task's few words, not a query's whole vocabulary."""
        total = self.conn.execute("SELECT COUNT(*) FROM sources").fetchone()[0]
        counts: dict[str, int] = {}
        for word in dict.fromkeys(words):
            folded = _folded(word).replace('"', "")
            if not folded.strip():
                counts[word] = 0
            elif self.postgres:
                counts[word] = self.conn.execute(
                    "SELECT COUNT(DISTINCT c.source_id) FROM chunk_index i JOIN chunks c ON c.id = i.rowid "
                    "WHERE i.stems @@ to_tsquery('english', ?)",
                    (tsquery(f'"{folded}"'),),
                ).fetchone()[0]
            else:
                counts[word] = self.conn.execute(
                    "SELECT COUNT(DISTINCT c.source_id) FROM chunk_stems JOIN chunks c ON "
                    "c.id = chunk_stems.rowid WHERE chunk_stems MATCH ?",
                    (f'"{folded}"',),
                ).fetchone()[0]
        return counts, total

    def _stem_matches(self, word: str) -> bool:
        """A word in no chunk as written that some chunk holds in another form ("coroutines")."""
        found = self.conn.execute(
            "SELECT 1 FROM chunk_stems WHERE chunk_stems MATCH ? LIMIT 1", (f'"{word}"',)
        ).fetchone()
        return found is not None

    def search(self, prepared_query: str, limit: int = 10) -> list[dict[str, Any]]:
        """Chunks matching the query, best first (lower is better, in SQLite's BM25 sign)."""
        words, matches = self._useful_words(prepared_query)
        query = fts_query(words)
        if query is None:
            return []
        # Scoring every match of a query of only common words would take seconds: rank the
        # first CANDIDATES matches instead (a subquery, so the database stops reading there).
        # A contents or index page holds every heading's words: it is found only when
        # nothing else is.
        bound = CANDIDATES if matches > CANDIDATES else None
        return self._ranked(query, int(limit), bound) or self._ranked(query, int(limit), bound, toc=True)

    def best_in(self, prepared_query: str, source_id: int) -> dict[str, Any] | None:
        """The chunk of one source that best matches the query (a contents page only when no
        other does), else its first chunk (not a contents page's when it has another)."""
        query = fts_query(prepared_query)
        if query is not None:
            found = self._ranked(query, 1, None, source_id) or self._ranked(
                query, 1, None, source_id, toc=True
            )
            if found:
                return found[0]
        row = self.conn.execute(
            f"SELECT {_HIT_COLUMNS}, 0.0 FROM chunks c JOIN sources s ON s.id = c.source_id "
            "WHERE c.source_id = ? ORDER BY c.toc, c.seq LIMIT 1",
            (source_id,),
        ).fetchone()
        return dict(zip(HIT_KEYS, row, strict=True)) if row is not None else None

    def _ranked(self, query: str, limit: int, bound: int | None, source_id: int | None = None,
                toc: bool = False) -> list[dict]:  # fmt: skip
        """Chunks matching any word of `query` in its stemmed form ("coroutines" finds
        "coroutine"), ranked by the stemmed score plus a score for the words as written (the
        exact index's on PostgreSQL; their IDF on SQLite), so that a chunk holding the query's
        own forms comes first; lower is better on both stores. Chunks of contents and index
        pages are left out, unless `toc`."""
        cut = f" LIMIT {bound}" if bound else ""
        only = " AND rowid IN (SELECT id FROM chunks WHERE source_id = ?)" if source_id is not None else ""
        if not toc:
            only += " AND rowid NOT IN (SELECT id FROM chunks WHERE toc = 1)"
        one = (source_id,) if source_id is not None else ()
        if not self.postgres:
            return self._ranked_sqlite(query, limit, cut, only, one)
        ranked = (  # minus ts_rank: lower is better, as with SQLite's BM25
            "SELECT rowid, score FROM (SELECT rowid, -(ts_rank(stems, qs) + ts_rank(tsv, qe)) AS "
            "score FROM chunk_index, to_tsquery('english', ?) qs, to_tsquery('simple', ?) qe "
            f"WHERE stems @@ qs{only}{cut}) x"
        )
        cursor = self.conn.execute(
            f"SELECT {_HIT_COLUMNS}, t.score FROM ({ranked} ORDER BY score LIMIT ?) t JOIN chunks c "
            "ON c.id = t.rowid JOIN sources s ON s.id = c.source_id ORDER BY t.score",
            (tsquery(query), tsquery(query), *one, limit),
        )
        return [dict(zip(HIT_KEYS, row, strict=True)) for row in cursor]

    def _ranked_sqlite(self, query: str, limit: int, cut: str, only: str, one: tuple) -> list[dict]:
        """The best POOL x `limit` chunks by stemmed BM25, then each given the weight (BM25's
        IDF) of every query word it holds as written: one index scan, where scoring the exact
        index too would be a second one over every match."""
        pool = max(POOL * limit, 30)
        cursor = self.conn.execute(
            f"SELECT {_HIT_COLUMNS}, t.rank, i.body FROM (SELECT rowid, rank FROM (SELECT rowid, "
            f"bm25(chunk_stems) AS rank FROM chunk_stems WHERE chunk_stems MATCH ?{only}{cut}) "
            "ORDER BY rank LIMIT ?) t JOIN chunks c ON c.id = t.rowid JOIN sources s ON "
            "s.id = c.source_id JOIN chunk_index i ON i.rowid = c.id",
            (query, *one, pool),
        )
        rows = cursor.fetchall()
        words = [w for w in dict.fromkeys(_folded(w) for w in re.findall(r'"([^"]*)"', query)) if w]
        docs, total = self._vocabulary(words) if rows and words else ({}, 1)
        weight = {w: max(math.log((total - n + 0.5) / (n + 0.5)), 1e-6) for w, n in docs.items() if n}
        written = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, weight)) + r")(?!\w)") if weight else None
        hits = []
        for *row, body in rows:
            hit = dict(zip(HIT_KEYS, row, strict=True))
            if written is not None:
                held = set(written.findall(body.lower() if body.isascii() else _folded_text(body)))
                hit["score"] -= sum(weight[w] for w in held)
            hits.append(hit)
        return sorted(hits, key=lambda h: h["score"])[:limit]
