"""The JSON failure layers: extraction, clamping, retries with the error shown, fallback."""

import json

import pytest

from reflectcli.models.fake import FakeClient, review_json
from reflectcli.models.fallbacks import FALLBACK_CAP, fallback_outline, heuristic_review
from reflectcli.models.structured import (
    ExtractionError,
    complete_structured,
    extract_json,
    parse_as,
)
from reflectcli.writing.schemas import Outline, Review, to_score

GOOD = review_json(7.5)
FEEDBACK = "The argument is clear but the second section lacks evidence."


@pytest.mark.parametrize(
    "text",
    [
        GOOD,
        f"Here is my review:\n{GOOD}\nHope this helps!",
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        GOOD[:-1] + ",}",  # trailing comma
    ],
)
def test_extraction_tolerates_wrapping(text):
    assert parse_as(Review, text).score == 7.5


def test_extraction_skips_braces_in_prose_and_strings():
    text = 'Note {this} first. {"score": 6, "feedback": "a } brace in a sentence", "improvements": []}'
    review = parse_as(Review, text)
    assert review.score == 6 and review.feedback == "a } brace in a sentence"


def test_no_json_raises():
    with pytest.raises(ExtractionError):
        extract_json("I think it is quite good, maybe an eight.")


@pytest.mark.parametrize(
    ("raw", "score"),
    [(8, 8.0), ("8", 8.0), ("8/10", 8.0), ("nine", 9.0), (12, 10.0), (-3, 0.0), ("7.5", 7.5)],
)
def test_scores_are_coerced_and_clamped(raw, score):
    assert to_score(raw) == score


@pytest.mark.parametrize("raw", [True, None, "excellent", [8]])
def test_unusable_scores_raise(raw):
    with pytest.raises(ValueError):
        to_score(raw)


def test_missing_dimension_takes_the_overall_score():
    review = Review.model_validate({"score": "seven", "dimensions": {"accuracy": 9}, "feedback": FEEDBACK})
    assert review.score == 7
    assert review.dimensions.accuracy == 9
    assert review.dimensions.structure == 7 and review.dimensions.readability == 7


def test_improvements_accept_strings_and_severity_words():
    review = Review.model_validate(
        {
            "score": 5,
            "feedback": FEEDBACK,
            "improvements": ["Add data", {"text": "Cut intro", "severity": "HIGH"}],
        }  # fmt: skip
    )
    assert [i.issue for i in review.improvements] == ["Add data", "Cut intro"]
    assert [i.severity for i in review.improvements] == ["minor", "major"]


@pytest.mark.parametrize(
    "titles",
    [
        ["Title1", "Goal1"],
        ["Section title", "Why revise"],
        ["Section 1", "Section 2"],
        ["<title>", "How"],
        ["Heading two", "Why revise"],
        ["Why revise", "why revise!"],  # duplicates
        ["...", "Why revise"],
    ],
)
def test_placeholder_and_duplicate_titles_are_invalid(titles):
    with pytest.raises(ValueError):
        parse_as(Outline, json.dumps({"sections": [{"title": t, "goal": ""} for t in titles]}))


def test_real_titles_pass_and_placeholder_goals_are_dropped():
    outline = Outline.model_validate({"sections": [
        {"title": "Section headings in newspapers", "goal": "Goal1"},
        {"title": "Introduction", "goal": "what this section must achieve"},
        {"title": "Part of the craft: rereading", "goal": "Show how rereading finds gaps."},
    ]})  # fmt: skip
    assert [s.goal for s in outline.sections] == ["", "", "Show how rereading finds gaps."]


def test_a_long_title_is_cut_at_a_word_not_mid_word():
    title = "The long history of how writers " + "revised their drafts " * 8
    section = Outline.model_validate({"sections": [{"title": title[:120]}]}).sections[0]
    assert len(section.title) <= 120 and title.startswith(section.title)
    assert section.title.split()[-1] in title.split()


@pytest.mark.parametrize(
    "feedback",
    [
        "An error occurred while editing the content.",
        "{'ValueError': 'could not convert'}",
        "Value error",
        "This information has been added to a JSON file.",
        "",
        "Good.",
        "ValueError: invalid literal for int()",
        "As an AI, I cannot review this article.",
        "openai.RateLimitError: Rate limit reached for requests on this model",
        "[7, 6, 8, 5]",
        '["accuracy", 7, "readability", 6] and the rest',
        # the embedded critic's real junk (issues 21 and 23): a template, the tool's own retry
        # message, code, sums, a fragment, a complaint about the format, a cut-off list
        "The [section_name]: The [issue/topic]…",
        "is too short to be a critique (or not words); say in two or three sentences what is wrong",
        "');}\\`; });",
        ".25 / page * (num_pages - 1) = $89.60 in faience",
        ", aveleresi mrjenin yar cidade.",
        "The JSON does not meet the specified requirements",
        ".15027 (A) A: [r] Asynchronous Execution",
    ],
)
def test_feedback_that_is_not_a_critique_is_invalid(feedback):
    with pytest.raises(ValueError):
        parse_as(Review, json.dumps({"score": 7, "feedback": feedback, "improvements": []}))


