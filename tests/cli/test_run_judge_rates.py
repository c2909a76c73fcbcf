"""``agenteval run --judge-rpm`` / ``statistics.judge_tpm`` under the local executor, against a
loopback fake judge that notes when each request arrives and the tokens it reports: over any
second the judge never sees more than the rate allows (one request, or one second of
tokens, of burst; a little more for the calls' estimates before they settle)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from agenteval.cli import main

from tests.fixtures.one_turn import write_one_turn_eval_set

VALID = json.dumps({"reasoning": "same meaning", "verdict": "valid"})


class Arrivals:
    """The fake judge's responder: answers valid, reporting ``tokens`` a call, and notes when."""

    def __init__(self, servers, tokens: int) -> None:
        self.reply = servers.Reply(text=VALID, input_tokens=tokens - tokens // 10, output_tokens=tokens // 10)
        self.times: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, request):
        with self._lock:
            self.times.append(time.monotonic())
        return self.reply

    def most_in_a_second(self) -> int:
        return max(sum(1 for t in self.times if start <= t < start + 1.0) for start in self.times)


def _run(runner, project: Path, statistics: dict, *flags: str):
    write_one_turn_eval_set(project / "shop.evalset.json", 8, lambda i: f"answer {i}")
    criterion = {"threshold": 0.5, "judge_model_options": {"judge_model": "openai:judge", "num_samples": 3}}
    config = {"criteria": {"final_response_match_v2": criterion}, "statistics": statistics}
    (project / "config.json").write_text(json.dumps(config))
    shop = str(project / "shop.evalset.json")
    return runner.invoke(
        main,
        ["run", shop, "--actual", shop, "--config", str(project / "config.json"), "--no-cache", "-q"]
        + ["--judge-concurrency", "8", "--runs-dir", str(project / "runs"), *flags],
    )


def _servers(fake_openai):
    import sys

    return sys.modules[type(fake_openai).__module__]


def test_judge_rpm_spaces_the_calls_evenly(runner, tmp_path, openai_env, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    arrivals = Arrivals(_servers(openai_env), tokens=15)
    openai_env.responder = arrivals
    openai_env.latency = 0.05
    result = _run(runner, tmp_path, {}, "--judge-rpm", "600")  # 10 a second
    assert result.exit_code == 0, result.output
    calls = len(arrivals.times)
    assert calls >= 16
    # 10 a second, the bucket's one of burst, and one more for the first call, which the
    # provider sends only after importing its SDK (the loop stalls, the next call's turn comes)
    assert arrivals.most_in_a_second() <= 12, [round(t - arrivals.times[0], 3) for t in arrivals.times]
    assert arrivals.times[-1] - arrivals.times[0] >= (calls - 1) * 0.1 * 0.9


def test_statistics_judge_tpm_holds_the_tokens_the_judge_reports(runner, tmp_path, openai_env, monkeypatch):
    monkeypatch.setenv("AGENTEVAL_JUDGE_BACKOFF_SECONDS", "0.01")
    arrivals = Arrivals(_servers(openai_env), tokens=1000)
    openai_env.responder = arrivals
    openai_env.latency = 0.05
    result = _run(runner, tmp_path, {"judge_tpm": 240_000})  # 4,000 a second, at most 4,000 at once
    assert result.exit_code == 0, result.output
    calls = len(arrivals.times)
    assert calls >= 16
    # a second of tokens (4 calls) of burst, 4 calls a second, and the calls out before their
    # usage settles (their estimates are below 1,000): never near the 8 x 20 an unpaced run sends
    assert arrivals.most_in_a_second() <= 4 + 4 + 4
    assert arrivals.times[-1] - arrivals.times[0] >= (calls * 1000 - 4000) / 4000 * 0.8
