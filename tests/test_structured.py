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
    text = 'Note {this} first. {"score": 6, "feedback": "a } brace", "improvements": []}'
    review = parse_as(Review, text)
    assert review.score == 6 and review.feedback == "a } brace"


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
    review = Review.model_validate({"score": "seven", "dimensions": {"accuracy": 9}})
    assert review.score == 7
    assert review.dimensions.accuracy == 9
    assert review.dimensions.structure == 7 and review.dimensions.readability == 7


def test_improvements_accept_strings_and_severity_words():
    review = Review.model_validate(
        {"score": 5, "improvements": ["Add data", {"text": "Cut intro", "severity": "HIGH"}]}
    )
    assert [i.issue for i in review.improvements] == ["Add data", "Cut intro"]
    assert [i.severity for i in review.improvements] == ["minor", "major"]


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
    assert result.value.feedback.startswith("[fallback]")


def test_fallback_outline_fits_the_limit():
    assert len(fallback_outline(2).sections) == 2
    assert fallback_outline(2).sections[-1].title == "Conclusion"
    assert len(fallback_outline(9).sections) == 5
    assert len(fallback_outline(1).sections) == 1


def test_example_text_copied_from_the_prompt_is_rejected():
    copied = {
        "score": 6,
        "feedback": "Too vague.",
        "improvements": [{"section": "Intro", "issue": "A concrete, actionable change."}],
    }
    with pytest.raises(ValueError, match="example"):
        parse_as(Review, json.dumps(copied))
    with pytest.raises(ValueError, match="example"):
        parse_as(Review, json.dumps({"score": 6, "feedback": "What is wrong, in two or three "
                                     "sentences."}))  # fmt: skip


def test_review_schema_holds_sections_to_the_outline():
    from reflectcli.writing.schemas import review_schema

    item = review_schema(["Intro", "Why"])["properties"]["improvements"]["items"]
    assert item["properties"]["section"]["enum"] == ["Intro", "Why", "whole article"]


def test_outline_schema_asks_for_two_to_n_sections():
    from reflectcli.writing.schemas import outline_schema

    assert outline_schema(4)["properties"]["sections"]["minItems"] == 2
    assert outline_schema(1)["properties"]["sections"]["minItems"] == 1
