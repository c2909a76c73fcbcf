"""``reporting/_table.py``: the terminal report puts the summary first, then each case that
did not pass with its reasons (a shared reason once) and what the agent said or called, fits
80 columns without cutting a name, and reads a recorded run one case at a time."""

from __future__ import annotations

import io
import json
from pathlib import Path

import agenteval
import pytest
from agenteval._reporting import _table, case_views, render_table
from agenteval._terminal import visible
from agenteval.runs import RecordedRun, list_runs
from agenteval.testing import make_case, make_invocation
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "travel"


def _render(source, width: int = 80, **options) -> list[str]:
    out = io.StringIO()
    render_table(source, Console(file=out, width=width, no_color=True), **options)
    return out.getvalue().splitlines()


@pytest.fixture(scope="module")
def example_result() -> agenteval.RunResult:
    config = agenteval.load_config(EXAMPLE / "test_config.json")
    return agenteval.evaluate(EXAMPLE / "travel.evalset.json", EXAMPLE / "travel.actual.json", config)


@pytest.fixture(scope="module")
def example_run(tmp_path_factory) -> RecordedRun:
    """The example's recorded run (what the agent said is in the run folder)."""
    from agenteval.cli import main
    from click.testing import CliRunner

    runs = tmp_path_factory.mktemp("runs")
    args = ["run", str(EXAMPLE), "--actual", str(EXAMPLE / "travel.actual.json"), "--runs-dir", str(runs)]
    assert CliRunner().invoke(main, args).exit_code == 1
    [run] = list_runs(runs)
    return run


def test_the_summary_comes_first_then_the_failing_case_then_the_counts_again(example_result):
    lines = _render(example_result)
    assert all(len(line) <= 80 for line in lines)
    verdict = next(i for i, line in enumerate(lines) if line.startswith("FAILED  3 cases"))
    table = next(i for i, line in enumerate(lines) if line.split()[:3] == ["criterion", "mean", "threshold"])
    failing = next(i for i, line in enumerate(lines) if "flight_then_currency" in line)
    assert verdict < table < failing
    assert lines[-1] == "FAILED  3 cases: 2 passed · 1 failed"
    assert not any("weather_paris" in line for line in lines)  # passing cases are counted, not listed
    assert "2 passing case(s) not listed (--show all lists them)" in lines


def test_a_failing_response_criterion_shows_what_the_agent_said_beside_what_was_expected(example_run):
    text = "\n".join(_render(example_run))
    assert "actual:   Sorry, I could not convert currencies right now." in text
    assert "expected: 780 euros is about 126,000 Japanese yen at today's rate." in text
    # A failing trajectory criterion shows the tool calls instead, once for the case.
    assert text.count('expected tools: convert_currency(amount=780, from="EUR", to="JPY")') == 1


def test_show_all_lists_each_passing_case_on_one_line(example_result):
    lines = _render(example_result, width=200, show="all")
    [paris] = [line for line in lines if "weather_paris" in line]
    assert paris.startswith("✓ PASSED  travel_assistant · weather_paris")
    assert "response_match_score 1" in paris


def test_a_long_criterion_name_and_case_id_wrap_whole_within_80_columns(example_result):
    long_name = "rubric_based_multi_turn_trajectory_quality_with_a_long_suffix_v1"
    criteria = [c.model_copy(update={"criterion": long_name}) for c in example_result.summary.criteria]
    summary = example_result.summary.model_copy(update={"criteria": criteria})
    lines = _render(example_result, summary=summary)
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if line.split()[:1] == ["criterion"])
    assert header.split() == ["criterion", "mean", "threshold", "passed", "failed", "other"]
    start = lines.index(header)
    end = next(i for i in range(start + 2, len(lines)) if not lines[i].strip())
    names = "".join(line.split()[0] for line in lines[start + 2 : end])
    assert names.count(long_name) == len(criteria)  # folded, never cut


