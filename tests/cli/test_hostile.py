"""Hostile names and text never reach the terminal raw: eval ids, eval-set ids, file names,
tool names and agent replies carrying escape sequences go through the table, the error
messages and the JSON document, and what the terminal receives shows them instead."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agenteval._terminal import visible
from agenteval.cli import main
from hypothesis import given
from hypothesis import strategies as st

#: What a hostile string may try: clear the screen, set the window title, hide a link
#: (OSC 8), a one-byte C1 CSI, rewrite the line with a bare CR, reorder it (bidi).
HOSTILE = {
    "clear": "\x1b[2J\x1b[H",
    "title": "\x1b]0;owned\x07",
    "link": "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\",
    "c1": "\x9b31mred",
    "cr": "safe\rEVIL",
    "bidi": "abc\u202edcba",
}
#: Characters that must never reach the terminal raw.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _case(eval_id: str, tool: str, reply: str) -> dict:
    return {
        "eval_id": eval_id,
        "conversation": [
            {
                "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                "final_response": {"role": "model", "parts": [{"text": reply}]},
                "intermediate_data": {"tool_uses": [{"name": tool, "args": {"q": reply}}]},
            }
        ],
    }


#: Ids cannot hold a control character (refused at load, see below); this is what an id may hold.
HOSTILE_ID = HOSTILE["bidi"]


@pytest.fixture
def hostile_files(tmp_path: Path) -> tuple[Path, Path]:
    """An eval set whose file name, set id, case ids, tool names and texts are hostile,
    and recorded invocations that fail every case (so reasons quote the agent's text)."""
    expected = {
        "eval_set_id": "set" + HOSTILE_ID,
        "eval_cases": [_case(name + HOSTILE_ID, "tool" + value, "ok") for name, value in HOSTILE.items()],
    }
    actual = {
        "eval_set_id": "set" + HOSTILE_ID,
        "eval_cases": [
            _case(name + HOSTILE_ID, "other" + value, "reply" + value) for name, value in HOSTILE.items()
        ],
    }
    eval_file = tmp_path / f"x{HOSTILE['clear']}{HOSTILE['cr']}.evalset.json"
    eval_file.write_text(json.dumps(expected), encoding="utf-8")
    actual_file = tmp_path / "actual.json"
    actual_file.write_text(json.dumps(actual), encoding="utf-8")
    return eval_file, actual_file


def _assert_shown_not_sent(output: str) -> None:
    found = RAW.search(output)
    assert found is None, (
        f"raw {found.group()!r} at {found.start()}: {output[max(0, found.start() - 60) :][:120]!r}"
    )


def test_the_table_shows_hostile_text_without_sending_it(runner, hostile_files):
    eval_file, actual_file = hostile_files
    result = runner.invoke(
        main, ["run", str(eval_file), "--actual", str(actual_file), "--print-detailed-results"]
    )
    assert result.exit_code == 1, result.output
    _assert_shown_not_sent(result.output)
    flat = "".join(result.output.split())
    for value in HOSTILE.values():
        assert "".join(visible(value).split()) in flat, visible(value)
    assert "\\x1b[2J" in flat and "safe\\rEVIL" in flat and "\\u202e" in flat


def test_errors_show_hostile_names_without_sending_them(runner, hostile_files, tmp_path):
    eval_file, actual_file = hostile_files
    unknown = runner.invoke(main, ["run", f"{eval_file}:nope{HOSTILE['link']}", "--actual", str(actual_file)])
    assert unknown.exit_code == 2
    assert unknown.output.startswith("error: ")
    _assert_shown_not_sent(unknown.output)
    assert "\\x1b]8;;http://evil.example" in unknown.output

    broken = tmp_path / f"broken{HOSTILE['title']}{HOSTILE['c1']}.evalset.json"
    broken.write_text('{"eval_set_id": "s\x1b[2J", "eval_cases": [}', encoding="utf-8")
    result = runner.invoke(main, ["run", str(broken), "--actual", str(actual_file)])
    assert result.exit_code == 2 and "invalid JSON" in result.output
    _assert_shown_not_sent(result.output)
    assert "Traceback" not in result.output


def test_the_json_document_escapes_control_characters_and_keeps_the_ids(runner, hostile_files):
    eval_file, actual_file = hostile_files
    result = runner.invoke(main, ["run", str(eval_file), "--actual", str(actual_file), "--format", "json"])
    assert result.exit_code == 1
    assert re.search("[\x00-\x1f]", result.stdout.replace("\n", "")) is None  # JSON escapes C0
    document = json.loads(result.stdout)
    [eval_set] = document["eval_sets"]
    assert eval_set["eval_set_id"] == "set" + HOSTILE_ID
    ids = [case["eval_id"] for case in eval_set["cases"]]
    assert ids == [name + HOSTILE_ID for name in HOSTILE]


@pytest.mark.parametrize("name", sorted(HOSTILE.keys() - {"bidi"}))
def test_an_id_holding_a_control_character_is_refused_and_shown_escaped(runner, tmp_path, name):
    case = _case("case" + HOSTILE[name], "tool", "ok")
    path = tmp_path / "x.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "x", "eval_cases": [case]}), encoding="utf-8")
    result = runner.invoke(main, ["run", str(path), "--actual", str(path)])
    assert (
        result.exit_code == 2
        and "eval_cases[0].eval_id: eval_id holds the control character" in result.output
    )
    _assert_shown_not_sent(result.output)


def test_a_path_too_long_for_the_system_is_exit_2_without_a_traceback(runner, tmp_path):
    for argument in ("x" * 300 + ".test.json", f"{'y' * 300}.test.json:case"):
        result = runner.invoke(main, ["run", argument, "--actual", argument])
        assert result.exit_code == 2, result.output
        assert "a name is at most 255 bytes" in result.output
        assert (
            "Traceback" not in result.output
            and result.exception is None
            or isinstance(result.exception, SystemExit)
        )


def test_an_os_error_on_an_input_path_is_exit_2_with_the_fix(runner, tmp_path):
    deep = tmp_path / ("d" * 250) / ("e" * 250)
    argument = str(deep) + "/" + "/".join(["f" * 250] * 20) + "/x.test.json"
    result = runner.invoke(main, ["run", argument, "--actual", argument])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ")
    assert "Traceback" not in result.output


# -- the function itself -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("a\rb", "a\\rb"),
        ("\x9b1m", "\\x9b1m"),
        ("\u202eabc", "\\u202eabc"),
        ("lone \ud800", "lone \\ud800"),
        ("line\nnext\ttab", "line\\nnext\\ttab"),
        ("caf\u00e9 \U0001f600 \u4e2d", "caf\u00e9 \U0001f600 \u4e2d"),
    ],
)
def test_visible(text, shown):
    assert visible(text) == shown


