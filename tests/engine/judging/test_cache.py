"""``judging/_cache.py``: content-addressed keys, lazy opening, round trip."""

from __future__ import annotations

from agenteval.judging import JudgeCache, JudgeRequest, JudgeResponse, JudgeUsage, cache_key

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
