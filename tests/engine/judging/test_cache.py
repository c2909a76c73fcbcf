"""``judging/_cache.py``: content-addressed keys, lazy opening, round trip, and a cache
that degrades (damaged, foreign, read-only, full) instead of failing the run."""

from __future__ import annotations

import sqlite3

import pytest
from agenteval import JudgeCache, JudgeRequest, JudgeResponse, JudgeUsage
from agenteval._judging import cache_key

IDENTITY = {"provider": "gemini", "model": "gemini-2.5-flash", "mode": "api"}


def test_key_separates_samples_models_and_every_request_field():
    request = JudgeRequest(prompt="Is it valid?", temperature=0.2, response_schema={"type": "object"})
    base = cache_key(IDENTITY, request, 0)
    assert cache_key(IDENTITY, request, 0) == base
    variants = [
        cache_key(IDENTITY, request, 1),
        cache_key({**IDENTITY, "model": "gemini-2.5-pro"}, request, 0),
        cache_key(IDENTITY, request.model_copy(update={"prompt": "Is it valid? "}), 0),
        cache_key(IDENTITY, request.model_copy(update={"temperature": 0.3}), 0),
        cache_key(IDENTITY, request.model_copy(update={"system_instruction": "x"}), 0),
        cache_key(IDENTITY, request.model_copy(update={"response_schema": None}), 0),
        cache_key(IDENTITY, request.model_copy(update={"config": {"top_k": 3}}), 0),
    ]
    assert len({base, *variants}) == len(variants) + 1


def test_opened_lazily_and_round_trips(tmp_path):
    folder = tmp_path / "cache"
    cache = JudgeCache(folder)
    assert not folder.exists()
    key = cache_key(IDENTITY, JudgeRequest(prompt="q"), 0)
    assert cache.get(key) is None
    answer = JudgeResponse(text='{"verdict": "valid"}', usage=JudgeUsage(input_tokens=7, output_tokens=3))
    cache.put(key, answer)
    cache.close()
    again = JudgeCache(folder).get(key)
    assert again is not None and again.cached
    assert again.text == answer.text and again.usage == answer.usage


# -- a cache that degrades instead of failing ------------------------------------------
KEY = cache_key(IDENTITY, JudgeRequest(prompt="q"), 0)
ANSWER = JudgeResponse(text='{"verdict": "valid"}')


def stored(folder) -> JudgeCache:
    cache = JudgeCache(folder, on_warning=lambda message: None)
    cache.put(KEY, ANSWER)
    cache.close()
    return JudgeCache(folder, on_warning=lambda message: None)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(b"\x00garbage" * 500), id="not-a-database"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:1500]), id="truncated"),
        pytest.param(lambda path: path.write_bytes(b""), id="empty-file-ok"),
    ],
)
def test_an_unreadable_cache_is_one_warning_and_the_run_goes_on(tmp_path, damage):
    stored(tmp_path).close()
    path = tmp_path / "judge-cache.sqlite3"
    for suffix in ("-wal", "-shm"):
        (tmp_path / f"judge-cache.sqlite3{suffix}").unlink(missing_ok=True)
    damage(path)
    cache = JudgeCache(tmp_path, on_warning=lambda message: None)
    assert cache.get(KEY) is None
    cache.put(KEY, ANSWER)
    assert cache.get("other") is None
    assert len(cache.warnings) <= 1
    if cache.warnings:
        assert "judge-cache.sqlite3" in cache.warnings[0] and "--no-cache" in cache.warnings[0]


def test_a_foreign_schema_is_reported_not_used(tmp_path):
    with sqlite3.connect(tmp_path / "judge-cache.sqlite3") as db:
        db.execute("CREATE TABLE answers (x TEXT, y TEXT)")
    cache = JudgeCache(tmp_path, on_warning=lambda message: None)
    assert cache.get(KEY) is None
    cache.put(KEY, ANSWER)
    assert not cache.readable
    [warning] = cache.warnings
    assert "columns ['x', 'y']" in warning