def test_an_agent_error_is_shown_once_for_the_case_not_once_per_criterion(tmp_path):
    agent_file = tmp_path / "agent.py"
    agent_file.write_text(
        "def respond(message, history):\n    raise RuntimeError('the tool server is down')\n"
    )
    case = make_case([make_invocation("hi", "hello")], eval_id="broken")
    eval_file = tmp_path / "s.evalset.json"
    eval_file.write_text(agenteval.models.EvalSet(eval_set_id="s", eval_cases=[case]).model_dump_json())
    result = agenteval.evaluate_agent(
        f"{agent_file}:respond", eval_file, ["response_match_score", "tool_trajectory_avg_score"]
    )
    text = "\n".join(_render(result, width=200))
    assert text.count("the tool server is down") == 1
    assert "response_match_score, tool_trajectory_avg_score ERRORED" in text


# Words that begin with a zero-width character: rich 14.3.0 to 14.3.2 looped for ever folding
# one wider than the line (hence the floor, rich >= 14.3.3).
_ZERO_WIDTH_FIRST = ["\u0300" + "x" * 120, "\ufe0f" + "y" * 120, "a\u200b\ufe0f" + "z" * 120]


@pytest.mark.parametrize("word", _ZERO_WIDTH_FIRST)
@pytest.mark.parametrize("depth", [0, 4])
def test_a_long_word_that_begins_with_a_zero_width_character_is_folded(word, depth):
    assert _plain(word, depth, 40) == _through_rich(word, depth, 40)
    assert len(_plain(word, depth, 40).splitlines()) >= 3


@settings(max_examples=400, deadline=None)
@given(
    text=st.text(st.sampled_from("ab  \u3000…✓x-"), max_size=400),
    depth=st.integers(min_value=1, max_value=8),
    width=st.integers(min_value=10, max_value=100),
)
def test_a_line_of_one_column_characters_wraps_exactly_as_rich_wraps_it(text, depth, width):
    # words, runs of spaces, words longer than the line: the report's own wrapping against rich's
    assert _plain(text, depth, width) == _through_rich(text, depth, width)
    if _table._single_cell(text):
        console = Console(file=io.StringIO(), width=200)
        by_rich = Text(text).wrap(console, width, justify="default", overflow="fold")
        assert _table._wrap_single_cell(text, width) == [line.plain for line in by_rich]


def test_agent_output_that_begins_with_a_combining_mark_is_reported(tmp_path):
    said = _ZERO_WIDTH_FIRST[0]
    agent_file = tmp_path / "agent.py"
    agent_file.write_text(f"def respond(message, history):\n    return {said!r}\n")
    case = make_case([make_invocation("hi", "hello")], eval_id="marked")
    eval_file = tmp_path / "s.evalset.json"
    eval_file.write_text(agenteval.models.EvalSet(eval_set_id="s", eval_cases=[case]).model_dump_json())
    result = agenteval.evaluate_agent(f"{agent_file}:respond", eval_file, ["response_match_score"])
    text = "".join(_render(result, width=80))
    assert "x" * 60 in text.replace(" ", "")


# any characters, with more of those that change a line's width or a terminal's state
_TRICKY = ["\u0300", "\ufe0f", "\u200d", "\u200b", "\u4e00", "\u2764", " ", "\n", "\t", "\x1b", "a"]
_ANY_TEXT = st.text(
    st.sampled_from(_TRICKY) | st.characters(),
    max_size=200,
)


@settings(max_examples=120, deadline=None)
@given(
    expected=_ANY_TEXT,
    said=_ANY_TEXT,
    tool=_ANY_TEXT.filter(str.strip),
    width=st.integers(min_value=40, max_value=120),
)
def test_the_report_prints_any_agent_text_within_the_width(expected, said, tool, width):
    case = make_case([make_invocation("hi", expected, [("lookup", {"q": "x"})])], eval_id="any")
    actual = {"any": [make_invocation("hi", said, [(tool, {"q": said})])]}
    result = agenteval.evaluate(
        agenteval.models.EvalSet(eval_set_id="s", eval_cases=[case]),
        actual,
        ["response_match_score", "tool_trajectory_avg_score"],
    )
    for line in _render(result, width=width):
        assert cell_len(line) <= width
        assert visible(line) == line  # nothing left for a terminal to act on


