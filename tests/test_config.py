import re

import pytest

from reflectcli.config import load_settings, resume_settings
from reflectcli.errors import ConfigError


def test_defaults():
    s = load_settings(flags={"model": "openai/x"})
    assert (s.threshold, s.max_rounds, s.max_sections, s.section_tokens) == (8, 3, 4, 1024)
    assert (s.temperature, s.profile) == (0.7, None)
    assert s.critic_name == "openai/x" and s.critic == "llm" and s.language is None and s.runs_dir == "runs"


def test_the_embedded_model_gets_the_tiny_profile_under_what_the_user_set(tmp_path, monkeypatch):
    s = load_settings()
    assert (s.model, s.profile) == ("local/smollm2", "tiny")
    assert (s.max_sections, s.max_rounds, s.temperature, s.section_tokens) == (3, 2, 0.2, 320)
    (tmp_path / "config.toml").write_text("max_sections = 5\n")
    monkeypatch.setenv("REFLECTCLI_TEMPERATURE", "0.9")
    s = load_settings(flags={"max_rounds": 4})
    assert (s.max_sections, s.max_rounds, s.temperature, s.section_tokens) == (5, 4, 0.9, 320)
    saved = s.run_params()  # a resumed run keeps what it ran with
    assert resume_settings(saved).model_dump() == s.model_dump()


def test_precedence_file_env_flag(tmp_path, monkeypatch):
    (tmp_path / "config.toml").write_text('threshold = 6\nmax_rounds = 5\nmodel = "a/b"\n')
    monkeypatch.setenv("REFLECTCLI_MAX_ROUNDS", "7")
    s = load_settings(flags={"model": "c/d", "threshold": None})
    assert (s.threshold, s.max_rounds, s.model) == (6, 7, "c/d")


def test_user_config_dir_used_when_no_local_file(tmp_path, monkeypatch):
    user = tmp_path / "user-config"
    user.mkdir()
    (user / "config.toml").write_text("max_sections = 2\n")
    assert load_settings().max_sections == 2


def test_explicit_config_file(tmp_path):
    path = tmp_path / "other.toml"
    path.write_text('critic_model = "x/y"\n')
    assert load_settings(path).critic_name == "x/y"


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ("thresold = 7\n", "unknown config key 'thresold'"),
        ("threshold = 12\n", "config key 'threshold': Input should be less than or equal to 10"),
        ("max_rounds = 'many'\n", "config key 'max_rounds'"),
        ("max_sections = 0\n", "config key 'max_sections'"),
        ("threshold = \n", "invalid TOML"),
        ("[policy]\nx = 1\n", "unknown config key 'policy.x'"),
    ],
)
def test_config_errors_name_the_key(tmp_path, toml, expected):
    (tmp_path / "config.toml").write_text(toml)
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert expected in err.value.message
    assert err.value.exit_code == 2
    assert "\n" not in err.value.message


def test_toml_error_names_the_line(tmp_path):
    (tmp_path / "config.toml").write_text("model = 'a'\n\nthreshold = = 3\n")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "line 3" in err.value.message


def test_env_error_names_the_variable(monkeypatch):
    monkeypatch.setenv("REFLECTCLI_THRESHOLD", "high")
    with pytest.raises(ConfigError, match="REFLECTCLI_THRESHOLD: config key 'threshold'"):
        load_settings()


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_settings(tmp_path / "nope.toml")


def test_resume_settings_keep_saved_values_and_take_flags(tmp_path):
    (tmp_path / "config.toml").write_text("threshold = 2\n")  # ignored on resume
    saved = load_settings(flags={"threshold": 9}).run_params()
    s = resume_settings(saved, {"model": "openai/x", "timeout": None})
    assert (s.threshold, s.model) == (9, "openai/x")


LANGUAGE_CASES = [
    ("fr", "French (français)"),
    ("français", "French (français)"),
    ("zh-CN", "Simplified Chinese (简体中文)"),
    ("Klingon", "Klingon"),
    ("tlh", "Klingon"),
    ("esperanto", "Esperanto"),
    ("Swiss German", "Swiss German"),
]


@pytest.mark.parametrize(("value", "expected"), LANGUAGE_CASES)
def test_a_language_is_any_name_or_code_cldr_knows(value, expected):
    from reflectcli.writing.languages import resolve_language

    assert resolve_language(value) == expected


@pytest.mark.parametrize("value", ["klingonese", "Frenhc", "Quenya", "xx"])
def test_a_language_no_one_speaks_is_refused(value):
    from reflectcli.writing.languages import resolve_language

    with pytest.raises(ValueError, match="unknown language"):
        resolve_language(value)


def test_who_reviews_is_one_rule_for_the_index_and_the_eval_report():
    """`checklist` where the checklist reviews (the embedded model's default), else the critic
    model, else the writer: the run index and `eval report` both read it (reviewer_of)."""
    from reflectcli.config import Settings, reviewer_of

    assert Settings(model="local/smollm2").reviewer == "checklist"
    assert Settings(model="openai/a").reviewer == "openai/a"
    assert Settings(model="openai/a", critic_model="openai/b").reviewer == "openai/b"
    assert reviewer_of(Settings(model="local/smollm2").run_params()) == "checklist"
    assert reviewer_of({"model": "openai/a"}) == "openai/a"  # an eval saved before the key


@pytest.mark.parametrize("key, value", [("api_base", "not-a-url"), ("api_base", "ftp://host/v1"),
                                        ("critic_api_base", "localhost:8080")])  # fmt: skip
def test_a_server_url_that_is_no_url_stops_before_any_call(key, value):
    with pytest.raises(
        ConfigError, match=rf"config key '{key}': '{re.escape(value)}' is not an http\(s\) URL"
    ):
        load_settings(None, flags={key: value})
    assert load_settings(None, flags={"critic_api_base": "none"}).critic_api_base == "none"
