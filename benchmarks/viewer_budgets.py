"""The single-file HTML report at 1k, 10k and 100k cases: build time, peak RSS and file size,
then in headless chromium time to interactive, a status filter, a search keystroke, opening
a case, DOM nodes and JS heap. Budgets at 100k: file ≤ 50 MB, interactive ≤ 2 s, filter ≤
300 ms, open case ≤ 300 ms; build ≤ 10 s and ≤ 400 MB RSS.

    .venv/bin/python benchmarks/viewer_budgets.py            # 1k, 10k, 100k
    .venv/bin/python benchmarks/viewer_budgets.py 1000 10000
    .venv/bin/python benchmarks/viewer_budgets.py --write    # and record them for docs/viewer.md

``--write`` merges the rows measured into ``viewer_budgets_figures.json`` (beside this
script; a row replaces the one of the same size) and prints the lines docs/viewer.md quotes
(``doc_lines``); ``tests/docs/test_row_figures.py`` keeps the two equal.

Each size is built in a child process (so its peak RSS is its own). Runs are generated with the
viewer tests' fixtures (``tests/plugins/viewer/_fixtures.py``, fixed seed).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _figures import machine, measured_on, table_row, write, write_option  # noqa: E402  (a sibling module)

REPO = HERE.parent
JSON_PATH = HERE / "viewer_budgets_figures.json"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--enable-precise-memory-info"]  # fmt: skip


def _fixtures():
    spec = importlib.util.spec_from_file_location(
        "viewer_fixtures", REPO / "tests/plugins/viewer/_fixtures.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["viewer_fixtures"] = module
    spec.loader.exec_module(module)
    return module


def build(n: int, folder: Path) -> dict:
    """Child process: generate the run, then time the report's build alone."""
    from agenteval_viewer._report import render_report

    run = _fixtures().synthetic_run(folder / "runs", n, summary=False)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    stats = render_report(run, folder / "report.html")
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "build_s": seconds,
        "rss_mb": peak / 1024,  # peak of the process: includes generating the run (rss_before_mb)
        "rss_before_mb": before / 1024,
        "mb": stats.bytes / 1e6,
        "details": stats.details_included,
        "path": str(stats.path),
    }


def measure(path: str) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        start = time.perf_counter()
        page.goto(Path(path).as_uri())
        page.wait_for_selector("[data-testid=grid-row]")
        interactive = time.perf_counter() - start

        def timed(action, until):
            t = time.perf_counter()
            action()
            page.wait_for_function(until)
            return time.perf_counter() - t

        status = timed(
            lambda: page.get_by_test_id("count-FAILED").click(), "location.hash.includes('status=FAILED')"
        )
        search = timed(lambda: page.get_by_test_id("search").press("7"), "location.hash.includes('q=7')")
        row = page.locator("[data-testid=grid-row]").first.get_attribute("data-row")
        opened = timed(
            lambda: page.locator("[data-testid=grid-row]").first.click(),
            "document.querySelector('[data-testid=turn], [data-testid=no-details]') !== null",
        )
        nodes = page.evaluate("document.getElementsByTagName('*').length")
        heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize / 1e6 : null")
        browser.close()
    return {
        "interactive_s": interactive,
        "filter_s": status,
        "search_s": search,
        "open_s": opened,
        "dom_nodes": nodes,
        "heap_mb": heap,
        "row": row,
    }


def main(sizes: list[int], write_to: Optional[str] = None) -> None:
    print(
        f"{'cases':>8} {'build s':>8} {'RSS MB':>7} {'(gen)':>6} {'file MB':>8} "
        f"{'details':>8} {'ready s':>8} "
        f"{'filter ms':>9} {'search ms':>9} {'open ms':>8} {'DOM':>6} {'heap MB':>8}"
    )
    rows = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            out = subprocess.run(
                [sys.executable, __file__, "--build", str(n), tmp], capture_output=True, text=True
            )
            if out.returncode:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(out.returncode)
            built = json.loads(out.stdout.strip().splitlines()[-1])
            seen = measure(built["path"])
        print(
            f"{n:>8,} {built['build_s']:>8.2f} {built['rss_mb']:>7.0f} {built['rss_before_mb']:>6.0f} "
            f"{built['mb']:>8.1f} {built['details']:>8,} {seen['interactive_s']:>8.2f} "
            f"{seen['filter_s'] * 1000:>9.0f} {seen['search_s'] * 1000:>9.0f} {seen['open_s'] * 1000:>8.0f} "
            f"{seen['dom_nodes']:>6} {seen['heap_mb'] or 0:>8.1f}",
            flush=True,
        )
        rows.append({"cases": n, **{k: v for k, v in built.items() if k != "path"}, **seen, **machine()})
    if write_to:
        write(write_to, rows, ("cases",), doc_lines, "docs/viewer.md")


def doc_lines(rows: list[dict]) -> dict[str, str]:
    """The lines docs/viewer.md quotes from the recorded rows, by name: a table row per size
    (a file that left out some cases' details says it was capped) and the machine's sentence."""
    lines = {}
    for row in sorted(rows, key=lambda row: row["cases"]):
        capped = " (capped)" if row["details"] < row["cases"] else ""
        heap = f"{row['heap_mb']:.0f} MB" if row["heap_mb"] is not None else "-"
        cells = [
            f"{row['cases']:,}",
            f"{row['build_s']:.2f} s",
            f"{row['rss_mb']:.0f} MB ({row['rss_before_mb']:.0f})",
            f"{row['mb']:.1f} MB{capped}",
            f"{row['details']:,}",
            f"{row['interactive_s']:.2f} s",
            *(f"{row[key] * 1000:.0f} ms" for key in ("filter_s", "search_s", "open_s")),
            f"{row['dom_nodes']:,}",
            heap,
        ]
        lines[str(row["cases"])] = table_row(cells)
    if rows:
        lines["machine"] = f"Measured {measured_on(rows)}."
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        print(json.dumps(build(int(sys.argv[2]), Path(sys.argv[3]))))
    else:
        parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
        parser.add_argument("sizes", type=int, nargs="*", default=[1_000, 10_000, 100_000])
        write_option(parser, JSON_PATH, "docs/viewer.md")
        args = parser.parse_args()
        main(args.sizes, args.write)