def test_critiques_may_mention_errors_in_the_article():
    review = parse_as(Review, json.dumps({
        "score": 6, "feedback": "Section 2 contains a factual error: the press dates from 1440.",
        "improvements": [{"section": "Why", "issue": "Fix the date error in the second "
                          "paragraph.", "severity": "major"}],
    }))  # fmt: skip
    assert review.score == 6


@pytest.mark.parametrize(
    "feedback",
    [
        "[S2] does not support the claim that the press dates from 1440.",
        "(Section 2) The example of KeyError handling needs a plainer explanation.",
        "Explain the JSON format before the parser section, with one short sample.",
        "The section on ValueError and TypeError should show when each is raised.",
        "[S2, S3] do not support the claim about printing costs in the second section.",
        # real reviews of articles on programming, databases or AI (rejected before: topic)
        "The traceback in the second section is cut off; show the line that raised the error.",
        "The article says the row has been written to the database before the commit, which is wrong.",
        "As an AI researcher's primer this skips the training data; name the corpus used.",
        "KeyError handling is missing from the dictionary section; show a .get() default.",
        "[Intro] The opening promises three reasons but the article gives two.",
        "[1] already proposed this method; the related-work section should say how it differs.",
        'The sentence like "The [doctor/nurse] yelled at the [doctor/nurse]" needs a source.',
        "第二节缺少具体例子，读者看不出修改草稿的好处。",
    ],
)
def test_real_critiques_of_cited_or_technical_articles_are_valid(feedback):
    review = parse_as(Review, json.dumps({"score": 6, "feedback": feedback, "improvements": []}))
    assert review.feedback == feedback


def test_outline_accepts_list_and_strings_and_rejects_placeholders():
    assert [s.title for s in Outline.model_validate(["## Why", "How"]).sections] == ["Why", "How"]
    with pytest.raises(ValueError):
        parse_as(Outline, json.dumps({"sections": [{"title": "Section title", "goal": "g"}]}))


def _ask(client, fallback=None):
    return complete_structured(
        client,
        [{"role": "user", "content": "review it"}],
        Review,
        step="review:r1",
        fallback=fallback or (lambda: heuristic_review("## A\n\ntext", ["A"])),
    )


def test_first_answer_valid_is_source_llm():
    client = FakeClient().enqueue(GOOD)
    result = _ask(client)
    assert result.source == "llm" and result.value.score == 7.5 and len(result.calls) == 1


def test_retry_shows_the_model_its_validation_error():
    client = FakeClient().enqueue('{"score": "excellent"}', GOOD)
    result = _ask(client)
    assert result.source == "llm-retry"
    assert client.steps() == ["review:r1", "review:r1:retry1"]
    retry_prompt = client.history[1]["messages"][-1]["content"]
    assert "score" in retry_prompt and "could not be used" in retry_prompt
    assert client.history[1]["messages"][-2] == {"role": "assistant", "content": '{"score": "excellent"}'}


def test_three_bad_answers_give_a_flagged_fallback():
    client = FakeClient().enqueue("no json", '{"score": "great"}', "[1, 2")
    result = _ask(client)
    assert result.source == "fallback"
    assert len(client.history) == 3 and len(result.errors) == 3
    assert result.value.score <= FALLBACK_CAP
    assert result.value.feedback.startswith("Fallback review:")


def test_fallback_outline_is_built_from_the_task_and_fits_the_limit():
    task = "Why do writers revise their drafts?"
    two = fallback_outline(task, 2).sections
    assert [s.title for s in two] == ["Writers revise their drafts: the background",
                                      "Writers revise their drafts: what follows"]  # fmt: skip
    assert len(fallback_outline(task, 9).sections) == 6
    assert len(fallback_outline(task, 1).sections) == 1
    for n in range(1, 13):  # never a placeholder, never a duplicate: it passes its own schema
        Outline.model_validate(fallback_outline(task, n).model_dump())
    long = fallback_outline("An analysis of " + "very " * 40 + "long tasks", 3).sections[0]
    assert len(long.title) <= 120


def test_example_text_copied_from_the_prompt_is_rejected():
    copied = {
        "score": 6,
        "feedback": "The second section repeats the first and the ending has no example.",
        "improvements": [{"section": "Intro", "issue": "A concrete, actionable change."}],
    }
    assert parse_as(Review, json.dumps(copied)).improvements == []  # the copied item is dropped
    with pytest.raises(ValueError, match="example"):
        parse_as(Review, json.dumps({"score": 6, "feedback": "What is wrong, in two or three "
                                     "sentences."}))  # fmt: skip


