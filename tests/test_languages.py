"""Which language a text is written in (writing/languages.py `written_language`), on real
sentences: the run records it beside the language asked for."""

from __future__ import annotations

import pytest

from reflectcli.writing.languages import language_named, written_language

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
