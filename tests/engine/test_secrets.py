"""``agenteval._secrets``: credential values scrubbed from text; the ``.env`` endpoint check."""

from __future__ import annotations

from agenteval._secrets import (
    REDACTED,
    Scrubber,
    endpoint_override_warnings,
    register_secret,
    scrub_secrets,
    scrubbed_bytes,
    secret_values,
)
from hypothesis import given
from hypothesis import strategies as st

ENV = {
    "OPENAI_API_KEY": "sk-abcdef123456",
    "GITHUB_TOKEN": "ghp_token_value_99",
    "DB_PASSWORD": "hunter2hunter2",
    "SHORT_KEY": "abc",  # too short to be worth redacting
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/me/adc.json",  # a path, not a secret
    "HOME": "/home/me",
}


def test_values_of_credential_variables_are_scrubbed():
    text = "401: key sk-abcdef123456 is invalid; token ghp_token_value_99; pw hunter2hunter2 at /home/me"
    scrubbed = scrub_secrets(text, ENV)
    assert scrubbed == f"401: key {REDACTED} is invalid; token {REDACTED}; pw {REDACTED} at /home/me"


def test_short_values_paths_and_non_strings_are_left_alone():
    assert scrub_secrets("abc /home/me/adc.json", ENV) == "abc /home/me/adc.json"
    assert scrub_secrets(None, ENV) is None  # type: ignore[arg-type]
    assert "abc" not in secret_values(ENV)


def test_a_registered_secret_is_scrubbed_too():
    register_secret("registered-secret-42")
    register_secret(None)
    assert scrub_secrets("got registered-secret-42 back", {}) == f"got {REDACTED} back"


def test_a_longer_secret_containing_a_shorter_one_is_replaced_whole():
    env = {"A_API_KEY": "secret-1", "B_API_KEY": "secret-1-and-more"}
    assert scrub_secrets("x secret-1-and-more y", env) == f"x {REDACTED} y"


@given(before=st.text(max_size=40), after=st.text(max_size=40), times=st.integers(1, 3))
def test_a_secret_never_survives_scrubbing(before, after, times):
    env = {"MY_API_KEY": "s3cr3t-v@lue"}
    text = (before + "s3cr3t-v@lue" + after) * times
    assert "s3cr3t-v@lue" not in scrub_secrets(text, env)


def test_a_scrubber_reads_the_environment_once_and_still_sees_secrets_registered_later():
    environ = {"MY_API_KEY": "env-secret-value"}
    scrub = Scrubber(environ)
    environ["OTHER_TOKEN"] = "added-after-the-scrubber"  # the run's environment is settled
    assert scrub("a env-secret-value b added-after-the-scrubber") == (
        f"a {REDACTED} b added-after-the-scrubber"
    )
    register_secret("registered-after-the-scrubber")
    assert scrub("x registered-after-the-scrubber y") == f"x {REDACTED} y"
    assert scrub(None) is None  # type: ignore[arg-type]


@given(text=st.text(max_size=60), secrets=st.lists(st.text(min_size=6, max_size=12), max_size=3))
def test_a_scrubber_and_scrub_secrets_agree(text, secrets):
    environ = {f"S{i}_API_KEY": value for i, value in enumerate(secrets)}
    planted = "".join(secrets) + text
    assert Scrubber(environ)(planted) == scrub_secrets(planted, environ)


class _CountedPattern:
    """A compiled pattern that counts its scans."""

    def __init__(self, pattern):
        self.pattern = pattern
        self.scans = 0

    def sub(self, replacement, text):
        self.scans += 1
        return self.pattern.sub(replacement, text)


def test_a_scrubber_scans_only_texts_that_hold_a_credential():
    # Credentials that start differently give the pattern no literal prefix: it would try
    # every position of every record. A text with none of them is handed back unscanned.
    scrub = Scrubber({"GOOGLE_API_KEY": "AIza-first-value", "OPENAI_API_KEY": "sk-second-value"})
    assert scrub("warm up") == "warm up"
    counted = _CountedPattern(scrub._compiled)
    scrub._compiled = counted
    clean = '{"reply": "nothing secret here"}' * 100
    assert scrub(clean) == clean
    assert counted.scans == 0
    assert scrub("a sk-second-value b AIza-first-value") == f"a {REDACTED} b {REDACTED}"
    assert counted.scans == 1


def test_past_a_few_dozen_credentials_every_text_goes_through_the_pattern():
    environ = {f"K{i}_API_KEY": f"value-number-{i:03d}" for i in range(40)}
    scrub = Scrubber(environ)
    assert scrub("warm up") == "warm up"
    counted = _CountedPattern(scrub._compiled)
    scrub._compiled = counted
    assert scrub("clean text") == "clean text"
    assert scrub("x value-number-039 y") == f"x {REDACTED} y"
    assert counted.scans == 2


@given(
    pieces=st.lists(
        st.one_of(st.text(max_size=12), st.sampled_from(["AIzaSecret1", "sk-secret-22", "tok"])), max_size=8
    ),
    secrets=st.lists(
        st.sampled_from(["AIzaSecret1", "sk-secret-22", "secret-2", "  padded-secret  "]), max_size=4
    ),
)
def test_a_scrubber_gives_what_one_scan_by_the_pattern_gives(pieces, secrets):
    environ = {f"S{i}_API_KEY": value for i, value in enumerate(secrets)}
    text = "".join(pieces)
    assert Scrubber(environ)(text) == scrub_secrets(text, environ)