def test_past_the_limit_failing_cases_are_counted_not_described(example_result, monkeypatch):
    cases = [
        c.model_copy(update={"eval_id": f"{c.eval_id}_{n}"}) for n in range(3) for c in example_result.cases()
    ]
    many = example_result.model_copy(
        update={"eval_sets": [example_result.eval_sets[0].model_copy(update={"cases": cases})]}
    )
    monkeypatch.setattr(_table, "FAILING_LIMIT", 2)
    text = "\n".join(_render(many, width=200))
    assert text.count("✗ FAILED") == 2
    assert "… and 1 more case(s) not passing, not described here" in text


def test_a_recorded_run_renders_from_its_folder_like_the_result(example_run, example_result):
    from_folder = _render(example_run)
    from_result = _render(example_result)
    assert from_folder[0] == f"agenteval · run {example_run.run_id} · 1 eval set · 3 cases"
    # The same summary and the same failing case; the folder adds the agent's own words.
    cut = from_result.index("not passing, or inconclusive")
    assert from_folder[1 : cut + 2] == from_result[1 : cut + 2]
    assert from_folder[-3:] == from_result[-3:]
    assert len(from_folder) > len(from_result)


def test_several_runs_show_the_mean_and_the_range():
    result = agenteval.evaluate_agent(
        str(EXAMPLE), f"{EXAMPLE / 'travel.evalset.json'}:weather_paris", ["response_match_score"], num_runs=2
    )
    text = "\n".join(_render(result, width=200, show="all"))
    assert "response_match_score 1 (runs 1–1)" in text


def test_each_eval_set_shows_its_intervals_over_cases_and_verdict(example_result):
    text = "\n".join(_render(example_result))
    assert "by eval set: 95% intervals over cases" in text
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith("tool_traj")}
    [row] = [r for r in rows.values() if "[" in " ".join(r)]
    stats = next(c for c in example_result.summary.eval_sets[0].criteria if c.criterion == row[0])
    assert row[-1] == stats.verdict == "FAIL"
    assert f"[{stats.pass_rate.low:.0%}," in row and f"{stats.pass_rate.high:.0%}]" in row


def test_a_set_that_does_not_pass_says_why_and_every_set_states_its_guarantee(example_result):
    text = " ".join(" ".join(_render(example_result)).split())
    assert "response_match_score FAIL: 1 of 3 cases fail the set: flight_then_currency" in text
    assert (
        "set verdict (holm): none beyond the point verdicts: every case was decided on one observation"
        in text
    )


def test_past_the_limit_only_eval_sets_not_passing_are_listed(example_result, monkeypatch):
    summary = example_result.summary
    passing = summary.eval_sets[0].model_copy(
        update={"criteria": [c.model_copy(update={"verdict": "PASS"}) for c in summary.eval_sets[0].criteria]}
    )
    many = summary.model_copy(update={"eval_sets": [summary.eval_sets[0], passing, passing]})
    monkeypatch.setattr(_table, "SETS_LISTED", 2)
    text = "\n".join(_render(example_result, summary=many))
    assert text.count("travel_assistant (3 cases)") == 1
    assert "2 more eval set(s), all PASS, not listed" in text


def test_the_judge_budget_and_the_judges_agreement_are_reported(example_result):
    from agenteval import BudgetInfo, JudgeAgreementInfo

    agreement = JudgeAgreementInfo(
        invocations=10,
        calls_used=32,
        calls_saved=18,
        voted=10,
        unanimity=0.8,
        fragile=2,
        krippendorff_alpha=0.61,
    )
    agreement = agreement.model_copy(update={"krippendorff_alpha": 0.61})
    criteria = [example_result.summary.criteria[0].model_copy(update={"agreement": agreement})]
    summary = example_result.summary.model_copy(
        update={
            "criteria": criteria,
            "budget": BudgetInfo(judge_calls_limit=40, judge_calls_used=40, judge_calls_refused=5),
        }
    )
    text = " ".join(" ".join(_render(example_result, summary=summary)).split())
    assert "judge budget: 40 of 40 call(s) used; 5 refused once it was spent" in text
    assert (
        "judge samples of tool_trajectory_avg_score: 32 call(s), 18 saved, unanimous 80%, "
        "2 decided by one vote, Krippendorff's α 0.61"
    ) in text


