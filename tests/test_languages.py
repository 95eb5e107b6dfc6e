"""Which language a text is written in (writing/languages.py `written_language`), on real
sentences: the run records it beside the language asked for."""

from __future__ import annotations

import pytest

from reflectcli.writing.languages import language_code, language_named, written_language

ENGLISH = ("Writers revise their drafts because the first version of a text is rarely the clearest "
           "one: reading it again shows what is missing and what can go.")  # fmt: skip
CHINESE = "作家修改草稿，是因为初稿很少是最清楚的版本：重读一遍，才看得出缺了什么、哪些可以删去。"
ARABIC = "يراجع الكتّاب مسوداتهم لأن النسخة الأولى من النص نادراً ما تكون أوضحها."
FRENCH = ("Les écrivains révisent leurs brouillons parce que la première version d'un texte est "
          "rarement la plus claire.")  # fmt: skip


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (ENGLISH, "English"),
        (CHINESE, "Chinese"),
        (ARABIC, "Arabic"),
        ("なぜ作家は原稿を何度も書き直すのでしょうか。", "Japanese"),
        ("Почему писатели правят свои черновики?", "Cyrillic-script"),
        (FRENCH, "a Latin-script language other than English"),
        ("Why do writers revise their drafts?", "English"),
        ("How glaciers form", "English"),
        ("Explain how HTTPS keeps data private", "English"),
        ("Should schools teach chess?", "English"),
        # short, and its one English-looking word ("a") is Spanish too
        ("Los escritores van a revisar sus borradores", "a Latin-script language other than English"),
        # an English article with a Chinese title quoted in it is still English
        (f"为什么作家要修改草稿\n\n{ENGLISH} {ENGLISH}", "English"),
    ],
)
def test_the_language_written_is_told_by_its_script_and_words(text, language):
    assert written_language(text) == language


@pytest.mark.parametrize("text", ["🌍🔥🌊", "", "2024 — 42!", "Explain HTTPS"])
def test_no_language_is_named_when_none_can_be_told(text):
    assert written_language(text) is None


def test_a_resolved_language_is_named_in_english():
    assert language_named("Chinese (中文)") == "Chinese"
    assert language_named("English") == "English"
    assert language_named(None) == ""


def said_before(task: str, **flags) -> str:
    """What the terminal shows as a run on these settings starts."""
    import io

    from rich.console import Console

    from reflectcli.config import load_settings
    from reflectcli.output.render import Renderer

    ui = Renderer(console=Console(file=io.StringIO(), width=300))
    ui.started("run-x", task, load_settings(flags=flags), None, resumed=False)
    return ui.console.file.getvalue()


@pytest.mark.parametrize(("task", "lang", "said"), [
    ("为什么作家要修改他们的草稿？", None, "asked for Chinese, it writes English; for Chinese, use a real"),
    ("لماذا يراجع الكتاب مسوداتهم؟", None, "asked for Arabic, it writes English"),
    ("Why do writers revise?", "zh", "asked for Chinese, it writes English"),
    ("Why do writers revise?", "fr", "asked for French, it writes garbled French"),
])  # fmt: skip
def test_the_embedded_model_says_in_one_line_what_it_can_write(task, lang, said):
    shown = said_before(task, model="local/smollm2", **({"language": lang} if lang else {}))
    notice = [line for line in shown.splitlines() if "embedded model" in line]
    assert len(notice) == 1 and notice[0].startswith("! the embedded model writes English only: ")
    assert said in notice[0]


@pytest.mark.parametrize(("task", "flags"), [
    ("Why do writers revise?", {"model": "local/smollm2"}),  # English: nothing to say
    ("🌍🔥🌊", {"model": "local/smollm2"}),  # no language to tell
    ("为什么作家要修改他们的草稿？", {"model": "fake/w"}),  # a real model writes Chinese
])  # fmt: skip
def test_nothing_is_said_when_the_model_can_write_the_language(task, flags):
    assert "embedded model" not in said_before(task, **flags)


def test_the_record_says_the_language_asked_and_the_language_written():
    from reflectcli.output.artifacts import language_line

    state = {"task": "为什么作家要修改他们的草稿？", "params": {}, "final_version": 1,
             "versions": [{"n": 1, "text": f"## Why revise?\n\n{ENGLISH}"}]}  # fmt: skip
    assert language_line(state) == "as the task (Chinese); written: English"
    state = {**state, "params": {"language": "Chinese (中文)"}, "versions": [{"n": 1, "text": CHINESE}]}
    assert language_line(state) == "Chinese (中文); written: Chinese"
    assert language_line({"task": "🌍🔥🌊", "params": {}}) == "as the task; written: nothing yet"


@pytest.mark.parametrize(("asked", "text", "code"), [
    # the language the letters tell wins: the embedded model asked for Chinese writes English
    ("Chinese (中文)", "Writers revise their drafts: the first version is rarely what they meant.", "en"),
    ("Chinese (中文)", "作家修改草稿，是因为初稿很少是他们真正想说的话。", "zh"),
    # a Latin-script language other than English: the one asked for, as a code
    ("French (français)", "Les écrivains révisent leurs brouillons avant de les publier.", "fr"),
    ("Simplified Chinese (简体中文)", "🌍🔥🌊", "zh-Hans"),
    (None, "🌍🔥🌊", ""),  # not told
])  # fmt: skip
def test_a_documents_language_code_is_the_language_it_is_written_in(asked, text, code):
    assert language_code(asked, text) == code


def test_the_html_report_declares_the_language_written_not_a_name(scripted, runs_dir):
    """Asked for Chinese, a writer that writes English: the page says `lang="en"`, not the name
    "Chinese (中文)" (no BCP 47 code) nor "zh"."""
    from reflectcli.models.fake import ScriptedResponder
    from reflectcli.output.exporters import export
    from reflectcli.runner import Runner
    from reflectcli.store.db import Store
    from tests.helpers import quiet_ui, settings

    scripted.responder = ScriptedResponder(scores=[9.0], sections=2)
    Runner(quiet_ui()).write("Why writers revise", settings(runs_dir, language="zh"), "lang")
    store = Store(runs_dir)
    run, state = store.get_run("lang"), store.load_state("lang")
    store.close()
    assert state["params"]["language"] == "Chinese (中文)"
    assert '<html lang="en">' in export(run, state, "html", "final")
