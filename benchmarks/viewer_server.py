"""How the ``agenteval view`` server scales with the run it serves: 1k, 10k and 100k cases.

Each size is a real run folder, recorded by a whole ``agenteval run`` process on the seeded data
of ``scale.make_data`` (one invocation, three tool calls and a ~30-word response per case, some
perturbed). Then, in a fresh process, ``agenteval view RUN --port 0 --no-open`` is started as a
user would, and over real HTTP it measures:

* first index: from launching the command to the whole ``/api/runs/<id>/index`` body (what
  stands between ``agenteval view`` and the first rows: start-up, one scan of the run, the
  encoding), with gzip as a browser asks;
* next session: the same in a second ``agenteval view`` of the same finished run, whose
  summary and index come from the viewer's disk cache;
* index again: the same request once cached (a reload);
* case: ``/api/runs/<id>/cases/<row>`` for 50 rows spread over the run, median and worst
  (each one seek in ``results.jsonl``);
* the index payload, raw and gzipped, and bytes per case;
* the server's peak RSS (``VmHWM``) after all of it;
* in the browser: a third cold session, opened in headless Chromium (already running, as a
  user's browser is), from launching ``agenteval view``: to the first rows of the cases grid
  on screen (a big run's first rows come from ``/head`` while the whole index is read), and
  to the whole run (its header, counts and filters: the whole index, transferred, parsed
  and rendered).

A linear cost gives about 10x per step. Budgets (issue 11): first rows ≤ 1.5 s and RSS ≤ 300 MB
at 100k cases; absolute figures depend on the machine.

    python benchmarks/viewer_server.py                   # 1k, 10k, 100k
    python benchmarks/viewer_server.py --sizes 1000 10000
    python benchmarks/viewer_server.py --keep /tmp/vs    # record once, measure again later
    python benchmarks/viewer_server.py --write           # and record them for docs/viewer.md

``--write`` merges the rows measured into ``viewer_server_figures.json`` (beside this script;
a row replaces the one of the same size) and prints the lines docs/viewer.md quotes
(``doc_lines``); ``tests/docs/test_row_figures.py`` keeps the two equal.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import scale  # noqa: E402  (a sibling script: the seeded data and a recorded run)
from _figures import machine, measured_on, table_row, write, write_option  # noqa: E402  (a sibling module)
from _phases import as_installed  # noqa: E402  (a sibling module)

JSON_PATH = HERE / "viewer_server_figures.json"


def _get(port: int, path: str, gzip: bool = True) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        connection.request("GET", path, headers={"Accept-Encoding": "gzip"} if gzip else {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


CHROMIUM = "/usr/bin/chromium"


def _start(run_folder: Path, cache: Path) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "agenteval", "view", str(run_folder), "--port", "0", "--no-open"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**as_installed(), "AGENTEVAL_VIEWER_CACHE": str(cache)},
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/\S*)", line)
    if found is None:
        problem = process.stderr.read() if process.stderr else ""
        process.kill()
        raise SystemExit(f"agenteval view did not start: {line}{problem}")
    return process, found.group(1)


def measure(run_folder: Path, cache: Path) -> dict[str, Any]:
    """Start ``agenteval view`` on ``run_folder`` and time its index and cases."""
    run_id = run_folder.name
    started = time.perf_counter()
    process, url = _start(run_folder, cache)
    try:
        port = int(url.split(":")[2].split("/")[0])
        status, gzipped = _get(port, f"/api/runs/{run_id}/index")
        first = time.perf_counter() - started
        if status != 200:
            raise SystemExit(f"/index answered {status}: {gzipped[:300]!r}")
        again_started = time.perf_counter()
        _get(port, f"/api/runs/{run_id}/index")
        again = time.perf_counter() - again_started
        _status, raw = _get(port, f"/api/runs/{run_id}/index", gzip=False)
        n = json.loads(raw)["n"]
        rows = [round(i * (n - 1) / 49) for i in range(50)]
        latencies = []
        for row in rows:
            t = time.perf_counter()
            status, _body = _get(port, f"/api/runs/{run_id}/cases/{row}")
            latencies.append(time.perf_counter() - t)
            if status != 200:
                raise SystemExit(f"/cases/{row} answered {status}")
        rss = _peak_rss_mb(process.pid)
        return {
            "n": n,
            "first": first,
            "again": again,
            "case_median_ms": statistics.median(latencies) * 1000,
            "case_max_ms": max(latencies) * 1000,
            "index_mb": len(raw) / 1e6,
            "index_gz_mb": len(gzipped) / 1e6,
            "rss_mb": rss,
        }
    finally:
        process.terminate()
        process.wait(30)


def measure_browser(run_folder: Path, cache: Path) -> Optional[tuple[float, float]]:
    """Seconds from launching ``agenteval view`` to the first grid rows and to the whole run
    (the header's verdict) in Chromium (``None`` without Playwright or Chromium)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not Path(CHROMIUM).exists():
        return None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto("about:blank")
        started = time.perf_counter()
        process, url = _start(run_folder, cache)
        try:
            page.goto(url)
            page.wait_for_selector("[data-testid=grid-row]", timeout=120_000)
            rows = time.perf_counter() - started
            page.wait_for_selector("[data-testid=verdict]", timeout=120_000)
            return rows, time.perf_counter() - started
        finally:
            process.terminate()
            process.wait(30)
            browser.close()


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument(
        "--keep",
        type=Path,
        help="record the runs in this folder and keep them; a size already recorded there is reused",
    )
    write_option(parser, JSON_PATH, "docs/viewer.md")
    args = parser.parse_args(argv)
    rows = []
    print(
        f"{'cases':>8} {'first index s':>14} {'x prev':>7} {'next session s':>15} {'again s':>8} "
        f"{'case ms (med/max)':>18} "
        f"{'index MB (gz)':>14} {'B/case':>7} {'peak RSS MB':>12} {'browser: first rows / whole s':>30}"
    )
    previous: Optional[float] = None
    with tempfile.TemporaryDirectory(prefix="agenteval-viewer-") as tmp:
        for size in args.sizes:
            folder = (args.keep or Path(tmp)) / str(size)
            if not (folder / "runs").is_dir() or not any((folder / "runs").iterdir()):
                manifest = scale.make_data(folder, size)
                scale.run_agenteval(folder, manifest)
            run_folder = next((folder / "runs").iterdir())
            cache = Path(tmp) / f"viewer-cache-{size}"  # cold for the first session, always
            m = measure(run_folder, cache)
            m2 = measure(run_folder, cache)
            shown = measure_browser(run_folder, Path(tmp) / f"viewer-cache-browser-{size}")
            ratio = f"{m['first'] / previous:.1f}" if previous else "-"
            previous = m["first"]
            print(
                f"{m['n']:>8} {m['first']:>14.2f} {ratio:>7} {m2['first']:>15.2f} {m['again']:>8.3f} "
                f"{m['case_median_ms']:>9.1f}/{m['case_max_ms']:<8.1f} "
                f"{m['index_mb']:>6.1f} ({m['index_gz_mb']:.1f}) {m['index_mb'] * 1e6 / m['n']:>7.0f} "
                f"{max(m['rss_mb'], m2['rss_mb']):>12.0f} "
                f"{'-' if shown is None else f'{shown[0]:.2f} / {shown[1]:.2f}':>30}",
                flush=True,
            )
            index_file = (run_folder / "index.jsonl").stat().st_size / 1e6
            rows.append(
                {
                    "cases": m["n"],
                    "first": m["first"],
                    "next": m2["first"],
                    "case_median_ms": m["case_median_ms"],
                    "index_mb": m["index_mb"],
                    "index_file_mb": index_file,
                    "rss_mb": max(m["rss_mb"], m2["rss_mb"]),
                    "browser": None if shown is None else list(shown),
                    **machine(),
                }
            )
    if args.write:
        write(args.write, rows, ("cases",), doc_lines, "docs/viewer.md")
    return 0


def doc_lines(rows: list[dict]) -> dict[str, str]:
    """The lines docs/viewer.md quotes from the recorded rows, by name: a table row per size,
    the size of the largest run's ``index.jsonl``, and the machine's sentence."""
    lines = {}
    ordered = sorted(rows, key=lambda row: row["cases"])
    for row in ordered:
        browser = "-" if row["browser"] is None else f"{row['browser'][0]:.2f} s / {row['browser'][1]:.2f} s"
        cells = [
            f"{row['cases']:,}",
            f"{row['first']:.2f} s",
            f"{row['next']:.2f} s",
            f"{row['case_median_ms']:.1f} ms",
            f"{row['index_mb']:.1f} MB",
            f"{row['rss_mb']:.0f} MB",
            browser,
        ]
        lines[str(row["cases"])] = table_row(cells)
    if ordered:
        largest = ordered[-1]
        lines["index file"] = (
            f"At {largest['cases']:,} cases the whole index is one pass over the "
            f"{largest['index_file_mb']:.0f} MB `index.jsonl`"
        )
        lines["machine"] = f"Measured {measured_on(rows)}."
    return lines


if __name__ == "__main__":
    sys.exit(main())