def test_each_judge_criterions_tokens_and_cost_are_given_within_80_columns(example_result):
    from agenteval import JudgeActivity
    from agenteval._results import JudgeCostInfo

    name = "rubric_based_final_response_quality_v1"  # the longest built-in name
    renamed = _renamed(example_result.summary, "response_match_score", name)
    activity = JudgeActivity(calls=40, cache_hits=2, input_tokens=12_000, output_tokens=345)
    cost = JudgeCostInfo(total=0.0123, by_model={"m": 0.0123}, unpriced=["other"])
    criteria = [
        c.model_copy(update={"judge": activity, "judge_cost": cost}) if c.criterion == name else c
        for c in renamed.criteria
    ]
    summary = renamed.model_copy(update={"criteria": criteria, "judge": activity, "judge_cost": cost})
    lines = _render(example_result, summary=summary)
    assert all(len(line) <= 80 for line in lines)
    text = " ".join(" ".join(lines).split())
    assert f"judge tokens by criterion: {name} 12.3k (40 call(s), 2 cached)" in text
    assert f"(by model: m 0.0123; by criterion: {name} 0.0123+?)" in text
    assert "no price for other (statistics.judge_prices): not counted" in text


def test_results_the_judge_budget_left_unjudged_say_so_and_are_counted(example_result):
    from agenteval import BudgetInfo

    budget = BudgetInfo(judge_tokens_limit=40, judge_tokens_used=45, judge_tokens_refused=9, inconclusive=2)
    text = " ".join(" ".join(_render(example_result, summary=example_result.summary.model_copy(
        update={"budget": budget}))).split())  # fmt: skip
    assert "judge token budget: 45 of 40 token(s) used; 9 call(s) refused once it was spent" in text
    assert (
        "judge budget spent: 2 criterion result(s) not judged, each INCONCLUSIVE (judge_budget); "
        "a larger budget settles them, more runs do not"
    ) in text


@pytest.mark.parametrize("show", ["failing", "all"])
@pytest.mark.parametrize("limit", [2, 200])
def test_a_one_run_run_is_listed_from_its_index_as_from_its_records(
    tmp_path, monkeypatch, interrupted_run, show, limit
):
    run = interrupted_run(tmp_path / "runs")
    monkeypatch.setattr(_table, "FAILING_LIMIT", limit)
    fast = _render(RecordedRun.open(run.folder), width=120, show=show, detailed=show == "all")
    monkeypatch.setattr(_table, "case_briefs", lambda source: None)  # every case from its records
    slow = _render(RecordedRun.open(run.folder), width=120, show=show, detailed=show == "all")
    assert fast == slow
    assert any("not reached before the interruption" in line for line in fast)


def test_only_the_cases_described_are_read(tmp_path, monkeypatch, interrupted_run):
    run = interrupted_run(tmp_path / "runs")
    monkeypatch.setattr(_table, "FAILING_LIMIT", 2)
    reads = []
    original = _table.case_view
    monkeypatch.setattr(_table, "case_view", lambda *args: reads.append(args[2]) or original(*args))
    _render(RecordedRun.open(run.folder), width=120)
    assert len(reads) == 2  # the two failing cases described, nothing else


def _renamed(summary, old: str, new: str):
    """``summary`` with criterion ``old`` called ``new`` (in the run's table and each set's)."""

    def rename(items):
        return [c.model_copy(update={"criterion": new}) if c.criterion == old else c for c in items]

    sets = [s.model_copy(update={"criteria": rename(s.criteria)}) for s in summary.eval_sets]
    return summary.model_copy(update={"criteria": rename(summary.criteria), "eval_sets": sets})


