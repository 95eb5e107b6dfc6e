"""Research that stays on the task: each section's search and the task's own, passages kept
only above a relevance floor, a section whose own search finds nothing relevant flagged."""

from __future__ import annotations

import pytest

from reflectcli.graph.nodes import Nodes
from reflectcli.sources import library
from reflectcli.sources.evidence import relevant
from reflectcli.sources.research import LocalRetriever


def hit(chunk_id: int, score: float, share: float | None = None) -> dict:
    return {"chunk_id": chunk_id, "score": score, **({"share": share} if share is not None else {})}


@pytest.mark.parametrize(("searches", "keep", "kept"), [
    ([("csv dictreader", [hit(1, -8.0), hit(2, -1.0)])], 3, [1]),  # the weak tail goes
    ([("recipes files", [hit(3, -0.1)]), ("csv dictreader", [hit(1, -8.0)])], 3, [1]),
    ([("xy zw", [hit(1, -4.0), hit(2, -3.0)]), ("uv qr", [hit(2, -3.0), hit(5, -3.9)])], 3, [1, 2, 5]),
    ([("one two three four", [hit(1, -8.0)]), ("five", [hit(2, -2.5)])], 3, [1]),  # over sqrt(words)
    ([("one two three four", [hit(1, -4.0)]), ("five", [hit(2, -2.5)])], 3, [1, 2]),
    ([("section", [hit(1, -4.0)]), ("task", [hit(2, -5.0), hit(3, -4.0)])], 2, [1, 2]),  # its own first
    ([("alpha", [hit(1, -5.0), hit(2, -4.0), hit(3, -3.0)])], 2, [1, 2]),
    ([("web", [hit(7, 0.0), hit(8, 0.0)])], 3, [7, 8]),  # no scores at all: all count
    # a library hit holding too little of its query's weight goes, however it ranks
    ([("lighthouses work", [hit(1, -9.0, 0.2), hit(2, -3.0, 0.8)])], 3, [2]),
    ([("lighthouses work", [hit(1, -9.0, 0.2)]), ("task", [hit(2, -1.0, 0.6)])], 3, [2]),
    ([("x", [hit(1, 0.0, 0.1), hit(2, 0.0, 0.9), hit(3, 0.0, 0.5)])], 3, [2, 3]),  # every score 0
    ([("x", [hit(1, -2.0, 0.0), hit(2, 0.0, None)])], 3, [2]),  # a web result has no share
    ([("x", [])], 3, []),
])  # fmt: skip
def test_the_relevance_floor(searches, keep, kept):
    assert [h["chunk_id"] for _, h in relevant(searches, keep)] == kept