def test_one_bad_improvement_is_dropped_not_the_whole_review():
    review = parse_as(Review, json.dumps({
        "score": 6, "feedback": "The ending repeats the opening and the middle lacks an example.",
        "improvements": [
            {"section": "Why", "issue": "Add the year the press was built.", "severity": "major"},
            {"section": "Why", "issue": "ValueError: invalid literal for int()"},
            "The [section_name]: The [issue/topic]",
            {"section": "How", "issue": "[How] Cut the second list of tools to one sentence."},
        ],
    }))  # fmt: skip
    assert [i.issue for i in review.improvements] == [
        "Add the year the press was built.",
        "[How] Cut the second list of tools to one sentence.",
    ]


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("Fine.", "short"),
        ("<what is wrong, in two or three sentences>", "example"),
        ("The [section_name]: The [issue/topic] of the [section_title]", "example"),
        ("Reply again with only the JSON object, please, as asked.", "example"),
        ("Traceback (most recent call last): File x.py, line 3", "error"),
        ("This information has been added to a JSON file.", "error"),
        ('{"score": 7, "feedback": "ok then"}', "data"),
        ("score_1 = 7.5; score_2 = 6.25; mean = compute(score_1, score_2) for all", "data"),
        ('<section id="132"> <h4 class="textdivider"> the end', "data"),
        (", and then the rest of the text goes on", "fragment"),
        ("I'm sorry, but I can't help with reviewing this article.", "refusal"),
        ("The answer does not follow the requested format in the schema.", "format"),
        ("The output of the model in section 2 does not match Table 1.", None),
        ("Line 188: Eqn. 7 -> Eqn. (7), and cite [3] there.", None),
        ("The incidence matrix $B$ is wrong:\n|$e_u$| 1 | 0 |\n|$e_v$| 0 | 1 |", None),
    ],
)
def test_each_critique_rule_by_its_name(text, rule):
    from reflectcli.writing.critique import critique_problem

    found = critique_problem(text, min_words=2)
    assert (found[0] if found else None) == rule


def test_review_schema_holds_sections_to_the_outline():
    from reflectcli.writing.schemas import review_schema

    item = review_schema(["Intro", "Why"])["properties"]["improvements"]["items"]
    assert item["properties"]["section"]["enum"] == ["Intro", "Why", "whole article"]


def test_outline_schema_asks_for_two_to_n_sections():
    from reflectcli.writing.schemas import outline_schema

    assert outline_schema(4)["properties"]["sections"]["minItems"] == 2
    assert outline_schema(1)["properties"]["sections"]["minItems"] == 1


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        (",1968-07-22T22:32:59Zzzz,", False),  # seen from the embedded critic: a timestamp
        ("jonk.santos_marcusiadevillejoel.", False),  # an id, not words
        ("Add a concrete example to the opening.", True),
        ("文章缺少具体例子和数据支持", True),  # Chinese has no spaces: characters count
        ("The intro is weak; add the year 1455.", True),
        ("पहले खंड में एक ठोस उदाहरण जोड़ें", True),  # Devanagari: vowel signs are marks
        ("บทความนี้ดีแต่สั้นเกินไป", True),  # Thai: no spaces between words
        ("L'article manque d'exemples concrets", True),
    ],
)
def test_a_critique_is_made_of_words(text, ok):
    from reflectcli.writing.schemas import not_a_critique

    assert (not_a_critique(text, min_words=4) is None) is ok


def test_a_dropped_section_note_never_reads_as_a_kept_section_dropped():
    """Two sections of one title, the second's goal off the task: the second is dropped, and its
    note says the first of that title is kept (issue 35: "section dropped" for a kept section)."""
    from reflectcli.writing.schemas import Outline

    outline = Outline.model_validate(
        {"sections": [{"title": "The process", "goal": "How writers revise"},
                      {"title": "The process", "goal": "the end"}]},
        context={"task": "Why do writers revise their drafts?", "strict": True},
    )  # fmt: skip
    assert [s.title for s in outline.sections] == ["The process"]
    assert len(outline.dropped) == 1 and outline.dropped[0].endswith("the first is kept)")


def test_the_heuristic_review_cuts_sentences_with_the_one_segmenter():
    # a sentence that ends inside its quotation ('… here." He said …') is two sentences: the
    # regular expression this replaced saw one, and so no repetition
    said = 'He said the words "we print here." ' * 2
    article = f"# Printing\n\n## History\n\n{said.strip()}\n"
    review = heuristic_review(article, ["History"])
    assert any("repeated sentence" in item.issue for item in review.improvements)
    assert review.dimensions.readability < 10


def test_a_table_header_under_each_table_is_no_repeated_sentence():
    table = "| Model name here | Score on test | Paper or source |\n| --- | --- | --- |\n| A | 1 | B |\n"
    article = f"# Results\n\n## Tables\n\nThe first table follows.\n\n{table}\nThe second one too.\n\n{table}"
    review = heuristic_review(article, ["Tables"])
    assert not any("repeated sentence" in item.issue for item in review.improvements)