def _set_row(lines: list[str], name: str) -> list[str]:
    below = lines.index(next(line for line in lines if line.startswith("by eval set")))
    return next(line for line in lines[below:] if line.startswith(name)).split()


def test_a_criterion_never_evaluated_in_a_set_is_not_evaluated_not_fail(example_result):
    summary = example_result.summary
    [stats] = [c for c in summary.eval_sets[0].criteria if c.criterion == "tool_trajectory_avg_score"]
    never = stats.model_copy(update={"verdict": "FAIL", "verdict_counts": {"NOT_EVALUATED": 3}})
    some = stats.model_copy(update={"verdict": "FAIL", "verdict_counts": {"PASS": 2, "NOT_EVALUATED": 1}})
    for changed, expected in (
        (never, ["—", "—", "NOT_EVALUATED"]),
        (some, ["NOT_EVALUATED", "(1", "of", "3)"]),
    ):
        criteria = [changed if c.criterion == stats.criterion else c for c in summary.eval_sets[0].criteria]
        sets = [summary.eval_sets[0].model_copy(update={"criteria": criteria})]
        row = _set_row(
            _render(example_result, summary=summary.model_copy(update={"eval_sets": sets})), stats.criterion
        )
        assert "FAIL" not in row and row[-len(expected) :] == expected
    assert _set_row(_render(example_result), stats.criterion)[-1] == "FAIL"  # a failed case still FAILs


def test_an_informational_criterion_is_neither_passed_nor_failed(example_result):
    lines = _render(example_result)
    row = next(line for line in lines if line.startswith("tool_call_count_v1"))
    assert row.split() == ["tool_call_count_v1", "(informational)", "1.333", "—", "—", "—", "0"]


def test_long_criterion_names_are_never_cut_at_80_columns(example_result):
    name = "rubric_based_final_response_quality_v1"  # the longest built-in name
    lines = _render(example_result, summary=_renamed(example_result.summary, "response_match_score", name))
    assert all(len(line) <= 80 for line in lines)
    rows = [line for line in lines if line.startswith(name)]
    assert len(rows) == 2  # the run's table and the set's, each whole on one line
    assert any(line.startswith(f"  {name} FAIL: ") for line in lines)  # and why the set fails
    assert _set_row(lines, name)[-1] == "FAIL" and rows[0].split()[-5:] == ["0.7774", "0.6", "2", "1", "0"]


# -- which criteria show tool calls, and the aligned trajectory ------------------------


_TOOLISH = """
import agenteval


class Replies(agenteval.Evaluator):
    info = agenteval.EvaluatorInfo(description="replies", requires_expected=True, default_threshold=1.0)

    def evaluate(self, ctx):
        return agenteval.Score(value=0.0, reason="replies differ")
"""


def test_evidence_follows_the_declared_shows_trajectory_not_the_name(tmp_path):
    from agenteval.cli import main
    from click.testing import CliRunner

    (tmp_path / "tool_checks.py").write_text(_TOOLISH, encoding="utf-8")
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--criteria", f"{tmp_path / 'tool_checks.py'}:Replies", "--runs-dir", str(tmp_path / "runs")]
    assert CliRunner().invoke(main, args).exit_code == 1
    [run] = list_runs(tmp_path / "runs")
    text = "\n".join(_render(run, width=120))
    assert "tool_checks.py:Replies" in text  # a name the old guess took for a trajectory criterion
    assert "expected tools:" not in text
    assert "actual:   東京駅の近くでホテルが三つ見つかりました。" in text


