"""`reflectcli review` on an article from another tool: its numbered references are resolved
against the source library (a URL fetched and added, a file added, a title matched), or
reported with why (an ambiguous title, a title the library lacks, a citation the list lacks),
never guessed; the resolved citations get the same claim check as the tool's own."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from reflectcli.cli.app import app
from reflectcli.models.fake import ScriptedResponder
from reflectcli.sources import library
from reflectcli.sources.resolve import Resolver, resolve, title_key, url_key
from reflectcli.writing.citations import cited_ids
from reflectcli.writing.claims import claims_in
from reflectcli.writing.reflist import find_references, labels
from tests.test_fetch import Site

ARTICLE = """# Printing in Europe

## The press

Gutenberg printed the Bible around 1455 in Mainz [1]. Early printers mixed soot with linseed
oil to make their ink [2]. The staff handbook says the vault code is 4417 [3]. The same handbook
says the vault code is 9999 [3]. Paper came from water mills [4]. A man named Jones wrote about
it first [5]. Nobody lists this one [7].

## References

1. *The Printing Press in Europe*
2. [Ink notes](notes/ink.md)
3. Staff handbook, <http://127.0.0.1:{port}/page>
4. "Notes on Paper"
5. Jones, A Book Nobody Has, 1999.
"""


def invoke(*args):
    return CliRunner().invoke(app, list(args))


class Critic(ScriptedResponder):
    """The critic calls every claim it is shown supported (the code's veto must catch 9999),
    and records the prompt it was given."""

    def __call__(self, step, messages):
        assert step == "review:r1", step
        self.prompt = messages[-1]["content"]
        claims = [{"claim": c, "source": s, "verdict": "supported", "quote": "", "reason": "it says so"}
                  for c, ids, _ in re.findall(r"^(C\d+) \[([^\]]+)\]: (.*)$", self.prompt, re.M)
                  for s in ids.split(", ")]  # fmt: skip
        return json.dumps({"score": 6, "dimensions": dict.fromkeys(
            ("accuracy", "completeness", "readability", "structure"), 6),
            "feedback": "Two claims rest on sources that could not be found.",
            "improvements": [{"section": "The press", "issue": "Cite a source for the mills.",
                              "severity": "major"}], "claims": claims})  # fmt: skip


@pytest.fixture
def site():
    s = Site()
    yield s
    s.close()


@pytest.fixture
def outside(tmp_path, runs_dir, site):
    """The library (a title, two sources sharing one title), the article's own folder (a file it
    cites, not yet in the library), and a config that allows fetching from 127.0.0.1."""
    lib = tmp_path / "lib"
    for name, text in {
        "press.md": "# The Printing Press in Europe\n\nGutenberg printed the Bible around 1455 in Mainz.\n",
        "a/paper.md": "# Notes on Paper\n\nPaper in Europe came from water mills.\n",
        "b/paper.md": "# Notes on Paper\n\nSome paper was imported from Spain.\n",
    }.items():
        (lib / name).parent.mkdir(parents=True, exist_ok=True)
        (lib / name).write_text(text)
    assert {o.status for o in library.add(runs_dir, [str(lib)])} == {"added"}
    article = tmp_path / "article" / "printing.md"
    (article.parent / "notes").mkdir(parents=True)
    (article.parent / "notes" / "ink.md").write_text(
        "# Ink\n\nEarly printers mixed soot with linseed oil to make their ink.\n"
    )
    article.write_text(ARTICLE.format(port=site.port))
    config = tmp_path / "private.toml"  # not ./config.toml, which every command reads
    config.write_text("[research]\nallow_private = true\n")
    return article, config


def test_every_reference_is_resolved_or_reported_and_none_is_guessed(scripted, runs_dir, outside, site,
                                                                     tmp_path):  # fmt: skip
    article, config = outside
    scripted.responder = critic = Critic()
    report = tmp_path / "report.md"
    result = invoke("review", str(article), "--model", "fake/w", "--runs-dir", str(runs_dir), "--config",
                    str(config), "--thread-id", "outside", "--json", "-o", str(report),
                    "--files", str(article.parent))  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    refs = {r["ref"]: r for r in data["references"]}
    assert {k: (r["status"], r["by"]) for k, r in refs.items()} == {
        "1": ("resolved", "title"),
        "2": ("resolved", "file (added)"),
        "3": ("resolved", "url (added)"),
        "4": ("ambiguous", "title"),
        "5": ("unresolved", ""),
        "7": ("unresolved", ""),
    }
    assert refs["2"]["location"] == "notes/ink.md"  # relative to the folder allowed, never absolute
    assert refs["3"]["location"] == f"http://127.0.0.1:{site.port}/page" and site.hits == ["/page"]
    assert refs["4"]["source_id"] is None and len(refs["4"]["candidates"]) == 2  # reported, not picked
    assert "no library source has this title" in refs["5"]["why"]
    assert "no such entry" in refs["7"]["why"]
    assert [refs[k]["sentences"] for k in "123457"] == [1, 1, 2, 1, 1, 1]
    # only what resolved is evidence, under the article's own ids; the critic saw those only
    assert "[S1]" in critic.prompt and "[S3]" in critic.prompt and "[S4]" not in critic.prompt
    verdicts = {(" ".join(c["sentence"].split()[:3]), c["source"]): c["verdict"] for c in data["claims"]}
    assert verdicts == {
        ("Gutenberg printed the", "S1"): "supported",
        ("Early printers mixed", "S2"): "supported",
        ("The staff handbook", "S3"): "supported",
        ("The same handbook", "S3"): "contradicted",  # the critic said supported; code: 9999, not 4417
    }
    text = report.read_text()
    assert "## References checked" in text and "References: 3 of 6 resolved" in text
    assert "[4] ambiguous" in text and "[7] unresolved" in text and "1 cited claim left unchecked" in text
    assert "contradicted [S3] The same handbook" in text
    shown = invoke("show", "outside", "--json", "--runs-dir", str(runs_dir))
    state = json.loads(shown.output)["state"]
    assert [r["ref"] for r in state["references"]] == ["1", "2", "3", "4", "5", "7"]
    assert state["versions"][0]["text"] == article.read_text()  # version 1 is the file as written
    assert [x["title"] for x in state["outline"]["sections"]] == ["The press"]  # the list is no section
    assert state["research"]["sections"] == [["S1", "S2", "S3"]]  # the section's resolved sources
    assert [s["title"] for s in library.sources(runs_dir)].count("Ink") == 1


def test_a_url_on_this_machine_is_refused_without_allow_private(scripted, runs_dir, outside, site):
    article, _ = outside
    scripted.responder = Critic()
    result = invoke("review", str(article), "--model", "fake/w", "--runs-dir", str(runs_dir),
                    "--files", str(article.parent))  # fmt: skip
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("- [3]"))
    assert "unresolved" in line and "loopback" in line and "allow_private" in line
    assert site.hits == []  # refused before any connection
    assert "References: 2 of 6 resolved" in result.output  # [3] is not: refused
    assert "supported [S1] Gutenberg printed" in result.output  # each verdict in the terminal view


def test_reference_lists_in_other_forms():
    footnotes = "Mainz had a press[^1]. Paris too [2].\n\n[^1]: <https://example.org/a>\n[^2]: Paris notes\n"
    found = find_references(footnotes)
    assert [(e.label, e.id, e.text) for e in found.entries] == [
        ("^1", "S1", "<https://example.org/a>"),
        ("^2", "S2", "Paris notes"),
    ]
    assert cited_ids(footnotes, labels(footnotes)) == ["S1", "S2"]
    assert [c["ids"] for c in claims_in(footnotes, [])] == [["S1"], ["S2"]]  # the definitions are no claims
    trailing = "Text [1], and more [2-3].\n\n1. First, <https://a.example>\n2. Second\n3. Third\n"
    assert [e.id for e in find_references(trailing).entries] == ["S1", "S2", "S3"]
    steps = "To install:\n\n1. Download it\n2. Run it\n"  # a list nothing cites is no reference list
    assert find_references(steps).entries == []
    chinese = "印刷术传到欧洲[1]。\n\n## 参考文献\n\n[1] 《欧洲印刷史》\n"
    assert [(e.label, e.text) for e in find_references(chinese).entries] == [("1", "《欧洲印刷史》")]
    prose = "## Sources\n\nI mostly read old books about it.\n"  # prose under the heading: no list
    assert find_references(prose).entries == []


def test_reflectcli_ids_resolve_by_their_references_entry(runs_dir, tmp_path):
    note = tmp_path / "notes.md"
    note.write_text("# Gutenberg\n\n## Mainz\n\nThe Mainz workshop cast a ninth typeface in 1457.\n")
    library.add(runs_dir, [str(note)])
    text = (f"The workshop cast a ninth typeface in 1457 [S2].\n\n## References\n\n"
            f"- [S2] Gutenberg — {note}, “Mainz”\n  - C1 supported: “The workshop …”\n")  # fmt: skip
    evidence, report = resolve(runs_dir, text)
    assert [(r["ref"], r["status"], r["by"]) for r in report] == [("S2", "resolved", "file (in the library)")]
    assert [(e["id"], e["location"]) for e in evidence] == [("S2", "notes.md")]  # as shown, not where
    assert "ninth typeface" in evidence[0]["text"]


def test_titles_match_exactly_after_normalisation_and_near_only_when_unique(runs_dir, tmp_path):
    for name, title in [("a", "The History of Printing"), ("b", "A History of Paper Mills"),
                        ("c", "A History of Paper Milks")]:  # fmt: skip
        (tmp_path / f"{name}.md").write_text(f"# {title}\n\nText about {title}.\n")
        library.add(runs_dir, [str(tmp_path / f"{name}.md")])
    resolver = Resolver(runs_dir, None, False)
    assert resolver.title(["THE HISTORY OF PRINTING."])["by"] == "title"
    near = resolver.title(["The History of Printin"])
    assert near["status"] == "resolved" and near["by"].startswith("title (near match")
    assert resolver.title(["A History of Paper Mils"])["status"] == "ambiguous"  # two near matches
    assert resolver.title(["The History of Typefaces"])["status"] == "unresolved"
    assert resolver.title(["Printing"])["status"] == "unresolved"  # too short to match loosely
    assert title_key("«Notes  on—Paper»") == "notes on paper"
    assert url_key("HTTPS://www.Example.org:443/a/?utm_source=x&b=2#top") == url_key(
        "https://example.org/a?b=2"
    )


def test_the_checklist_critic_gives_the_codes_verdicts(fake, runs_dir, outside):
    """No model call reviews: the resolved claims still get verdicts, from code alone (a
    sentence the source says nearly verbatim is consistent, another code is contradicted)."""
    article, config = outside
    result = invoke("review", str(article), "--model", "fake/w", "--critic", "checklist", "--runs-dir",
                    str(runs_dir), "--config", str(config), "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["source"] == "checklist" and fake.history == []
    verdicts = {(" ".join(c["sentence"].split()[:3]), c["source"]): (c["verdict"], c["by"])
                for c in data["claims"]}  # fmt: skip
    assert verdicts[("Gutenberg printed the", "S1")] == ("consistent", "check")
    assert verdicts[("The same handbook", "S3")] == ("contradicted", "check")
    assert {v for v, _ in verdicts.values()} <= {"consistent", "unverified", "contradicted"}


def test_a_file_outside_the_articles_folder_is_not_read(runs_dir, tmp_path, monkeypatch):
    """An article names a file elsewhere on the machine: reported, never added or sent."""
    (tmp_path / "elsewhere").mkdir()
    secret = tmp_path / "elsewhere" / "secret.md"
    secret.write_text("# Secret\n\nThe password is hunter2.\n")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    text = f"The password is hunter2 [1].\n\n## References\n\n1. {secret}\n2. ../elsewhere/secret.md\n"
    evidence, report = resolve(runs_dir, text, tmp_path / "work")
    assert evidence == [] and [r["status"] for r in report] == ["unresolved", "unresolved"]
    assert "not in the source library" in report[0]["why"] and library.sources(runs_dir) == []
    library.add(runs_dir, [str(secret)])  # once the person added it, it may be cited
    evidence, report = resolve(runs_dir, text, tmp_path / "work")
    assert report[0]["status"] == "resolved" and "hunter2" in evidence[0]["text"]


def test_a_url_the_library_holds_is_matched_in_another_spelling_and_not_fetched_again(runs_dir, site):
    url = f"http://127.0.0.1:{site.port}/page"
    assert library.add(runs_dir, [url], allow_private=True)[0].status == "added"
    text = f"The vault code is 4417 [1].\n\n## Sources\n\n1. <HTTP://127.0.0.1:{site.port}/page/?utm_source=x#top>\n"
    evidence, report = resolve(runs_dir, text, None, allow_private=True)
    assert [(r["status"], r["by"], r["location"]) for r in report] == [("resolved", "url", url)]
    assert site.hits == ["/page"] and "4417" in evidence[0]["text"]  # fetched once, by `sources add`


def test_an_entrys_sentences_are_cut_by_the_one_segmenter():
    from reflectcli.sources.resolve import _parts

    titles = _parts("Smith, J. (2020). The history of printing in Mainz. Oxford Univ. Press.")["titles"]
    assert "The history of printing in Mainz" in titles
    assert "Smith, J" not in titles  # an initial ends no sentence (the regular expression's cut)