def test_a_drifted_section_gets_the_tasks_passages_and_is_flagged(tmp_path, runs_dir):
    """The outline drifted ("What does csv.DictReader do?" -> a section on reading files): its
    own search finds only passages of common words; searching the task finds the csv page,
    and only that is kept."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "csv.md").write_text("# csv\n\ncsv.DictReader maps each row of a CSV file to a dict "
                                  "whose keys are the field names.\n")  # fmt: skip
    for n in range(12):
        (notes / f"io{n}.md").write_text(f"# Files {n}\n\nReading files: open the files, read "
                                         f"them line by line, then close the files ({n}).\n")  # fmt: skip
    assert all(o.status == "added" for o in library.add(runs_dir, [str(notes)]))
    state = {
        "task": "What does csv.DictReader do?", "plans": 1, "params": {"research": {"sources": "local"}},
        "outline": {"sections": [{"title": "Reading files", "goal": "Recipes for reading files"}]},
    }  # fmt: skip
    update = Nodes(None, None, LocalRetriever(runs_dir, 3)).research(state)
    texts = [e["text"] for e in update["evidence"]]
    assert len(texts) == 1 and "DictReader" in texts[0]
    assert update["evidence"][0]["query"] == state["task"]
    flagged = [e for e in update["trace"] if e["kind"] == "off_task"]
    assert len(flagged) == 1 and "section 1 “Reading files”" in flagged[0]["note"]
    assert update["research"]["sections"] == [["S1"]]


def test_an_on_task_section_keeps_its_own_passages_unflagged(tmp_path, runs_dir):
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Lighthouses\n\nThe Kestrel lighthouse log notes forty-one ships.\n")
    (notes / "b.md").write_text("# Presses\n\nThe Mainz workshop cast a typeface for the psalter.\n")
    library.add(runs_dir, [str(notes)])
    state = {
        "task": "The Kestrel lighthouse", "plans": 1, "params": {"research": {"sources": "local"}},
        "outline": {"sections": [{"title": "The log", "goal": "Kestrel lighthouse log ships"}]},
    }  # fmt: skip
    update = Nodes(None, None, LocalRetriever(runs_dir, 3)).research(state)
    assert [e["query"] for e in update["evidence"]] == ["The log Kestrel lighthouse log ships"]
    assert not [e for e in update["trace"] if e["kind"] == "off_task"]


def test_a_query_of_stop_words_finds_nothing_and_says_why(runs_dir, tmp_path):
    (tmp_path / "a.md").write_text("# The\n\nThe of and the to in.\n")
    library.add(runs_dir, [str(tmp_path / "a.md")])
    found = LocalRetriever(runs_dir)("The of and")
    assert found["hits"] == [] and "holds only stop words" in found["notes"][0]["note"]


@pytest.mark.parametrize("query", ["2024", "2024 12"])
def test_a_query_of_numbers_alone_is_searched_without_a_crash(runs_dir, tmp_path, query):
    """A task of no content word that the library still matches ("2024") weighs nothing: its
    hits hold no share of it (it divided by zero in `share` and ended the run with a traceback)."""
    (tmp_path / "a.md").write_text("# Sales 2024\n\nSales rose by 12 per cent in 2024, the report says.\n")
    library.add(runs_dir, [str(tmp_path / "a.md")])
    found = LocalRetriever(runs_dir)(query)
    assert found["hits"] and all(h["share"] == 0 for h in found["hits"])
    assert relevant([(query, found["hits"])], 3) == []


def test_auto_uses_the_library_only_when_it_holds_the_task(tmp_path, runs_dir, scripted):
    from reflectcli.runner import Runner
    from reflectcli.sources.research import resolve_mode
    from tests.helpers import quiet_ui, settings

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "editing.md").write_text("# Editing\n\nThe first reading asks whether the piece says one clear "
                                      "thing; the second cuts what does not serve it.\n")  # fmt: skip
    (notes / "cars.md").write_text("# Cars\n\nCities that ban cars from their centres see fewer "
                                   "accidents, say the traffic studies.\n")  # fmt: skip
    library.add(runs_dir, [str(notes)])
    assert resolve_mode("auto", runs_dir, None, "How do black holes form?") == "none"
    assert resolve_mode("auto", runs_dir, None, "Should cities ban cars?") == "local"
    assert resolve_mode("auto", runs_dir, None, None) == "local"  # no task: anything held
    ui = quiet_ui()
    state = Runner(ui).write("How do black holes form?", settings(runs_dir)).state
    assert state["params"]["research"]["sources"] == "none" and not state.get("evidence")
    assert "no relevant sources in the library" in ui.console.file.getvalue()


def test_a_common_word_cannot_carry_a_match(tmp_path, runs_dir, backend):
    """The task "How do lighthouses work?" against notes on urllib that say "work" throughout: half of
    the task's content words by count, a small part of its weight ("lighthouses" is in no
    source, the heaviest word there is). The same notes serve a task about them. Both stores."""
    from reflectcli.sources.research import relevant_to, weights

    notes = tmp_path / "notes"
    notes.mkdir()
    lines = ["Handlers do the work of opening URLs.", "The opener works with cookies and proxies.",
             "Basic authentication works per realm.", "Redirects work for GET requests only.",
             "HTTP headers tell the server what the client can work with."]  # fmt: skip
    for n, line in enumerate(lines):
        (notes / f"urllib{n}.md").write_text(f"# urllib {n}\n\n{line} urllib.request fetches URLs.\n")
    library.add(runs_dir, [str(notes)])
    weighed = weights(runs_dir, "How do lighthouses work?")
    assert set(weighed) == {"lighthous", "work"} and weighed["lighthous"] > 2 * weighed["work"]
    assert not relevant_to("How do lighthouses work?", runs_dir)
    assert relevant_to("Which requests does urllib redirect?", runs_dir)
    hits = LocalRetriever(runs_dir, 3)("How do lighthouses work?")["hits"]
    assert hits and all(h["share"] < 0.5 for h in hits)  # the floor keeps none of them
    assert relevant([("How do lighthouses work?", hits)], 3) == []


def test_the_critics_queries_are_searched_in_one_step_at_once_within_max_queries():
    """A review's queries left are one research step: searched concurrently (up to
    `concurrency`), merged in the review's order whatever order they finish in, a repeated
    query once, and no more than max_queries leaves."""
    import threading
    import time

    started, lock, most = [], threading.Lock(), [0, 0]

    def retriever(query):
        with lock:
            started.append(query)
            most[0] += 1
            most[1] = max(most)
        time.sleep(0.05 if query == "first" else 0.0)  # the first finishes last
        with lock:
            most[0] -= 1
        return {"hits": [{"chunk_id": len(query), "score": 0.0, "text": f"On {query}.",
                          "title": query, "location": f"notes/{query}.md", "kind": "file",
                          "source_id": 1, "page": None, "heading": None}]}  # fmt: skip

    state = {
        "task": "A task", "plans": 1, "outline": {"sections": [{"title": "One", "goal": "g"}]},
        "params": {"research": {"sources": "local", "max_queries": 4}, "concurrency": 3},
        "research": {"plan": 1, "sections": [[]]}, "sections": ["One."],
        "reviews": [{"round": 1, "search_queries": ["first", "second", "first", "third", "fourth"]}],
        "decisions": [{"round": 1, "decision": "revise"}],
        "trace": [{"kind": "search", "round": 1, "query": "zero"}],  # one of the 4 already made
    }  # fmt: skip
    update = Nodes(None, None, retriever).research(state)
    made = [e["query"] for e in update["trace"] if e["kind"] == "search"]
    assert made == ["first", "second", "third"]  # 4 - 1 made; the repeat once; review order
    assert sorted(started) == sorted(made) and most[1] >= 2  # at once, not one by one
    assert [e["query"] for e in update["evidence"]] == made


def test_stems_are_the_same_from_threads_at_once():
    """A run's searches weigh their words at once: Snowball's stemmer keeps the word it is
    stemming in its own fields, so one shared by threads garbled words (or raised IndexError)."""
    import threading

    from reflectcli.writing.titles import content_stems

    text = " ".join("lighthouses working revisions printing presses generously".split() * 50)
    want, wrong = content_stems(text), []

    def stem():
        for _ in range(200):
            try:
                wrong.extend([1] if content_stems(text) != want else [])
            except IndexError:
                wrong.append(2)

    threads = [threading.Thread(target=stem) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