def test_a_failing_v2_trajectory_shows_its_aligned_rows(tmp_path):
    from agenteval.cli import main
    from click.testing import CliRunner

    criteria = {
        "tool_trajectory_match_v2": {"threshold": 0.9, "match_type": "IN_ORDER", "args": {"mode": "partial"}}
    }
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"criteria": criteria}), encoding="utf-8")
    args = ["run", str(EXAMPLE / "travel.evalset.json"), "--actual", str(EXAMPLE / "travel.actual.json")]
    args += ["--config", str(config), "--runs-dir", str(tmp_path / "runs")]
    assert CliRunner().invoke(main, args).exit_code == 1
    [run] = list_runs(tmp_path / "runs")
    text = "\n".join(_render(run, width=120))
    assert "expected tools: convert_currency(amount=780" in text
    assert "turn 2: aligned by tool_trajectory_match_v2:" in text
    row = '~ convert_currency(amount="780", from="EUR", to="JPY") · 0.667 · '
    row += 'amount: expected 780, got "780" [exact]'
    assert row in text
    detailed = "\n".join(_render(run, width=120, detailed=True, show="all"))
    assert detailed.count("aligned:") == 1


def test_a_result_in_memory_knows_its_trajectory_criteria_from_the_classes_the_run_imported():
    criteria = {"tool_trajectory_match_v2": {}, "response_match_score": 0.5}
    result = agenteval.evaluate(EXAMPLE / "travel.evalset.json", EXAMPLE / "travel.actual.json", criteria)
    views = list(case_views(result))
    assert views and all(v.trajectory_criteria == {"tool_trajectory_match_v2"} for v in views)


def test_aligned_rows_are_made_safe_for_the_terminal():
    from agenteval.plugins import TrajectoryRow

    hostile = TrajectoryRow("extra", "x\x1b[2J", None, 0, None, {"q": "\x1b]0;owned\x07 hi\nthere"})
    out = io.StringIO()
    _table._print_rows("aligned:", [hostile], Console(file=out, width=120, no_color=True), 0)
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "+ extra x" in text


def _through_rich(text, depth: int, width: int) -> str:
    """What rich itself prints for ``text`` ``depth`` columns in (a recording console never
    takes the plain-line shortcut)."""
    out = io.StringIO()
    console = Console(file=out, width=width, no_color=True, color_system=None, record=True)
    _table._print_indented(console, text, depth)
    return out.getvalue()


def _plain(text, depth: int, width: int) -> str:
    out = io.StringIO()
    _table._print_indented(Console(file=out, width=width, no_color=True, color_system=None), text, depth)
    return out.getvalue()


@pytest.mark.parametrize("depth", [0, 1, 4])
def test_a_line_of_nothing_visible_is_printed_as_rich_prints_it(depth):
    # a combining mark alone has no width: rich 14.3 prints no line for it, rich 15 one
    assert _plain("\u0300", depth, 40) == _through_rich("\u0300", depth, 40)


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(max_size=140),
    styled=st.booleans(),
    depth=st.integers(min_value=0, max_value=8),
    width=st.sampled_from([40, 80, 100]),
)
def test_a_plain_console_gets_exactly_what_rich_prints(text, styled, depth, width):
    line = Text(text, style="dim").append(" x", style="bold") if styled else text
    assert _plain(line, depth, width) == _through_rich(line, depth, width)


def test_the_report_file_reads_as_rich_renders_it(example_run):
    def rendered(record: bool) -> str:
        out = io.StringIO()
        console = Console(file=out, width=100, no_color=True, color_system=None, record=record)
        render_table(example_run, console, show="all")
        return out.getvalue()

    assert rendered(record=False) == rendered(record=True)


def test_a_file_console_writes_what_a_console_of_that_width_writes(example_run, monkeypatch):
    def rendered(make) -> str:
        out = io.StringIO()
        render_table(example_run, make(out), show="all", detailed=True)
        return out.getvalue()

    monkeypatch.setenv("COLUMNS", "37")  # what a console of no fixed size would follow
    monkeypatch.setenv("LINES", "3")
    fixed = rendered(lambda out: _table.file_console(out, 100, color_system=None))
    assert fixed == rendered(lambda out: Console(file=out, width=100, no_color=True, color_system=None))
    assert max(map(len, fixed.splitlines())) == 100


def test_the_report_looks_for_the_calibration_cards_where_calibrate_writes_them():
    from agenteval.calibration import CALIBRATION_FILE

    assert _table.CALIBRATION == CALIBRATION_FILE
