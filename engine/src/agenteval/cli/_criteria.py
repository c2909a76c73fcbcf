"""``agenteval criteria list|show``: what is installed, without importing it."""

from __future__ import annotations

import json
import sys

import click

from ._exit import ExitCode, reports_errors

__all__ = ["criteria"]


@click.group()
def criteria() -> None:
    """List installed criteria or show one's parameters."""


@criteria.command("list")
@click.option("--check", is_flag=True, help="Import every criterion and report the ones that fail to load.")
@click.option(
    "--format", "output_format", type=click.Choice(["table", "json"]), default="table", show_default=True
)
@reports_errors
def list_criteria(check: bool, output_format: str) -> None:
    """Name, distribution, version and description of every installed criterion.

    Reads installed metadata and plugin source only; nothing is imported unless --check.
    """
    from .._plugin_source import read_description
    from .._registry import Registry
    from ..errors import PluginLoadError

    registry = Registry()
    rows = []
    for ref in registry.refs():
        row = {
            "name": ref.name,
            "distribution": ref.distribution,
            "version": ref.version,
            "entry_point": ref.target,
            "description": read_description(ref.target) or "",
        }
        if check:
            try:
                registry.load([ref.name])
                row["status"] = "ok"
            except PluginLoadError as exc:
                row["status"] = " ".join(str(exc).split("\n", 1)[-1].split())
        rows.append(row)
    if output_format == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        from rich import box
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        # One table per distribution, so that names and descriptions fit a narrow terminal.
        console = Console()
        console.print(f"{len(rows)} installed criteria")
        by_dist: dict[tuple[str, str], list[dict]] = {}
        for row in rows:
            by_dist.setdefault((row["distribution"], row["version"]), []).append(row)
        for (dist, version), group in sorted(by_dist.items()):
            table = Table(title=f"{dist} {version}", title_justify="left", box=box.SIMPLE_HEAD)
            table.add_column("name", no_wrap=True)
            table.add_column("description", overflow="fold", ratio=1)
            if check:
                table.add_column("check", overflow="fold")
            for row in group:
                cells = [row["name"], row["description"]] + ([row["status"]] if check else [])
                table.add_row(*map(escape, cells))
            console.print(table)
        if not rows:
            click.echo(
                "No criteria installed: pip install agenteval-builtin (or plugins/builtin from the repo)."
            )
    if check and any(row["status"] != "ok" for row in rows):
        sys.exit(ExitCode.NOT_PASSED)


@criteria.command("show")
@click.argument("name")
@reports_errors
def show_criterion(name: str) -> None:
    """Description, score range, defaults and parameter schema of one criterion."""
    import inspect

    from .._registry import Registry

    loaded = Registry().load([name])[name]
    info = loaded.info
    klass = loaded.evaluator_class
    score_range = (
        f"[{info.min_score if info.min_score is not None else '-inf'}, "
        f"{info.max_score if info.max_score is not None else 'inf'}]"
    )
    lines = [
        f"{name}  ({loaded.ref.distribution} {loaded.ref.version}, {loaded.ref.target})",
        "",
        info.description,
        "",
        f"score range:        {score_range}, {'higher' if info.higher_is_better else 'lower'} is better",
        f"default threshold:  {'none (informational)' if info.informational else info.default_threshold}",
        f"needs expected:     {'yes' if info.requires_expected else 'no'}",
        f"needs rubrics:      {'yes' if info.requires_rubrics else 'no'}",
        f"calls a judge:      {'yes' if info.requires_judge else 'no'}",
        "",
        "parameters (JSON schema):",
        json.dumps(klass.Params.model_json_schema(by_alias=False), indent=2),
    ]
    doc = inspect.getdoc(klass)
    if doc:
        lines += ["", doc]
    click.echo("\n".join(lines))