def test_a_dotenv_that_moves_an_endpoint_while_the_key_comes_from_elsewhere_warns(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("OPENAI_BASE_URL=http://evil.example/v1\nGOOGLE_GEMINI_BASE_URL=http://g.example\n")
    environ = {"OPENAI_API_KEY": "sk-from-my-shell", "GEMINI_API_KEY": "from-shell-too"}
    warnings = endpoint_override_warnings(env_file, environ)
    assert len(warnings) == 2
    assert "OPENAI_BASE_URL='http://evil.example/v1'" in warnings[0] and "OPENAI_API_KEY" in warnings[0]
    assert "GEMINI_API_KEY" in warnings[1] and "GOOGLE_API_KEY" not in warnings[1]
    assert all("sk-from-my-shell" not in w for w in warnings)


def test_no_warning_when_the_file_sets_the_key_too_or_the_environment_wins(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("OPENAI_BASE_URL=http://local/v1\nOPENAI_API_KEY=local-key-123\n")
    assert endpoint_override_warnings(env_file, {"OPENAI_API_KEY": "sk-shell"}) == []
    env_file.write_text("OPENAI_BASE_URL=http://local/v1\n")
    shell = {"OPENAI_API_KEY": "sk-shell", "OPENAI_BASE_URL": "https://api.openai.com/v1"}
    assert endpoint_override_warnings(env_file, shell) == []  # the environment's endpoint wins
    assert endpoint_override_warnings(env_file, {}) == []  # no key anywhere: nothing to leak
    assert endpoint_override_warnings(tmp_path / "missing.env", shell) == []


# -- redact_secrets: what describes a run (the manifest) ---------------------------------
def test_credentials_in_urls_and_headers_are_hidden_and_remembered():
    from agenteval._secrets import HIDDEN, redact_secrets

    text = "http://u:pass-word-9@127.0.0.1:8/v1?model=m&api_key=sk-url-key-1&x=1 Bearer tok-en-value-2"
    redacted = redact_secrets(text)
    assert redacted == f"http://u:{HIDDEN}@127.0.0.1:8/v1?model=m&api_key={HIDDEN}&x=1 Bearer {HIDDEN}"
    # Each hidden value is scrubbed from any other text from now on (an echo of it).
    assert scrub_secrets("echo sk-url-key-1 tok-en-value-2 pass-word-9", {}) == (
        f"echo {REDACTED} {REDACTED} {REDACTED}"
    )


def test_credential_named_settings_are_hidden_but_counts_and_other_text_are_kept():
    from agenteval._secrets import HIDDEN, redact_secrets

    config = {
        "judge_model_config": {"api_key": "sk-config-key-3", "max_tokens": 200, "top_k": 3},
        "headers": {"Authorization": "Bearer x", "Accept": "json"},
        "list": ["monkey=banana", "a token=t0k3n-in-text"],
        "access_token": "",
    }
    assert redact_secrets(config) == {
        "judge_model_config": {"api_key": HIDDEN, "max_tokens": 200, "top_k": 3},
        "headers": {"Authorization": HIDDEN, "Accept": "json"},
        "list": ["monkey=banana", f"a token={HIDDEN}"],
        "access_token": "",
    }


def test_a_model_comes_back_redacted_as_the_same_model():
    from agenteval._secrets import HIDDEN, redact_secrets
    from agenteval.runs import Manifest

    manifest = Manifest(
        run_id="r", started_at="t", engine_version="0", agent={"target": "http://h/v1?key=abcdef123"}
    )
    redacted = redact_secrets(manifest)
    assert isinstance(redacted, Manifest) and redacted.agent == {"target": f"http://h/v1?key={HIDDEN}"}
    assert manifest.agent == {"target": "http://h/v1?key=abcdef123"}  # the original is untouched


def test_a_judge_model_config_key_is_scrubbed_once_the_options_are_read():
    from agenteval._judging._options import JudgeOptions

    JudgeOptions(judge_model_config={"api_key": "sk-judge-config-77", "temperature": 0})
    assert scrub_secrets("the judge said sk-judge-config-77", {}) == f"the judge said {REDACTED}"


def test_a_command_line_keeps_its_shape_and_loses_its_credentials():
    from agenteval._secrets import redact_argv

    argv = [
        "agenteval",
        "run",
        "evals/",
        "--agent",
        "https://user:hunter2pass@agent.example/v1?model=m&api_key=sk-abcdef123456",
        "--api-key",
        "sk-flagvalue99",
        "--token=tok-inline-777",
        "--judge-concurrency",
        "4",
        "Authorization: Bearer abcdef123456789",
    ]
    out = redact_argv(argv)
    assert out[:4] == argv[:4] and out[8:10] == ["--judge-concurrency", "4"]
    assert out[4] == "https://user:***@agent.example/v1?model=m&api_key=***"
    assert out[5:8] == ["--api-key", "***", "--token=***"]
    assert out[10] == "Authorization: Bearer ***"
    joined = " ".join(out)
    for secret in ("hunter2pass", "sk-abcdef123456", "sk-flagvalue99", "tok-inline-777", "abcdef123456789"):
        assert secret not in joined


def test_scrubbed_bytes_are_the_same_object_when_nothing_is_hidden():
    scrub = Scrubber(ENV)
    clean = '{"text":"nothing here","odd":"\ud800"}'.encode("utf-8", "surrogatepass")
    assert scrubbed_bytes(clean, scrub) is clean
    leaked = '{"text":"key sk-abcdef123456","odd":"\ud800"}'.encode("utf-8", "surrogatepass")
    assert scrubbed_bytes(leaked, scrub) == f'{{"text":"key {REDACTED}","odd":"\ud800"}}'.encode(
        "utf-8", "surrogatepass"
    )