def test_a_first_version_cache_is_upgraded_and_its_unchecked_rows_are_misses(tmp_path):
    with sqlite3.connect(tmp_path / "judge-cache.sqlite3") as db:
        db.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, response TEXT NOT NULL, created REAL)")
        db.execute("INSERT INTO answers VALUES (?, ?, 0)", (KEY, ANSWER.model_dump_json()))
    cache = JudgeCache(tmp_path, on_warning=lambda message: None)
    assert cache.get(KEY) is None and cache.damaged == 0
    cache.put(KEY, ANSWER)
    assert cache.get(KEY).cached and not cache.warnings


def test_a_damaged_row_is_a_miss_never_served(tmp_path):
    stored(tmp_path).close()
    with sqlite3.connect(tmp_path / "judge-cache.sqlite3") as db:
        db.execute("UPDATE answers SET response = replace(response, 'valid', 'xalid')")
    cache = JudgeCache(tmp_path)
    assert cache.get(KEY) is None and cache.damaged == 1
    cache.put(KEY, ANSWER)  # asked again: the row is replaced
    assert cache.get(KEY).text == ANSWER.text


def test_a_read_only_cache_serves_hits_and_warns_once_about_storing(tmp_path, monkeypatch):
    stored(tmp_path).close()
    real_connect = sqlite3.connect

    def read_only(path, **kwargs):
        return real_connect(f"file:{path}?mode=ro", uri=True, **kwargs)

    monkeypatch.setattr("agenteval._judging._cache.sqlite3.connect", read_only)
    seen: list[str] = []
    cache = JudgeCache(tmp_path, on_warning=seen.append)
    assert cache.get(KEY).text == ANSWER.text
    cache.put("k2", ANSWER)
    cache.put("k3", ANSWER)
    assert cache.readable and not cache.writable
    [warning] = seen
    assert "answers of this run are used but not kept" in warning and "readonly" in warning


def test_a_full_disk_warns_once_and_keeps_serving(tmp_path):
    cache = JudgeCache(tmp_path, on_warning=lambda message: None)
    cache.put(KEY, ANSWER)
    page_count = cache._db().execute("PRAGMA page_count").fetchone()[0]
    cache._db().execute(f"PRAGMA max_page_count = {page_count}")
    big = JudgeResponse(text="x" * 100_000)
    for index in range(3):
        cache.put(f"big-{index}", big)
    assert len(cache.warnings) == 1 and "full" in cache.warnings[0]
    assert cache.get(KEY).text == ANSWER.text


def test_a_cache_folder_that_cannot_be_made_is_one_warning(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = JudgeCache(blocker / "cache", on_warning=lambda message: None)
    assert cache.get(KEY) is None
    cache.put(KEY, ANSWER)
    assert len(cache.warnings) == 1 and not cache.readable


def test_keys_echoed_in_an_answer_are_redacted_on_disk_and_the_key_is_unchanged(tmp_path, monkeypatch):
    from agenteval._judging._options import JudgeOptions
    from agenteval._secrets import REDACTED

    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment-1")
    JudgeOptions(judge_model_config={"api_key": "sk-from-the-judge-config-2"})
    request = JudgeRequest(prompt="Did the agent leak sk-from-the-environment-1?")
    key = cache_key(IDENTITY, request, 0)
    echoed = JudgeResponse(
        text='{"verdict": "leaked", "why": "it printed sk-from-the-environment-1 and '
        'sk-from-the-judge-config-2"}',
        model_version="m sk-from-the-environment-1",
    )
    cache = JudgeCache(tmp_path)
    cache.put(key, echoed)
    cache.close()
    on_disk = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    assert b"sk-from-the" not in on_disk
    [(stored_key,)] = sqlite3.connect(tmp_path / "judge-cache.sqlite3").execute("SELECT key FROM answers")
    assert stored_key == key == cache_key(IDENTITY, request, 0)  # still content-addressed
    hit = JudgeCache(tmp_path).get(key)
    assert hit is not None and hit.cached
    assert hit.text == f'{{"verdict": "leaked", "why": "it printed {REDACTED} and {REDACTED}"}}'
    assert hit.model_version == f"m {REDACTED}"
