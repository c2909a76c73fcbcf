"""``agenteval report`` and the ``html`` reporter: one self-contained file, safe islands,
details worst first within a size limit."""

from __future__ import annotations

import json
import re

import agenteval_viewer_test_fixtures as fx
import pytest
from agenteval._reporting import resolve_reporters
from agenteval.cli import main
from agenteval.plugins import ReportContext
from agenteval_viewer._report import CSP, island, render_report
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st


def _islands(text):
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r'<script type="application/json" id="([^"]+)">(.*?)</script>', text, re.S)
    }


@given(st.text())
def test_an_island_never_contains_markup_and_reads_back(value):
    encoded = island({"v": value})
    assert not re.search(r"[<>&\u2028\u2029]", encoded)
    assert json.loads(encoded) == {"v": value}


def test_an_island_takes_lone_surrogates_and_non_finite_numbers():
    encoded = island({"text": "a\ud800</script>", "scores": [float("nan"), float("inf"), 0.5]})
    assert encoded.isascii() and "</script>" not in encoded
    assert json.loads(encoded) == {"text": "a\ud800</script>", "scores": [None, None, 0.5]}
    assert json.loads(island({"score": float("nan")})) == {"score": None}


def test_the_report_is_one_file_with_a_csp_and_no_outside_reference(tiny, tmp_path):
    stats = render_report(tiny, tmp_path / "r.html")
    text = stats.path.read_text(encoding="utf-8")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in text
    assert not re.search(r'<script[^>]+src=|<link[^>]+href="(?!data:)', text)
    # the only URLs are XML namespace names inside Preact, never fetched
    assert set(re.findall(r"https?://[^\s\"')]+", text)) <= {
        "http://www.w3.org/2000/svg",
        "http://www.w3.org/1999/xhtml",
        "http://www.w3.org/1998/Math/MathML",
    }
    islands = _islands(text)
    assert set(islands) >= {"ae-summary", "ae-index", "ae-details-0"}
    summary = json.loads(islands["ae-summary"])
    assert summary["counts"] == {s.value: n for s, n in tiny.summary().summary.cases.items()}
    # every script tag in the file is one of ours: the XSS payloads stayed inside the islands
    assert text.count("<script") == len(islands) + 4
    assert fx.XSS_SCRIPT not in text and "\u2028" not in text


def test_by_default_every_case_has_its_details_within_the_limit(tiny, tmp_path):
    stats = render_report(tiny, tmp_path / "r.html")
    assert stats.details_left_out == 0 and stats.details_included == stats.cases


def test_details_go_to_non_passing_cases_and_the_rest_are_counted(tiny, tmp_path):
    stats = render_report(tiny, tmp_path / "r.html", details="nonpassing")
    islands = _islands(stats.path.read_text(encoding="utf-8"))
    details = json.loads(islands["ae-details-0"])
    index = json.loads(islands["ae-index"])
    passing = {str(r) for r, s in enumerate(index["status"]) if s == 0}
    assert set(details) == {str(r) for r in range(index["n"])} - passing
    report = json.loads(islands["ae-summary"])["report"]
    assert report["details_left_out"] == len(passing) == stats.details_left_out
    assert (
        fx.XSS_SCRIPT
        in details[str(index["case_id"].index(fx.XSS_IMG))]["turns"][0]["actual"]["final_response"]
    )


def test_a_size_limit_keeps_failures_first(tiny, tmp_path):
    full = render_report(tiny, tmp_path / "full.html", details="all")
    assert full.details_left_out == 0
    small = render_report(tiny, tmp_path / "small.html", details="all", max_mb=0.15)
    assert small.bytes <= 150_000 and 0 < small.details_included < full.details_included
    islands = _islands(small.path.read_text(encoding="utf-8"))
    kept = {int(r) for k, v in islands.items() if k.startswith("ae-details-") for r in json.loads(v)}
    index = json.loads(islands["ae-index"])
    assert all(index["status"][r] != 0 for r in kept)  # no passing case before every failing one
    assert json.loads(islands["ae-summary"])["report"]["size_limited"] is True
    none = render_report(tiny, tmp_path / "none.html", details="none")
    assert none.details_included == 0 and not any(
        k.startswith("ae-details-") for k in _islands(none.path.read_text())
    )


def test_the_command_finds_runs_and_reports_bad_ones_with_exit_2(tiny, tmp_path):
    runner = CliRunner()
    out = tmp_path / "out" / "report.html"
    result = runner.invoke(
        main, ["report", tiny.run_id[:12], "--runs-dir", str(tiny.folder.parent), "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert out.is_file() and "written to" in result.output
    result = runner.invoke(main, ["report", "nope", "--runs-dir", str(tiny.folder.parent)])
    assert (
        result.exit_code == 2 and "error: no run 'nope'" in result.output and "Traceback" not in result.output
    )
    result = runner.invoke(main, ["report", "latest", "--runs-dir", str(tmp_path / "empty")])
    assert result.exit_code == 2 and "no recorded runs" in result.output


def test_the_html_reporter_writes_report_html_in_its_folder(tiny, tmp_path):
    [reporter] = resolve_reporters(["html"]).values()
    written = reporter().write(ReportContext(run=tiny, folder=tmp_path))
    assert written == [tmp_path / "report.html"] and written[0].stat().st_size > 10_000


def test_the_static_files_ship_in_the_package():
    from importlib import resources

    static = resources.files("agenteval_viewer").joinpath("static")
    for name in (
        "index.html",
        "app.js",
        "app.css",
        "vendor/preact.min.js",
        "vendor/htm.umd.js",
        "vendor/vendor.lock.json",
    ):
        assert static.joinpath(name).is_file(), name
    lock = json.loads(static.joinpath("vendor/vendor.lock.json").read_text())
    import hashlib

    for package in lock["packages"]:
        assert package["license"] and package["integrity"].startswith("sha512-")
        for entry in package["files"]:
            data = static.joinpath("vendor", entry["file"]).read_bytes()
            assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]


def test_the_report_inlines_every_module_the_front_end_imports_each_in_its_own_scope():
    """A report opened from a file loads no module: every static module but the authoring
    screen's is inlined, dependencies first, and a module's private names stay its own."""
    from agenteval_viewer._modules import module_graph
    from agenteval_viewer._report import _inline_modules, _static
    from agenteval_viewer._server import STATIC_DIR

    graph = module_graph(_static, "app.js")
    assert graph[0] == "ui.js" and graph[-1] == "app.js"
    assert set(graph) == {p.name for p in STATIC_DIR.glob("*.js")} - {"author.js"}
    script = _inline_modules("app.js")
    assert "import {" not in script and "\nexport " not in script
    assert script.count("modules[") >= 2 * len(graph)  # each module set once, read by its importers


def test_a_module_cycle_or_another_export_form_stops_the_report(monkeypatch):
    from agenteval_viewer import _report

    sources = {
        "a.js": 'import { b } from "./b.js";\nexport const a = 1;\n',
        "b.js": 'import { a } from "./a.js";\nexport const b = 2;\n',
        "c.js": "export default 3;\n",
    }
    monkeypatch.setattr(_report, "_static", lambda name: sources[name])
    with pytest.raises(RuntimeError, match="a cycle: a.js -> b.js -> a.js"):
        _report._inline_modules("a.js")
    with pytest.raises(RuntimeError, match="export only with"):
        _report._inline_modules("c.js")