def test_visible_keeps_line_breaks_when_asked_but_never_a_cr():
    assert visible("a\nb\tc\r\n\x1b", newlines=True) == "a\nb\tc\\r\n\\x1b"


@given(st.text())
def test_visible_output_is_printable_and_encodable(text):
    shown = visible(text)
    shown.encode("utf-8")
    assert RAW.search(shown) is None and "\n" not in shown and "\r" not in shown
    if RAW.search(text) is None and not re.search(
        "[\n\t\r\u2028\u2029\ufeff\u061c\u200e\u200f\ud800-\udfff]", text
    ):
        assert shown == text


def test_json_visible_escapes_what_json_encoders_leave_raw_and_keeps_the_value():
    from agenteval._terminal import json_visible

    value = {"id": "s\x9b31m\u202eevil\u2028x\ufeff", "ok": "café 😀", "c0": "\x1b[2J"}
    document = json.dumps(value, ensure_ascii=False)
    shown = json_visible(document)
    assert RAW.search(shown) is None
    assert "\\u009b" in shown and "\\u202e" in shown and "café 😀" in shown
    assert json.loads(shown) == value


def test_json_visible_escapes_exactly_the_characters_of_its_table():
    from agenteval._terminal import _JSON_HIDDEN, _JSON_TABLE

    found = {code for code in range(0x110000) if _JSON_HIDDEN.fullmatch(chr(code))}
    assert found == set(_JSON_TABLE)


@given(
    st.recursive(
        st.text(), lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3)
    )
)
def test_json_visible_never_changes_the_value(value):
    from agenteval._terminal import json_visible

    document = json.dumps(value, ensure_ascii=False)
    assert json.loads(json_visible(document)) == value


@pytest.mark.parametrize(
    ("error", "fragment"),
    [
        (OSError(36, "File name too long", "d" * 300), "a file name is at most 255 bytes"),
        (PermissionError(13, "Permission denied", "/secret\x1b[2J/x.json"), "check the permissions"),
    ],
)
def test_an_os_error_about_a_path_is_exit_2_with_the_path_and_the_fix(error, fragment):
    import click
    from agenteval.cli._exit import reports_errors
    from click.testing import CliRunner

    @click.command()
    @reports_errors
    def command() -> None:
        raise error

    result = CliRunner().invoke(command, [])
    assert result.exit_code == 2
    assert result.output.startswith("error: ") and fragment in result.output
    assert "(300 bytes)" in result.output or "\\x1b[2J" in result.output
    _assert_shown_not_sent(result.output)


def test_an_os_error_without_a_path_is_not_dressed_up():
    import click
    from agenteval.cli._exit import reports_errors
    from click.testing import CliRunner

    @click.command()
    @reports_errors
    def command() -> None:
        raise OSError("no path here")

    result = CliRunner().invoke(command, [])
    assert isinstance(result.exception, OSError)


def test_a_write_that_fails_on_a_full_disk_is_exit_2_naming_the_output_and_the_fix(runner, tmp_path):
    """``--output`` on a full disk (``/dev/full`` fails every write with ``ENOSPC``): the
    file and the fix; a write with no path (standard output, a plugin's open file) says so."""
    import errno

    import click
    from agenteval.cli._exit import reports_errors

    example = Path(__file__).resolve().parents[2] / "examples" / "travel"
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full on this system")
    for form in ("table", "json"):
        args = ["run", str(example / "travel.evalset.json"), "--actual", str(example / "travel.actual.json")]
        result = runner.invoke(main, [*args, "--no-record", "--format", form, "--output", "/dev/full"])
        assert result.exit_code == 2, result.output
        assert "error: /dev/full: No space left on device; free some space" in result.output

    @click.command()
    @reports_errors
    def command() -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    result = runner.invoke(command, [])
    assert result.exit_code == 2
    assert result.output == (
        "error: an output could not be written: No space left on device; free some space, or write "
        "the output elsewhere\n"
    )
