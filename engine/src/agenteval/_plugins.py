"""Finding and loading plugins of every kind: one finder, driven by one table of kinds.

Each extension point is one row of ``KINDS``: its entry-point group, what it is called in
messages, the contract a loaded object must keep (``check``), and where a plugin of that
kind that is not installed comes from (the install hints, kept here and nowhere else).

Discovery reads installed metadata and never imports a plugin; loading imports exactly the
requested names through stevedore (the only module that imports it) and raises one
``PluginLoadError`` listing everything that is unknown, broken, breaks its contract, or is
provided by two distributions (never silently the first of them). stevedore's own disk cache
of entry points can miss a plugin installed a moment ago, so it is handed a fresh
``importlib.metadata`` listing instead (which also tells each plugin's distribution).
"""

from __future__ import annotations

import importlib.metadata
import inspect
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Optional

from stevedore import NamedExtensionManager

from .errors import PluginLoadError
from .text import suggest

__all__ = [
    "KINDS",
    "LoadedPlugin",
    "PluginFinder",
    "PluginKind",
    "PluginRef",
    "install_hint",
    "known_plugins",
]

#: The distribution named for a plugin given as an object (``Registry.from_classes``), not
#: installed.
IN_MEMORY_DISTRIBUTION = "<in-memory>"

#: Where a plugin that is not installed comes from, by kind and name. From a clone of the
#: repository every distribution installs with ``pip install -e ./plugins/<folder>``.
_FROM = {
    "builtin": "agenteval-builtin (pip install -e ./plugins/builtin)",
    "llm_judges": "agenteval-llm-judges (pip install -e ./plugins/llm_judges)",
    "vertex_safety": "agenteval-vertex-safety (pip install -e ./plugins/vertex_safety)",
    "adk": "agenteval-adk (pip install -e ./plugins/adk)",
    "viewer": "agenteval-viewer (pip install -e ./plugins/viewer)",
    "otel": "agenteval-otel (pip install -e ./plugins/otel)",
    "agent_platform": "agenteval-agent-platform (pip install -e ./plugins/agent_platform)",
}
_HINTS: dict[str, dict[str, str]] = {
    "criterion": {
        **dict.fromkeys(
            (
                "tool_trajectory_avg_score",
                "response_match_score",
                "trajectory_precision",
                "trajectory_recall",
                "trajectory_single_tool_use",
                "tool_call_count_v1",
                "inference_call_count_v1",
                "token_usage_v1",
                "invocation_duration_v1",
            ),
            _FROM["builtin"],
        ),
        **dict.fromkeys(
            (
                "final_response_match_v2",
                "rubric_based_final_response_quality_v1",
                "rubric_based_tool_use_quality_v1",
                "rubric_based_multi_turn_trajectory_quality_v1",
                "hallucinations_v1",
                "per_turn_user_simulator_quality_v1",
            ),
            _FROM["llm_judges"],
        ),
        **dict.fromkeys(
            (
                "safety_v1",
                "response_evaluation_score",
                "multi_turn_task_success_v1",
                "multi_turn_trajectory_quality_v1",
                "multi_turn_tool_use_quality_v1",
            ),
            _FROM["vertex_safety"],
        ),
    },
    "agent adapter": {
        "adk": _FROM["adk"],
        "python": _FROM["builtin"],
        "http": _FROM["builtin"],
        "http-traces": _FROM["otel"],
        "command": _FROM["otel"],
    },
    "judge model provider": {
        "gemini": _FROM["llm_judges"],
        "openai": _FROM["llm_judges"],
        "litellm": "agenteval-llm-judges[litellm] (pip install -e './plugins/llm_judges[litellm]')",
    },
    "user simulator": {"llm_backed": _FROM["llm_judges"]},
    "reporter": {
        **dict.fromkeys(("junit", "markdown", "github"), _FROM["builtin"]),
        "html": _FROM["viewer"],
    },
    "command": {
        **dict.fromkeys(("view", "report"), _FROM["viewer"]),
        "lint-trace": _FROM["otel"],
        "export": _FROM["agent_platform"],
    },
    "custom metric runner": {"adk": _FROM["adk"]},
    "data format": {"otel": _FROM["otel"], "agent-platform": _FROM["agent_platform"]},
    "data format writer": {"agent-platform": _FROM["agent_platform"]},
    "executor": {"ray": "agenteval-ray (pip install -e ./plugins/ray)"},
}


def known_plugins(kind: str) -> dict[str, str]:
    """Every plugin of ``kind`` that agenteval's own distributions provide, with its hint."""
    return dict(_HINTS.get(kind, {}))


def install_hint(kind: str, name: str) -> Optional[str]:
    """Which distribution provides the plugin ``name`` of ``kind``, and how to install it."""
    return _HINTS.get(kind, {}).get(name)


def _subclass_check(base_path: str, what: str) -> Callable[[Any], Optional[str]]:
    """A contract check: the object is a concrete subclass of ``module:Class``."""

    def check(obj: Any) -> Optional[str]:
        module, _, name = base_path.partition(":")
        base = getattr(importlib.import_module(module), name)
        if not (inspect.isclass(obj) and issubclass(obj, base)):
            return f"it points at {obj!r}, which is not a subclass of {what}"
        if inspect.isabstract(obj):
            missing = sorted(getattr(obj, "__abstractmethods__", ()))
            return f"{obj.__name__} does not implement {', '.join(missing)}"
        return None

    return check


def _command_check(obj: Any) -> Optional[str]:
    import click

    if not isinstance(obj, click.Command):
        return f"it points at {obj!r}, which is not a click command"
    return None


def _callable_check(obj: Any) -> Optional[str]:
    return None if callable(obj) else f"it points at {obj!r}, which is not callable"


def _criterion_check(obj: Any) -> Optional[str]:
    from ._contracts import evaluator_class_problem

    return evaluator_class_problem(obj)


@dataclass(frozen=True)
class PluginKind:
    """One extension point: its entry-point group, its name in messages, its contract."""

    name: str
    group: str
    check: Callable[[Any], Optional[str]] = field(repr=False)

    def hint(self, plugin: str) -> Optional[str]:
        return install_hint(self.name, plugin)


#: Every extension point, one row each.
KINDS: dict[str, PluginKind] = {
    kind.group: kind
    for kind in (
        PluginKind("criterion", "agenteval.criteria", _criterion_check),
        PluginKind(
            "judge model provider",
            "agenteval.judge_models",
            _subclass_check("agenteval._judging._provider:JudgeModel", "agenteval.plugins.JudgeModel"),
        ),
        PluginKind(
            "agent adapter",
            "agenteval.agents",
            _subclass_check("agenteval._agents._contract:Agent", "agenteval.plugins.Agent"),
        ),
        PluginKind(
            "user simulator",
            "agenteval.user_simulators",
            _subclass_check("agenteval._agents._simulator:UserSimulator", "agenteval.plugins.UserSimulator"),
        ),
        PluginKind(
            "reporter",
            "agenteval.reporters",
            _subclass_check("agenteval._reporting._contract:Reporter", "agenteval.plugins.Reporter"),
        ),
        PluginKind("command", "agenteval.commands", _command_check),
        # ADK's ``custom_metrics`` (functions called with ADK's own objects): a callable
        # ``(function, *, name, path, spec, param_keys) -> Evaluator class``; see
        # ``agenteval._local_criteria``.
        PluginKind("custom metric runner", "agenteval.custom_metric_runners", _callable_check),
        # Readers of recorded files in formats other than ADK's (``--actual TRACE.json``).
        PluginKind(
            "data format",
            "agenteval.formats",
            _subclass_check("agenteval._loading._formats:FormatReader", "agenteval.plugins.FormatReader"),
        ),
        # Writers of eval sets in formats other than ADK's (``agenteval export --to NAME``).
        PluginKind(
            "data format writer",
            "agenteval.format_writers",
            _subclass_check("agenteval._loading._formats:FormatWriter", "agenteval.plugins.FormatWriter"),
        ),
        # What runs a run's units of work (``--executor``): ``local`` is the engine's own.
        PluginKind(
            "executor",
            "agenteval.executors",
            _subclass_check("agenteval._run._executor:Executor", "agenteval.plugins.Executor"),
        ),
    )
}


@dataclass(frozen=True)
class PluginRef:
    """An installed plugin, known from metadata only (nothing imported)."""

    name: str
    distribution: str
    version: str
    target: str  # "module:attribute"

    @property
    def display(self) -> str:
        """``distribution[name]``, as flake8 names plugins."""
        return f"{self.distribution}[{self.name}]"


@dataclass(frozen=True)
class LoadedPlugin:
    """A plugin whose object has been imported and checked against its kind's contract."""

    ref: PluginRef
    obj: Any


def distribution_of(dist: Optional[importlib.metadata.Distribution]) -> tuple[str, str]:
    """A distribution's name and version; broken metadata (no ``Name``/``Version``) must
    not break discovery, so fall back to the metadata folder and ``"0"``."""
    if dist is None:
        return "<unknown>", "0"
    metadata = dist.metadata
    name = metadata["Name"] if metadata is not None and "Name" in metadata else None
    version = metadata["Version"] if metadata is not None and "Version" in metadata else None
    folder = getattr(dist, "_path", None)
    return name or (str(folder) if folder else "<unknown>"), version or "0"


def explain_import_failure(err: BaseException, ref: PluginRef) -> str:
    """Why importing a plugin failed, and what to do about it."""
    cause = f"{type(err).__name__}: {err}"
    if isinstance(err, ModuleNotFoundError) and err.name:
        fix = (
            f"install the missing module {err.name!r} (a dependency of {ref.distribution}), "
            f"or reinstall {ref.distribution}"
        )
    elif isinstance(err, (ImportError, AttributeError)):
        fix = f"reinstall {ref.distribution}, or upgrade it to a version that matches this engine"
    else:
        frame = traceback.extract_tb(err.__traceback__)[-1] if err.__traceback__ else None
        at = f" at {frame.filename}:{frame.lineno}" if frame else ""
        fix = f"the plugin raised while importing{at}; report it to the maintainers of {ref.distribution}"
    return f"{cause}. Fix: {fix}"


class PluginFinder:
    """The plugins of one kind: installed entry points, or given objects (tests, embedding).

    ``names()`` and ``refs()`` read metadata only; ``load_many`` / ``load_one`` import and check.
    """

    def __init__(self, kind: PluginKind, objects: Optional[Mapping[str, Any]] = None) -> None:
        self.kind = kind
        self._objects = dict(objects) if objects is not None else None
        self._refs: Optional[dict[str, list[PluginRef]]] = None
        self._entry_points: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
        self._loaded: dict[str, LoadedPlugin] = {}

    def _discover(self) -> dict[str, list[PluginRef]]:
        if self._refs is not None:
            return self._refs
        refs: dict[str, list[PluginRef]] = {}
        if self._objects is not None:
            for name, obj in self._objects.items():
                target = f"{getattr(obj, '__module__', '?')}:{getattr(obj, '__qualname__', name)}"
                refs[name] = [PluginRef(name, IN_MEMORY_DISTRIBUTION, "0", target)]
        else:
            for ep in importlib.metadata.entry_points(group=self.kind.group):
                dist_name, version = distribution_of(ep.dist)
                if any(r.distribution == dist_name for r in refs.get(ep.name, [])):
                    continue  # the same distribution seen twice on sys.path
                refs.setdefault(ep.name, []).append(PluginRef(ep.name, dist_name, version, ep.value))
                self._entry_points[(ep.name, dist_name)] = ep
        # Sorted by name, then by distribution: messages must not depend on disk order.
        self._refs = {n: sorted(group, key=lambda r: r.distribution) for n, group in sorted(refs.items())}
        return self._refs

    def refs(self) -> list[PluginRef]:
        """Every installed plugin of this kind, by name (a duplicate listed once per dist)."""
        return [ref for group in self._discover().values() for ref in group]

    def names(self) -> list[str]:
        """The installed plugin names."""
        return list(self._discover())

    def unknown_message(self, name: str) -> str:
        """Why ``name`` cannot be loaded because it is not installed, with where it comes from."""
        installed = ", ".join(self.names()) or "(none)"
        plural = "criteria" if self.kind.name == "criterion" else f"{self.kind.name}s"
        hint = self.kind.hint(name)
        if hint:
            return f"{name!r} is not installed: it comes from {hint}. Installed {plural}: {installed}"
        guess = suggest(name, self.names())
        did_you_mean = f"did you mean {guess!r}? " if guess else ""
        return (
            f"{name!r} is not an installed {self.kind.name}; {did_you_mean}installed {plural}: {installed}. "
            "A third-party plugin needs its distribution installed (pip install ...)"
        )

    def load_many(self, names: Iterable[str]) -> dict[str, LoadedPlugin]:
        """Import and check the requested plugins; one ``PluginLoadError`` for every
        problem (unknown, provided twice, broken, not keeping the contract)."""
        names = list(dict.fromkeys(names))
        if all(n in self._loaded for n in names):
            return {n: self._loaded[n] for n in names}
        discovered = self._discover()
        problems: list[str] = []
        duplicates = [n for n in names if len(discovered.get(n, ())) > 1]
        for name in duplicates:
            dists = " and ".join(r.display for r in discovered[name])
            problems.append(
                f"{name!r} is provided by more than one distribution ({dists}); uninstall one of them"
            )
        problems.extend(self.unknown_message(n) for n in names if n not in discovered)
        wanted = [n for n in names if n in discovered and n not in duplicates and n not in self._loaded]
        objects, failures = self._import(wanted, discovered)
        for name in wanted:
            ref = discovered[name][0]
            if name in failures:
                problems.append(
                    f"{self.kind.name} {ref.display} ({ref.target}) failed to load: {failures[name]}"
                )
                continue
            why = self.kind.check(objects.get(name))
            if why:
                problems.append(
                    f"{ref.display} ({ref.target}) is not a valid {self.kind.name}: {why}; "
                    f"report it to the maintainers of {ref.distribution}"
                )
                continue
            self._loaded[name] = LoadedPlugin(ref, objects[name])
        if problems:
            noun = (
                "the requested criteria"
                if self.kind.name == "criterion"
                else f"the requested {self.kind.name}s"
            )
            if len(problems) == 1:
                noun = f"a requested {self.kind.name}"
            raise PluginLoadError("\n".join([f"cannot load {noun}:", *(f"  - {p}" for p in problems)]))
        return {n: self._loaded[n] for n in names}

    def load_one(self, name: str) -> Any:
        """The plugin object named ``name`` (see ``load_many``)."""
        return self.load_many([name])[name].obj

    def _import(
        self, wanted: list[str], discovered: dict[str, list[PluginRef]]
    ) -> tuple[dict[str, Any], dict[str, str]]:
        failures: dict[str, str] = {}
        if self._objects is not None:
            return {n: self._objects[n] for n in wanted}, failures
        if not wanted:
            return {}, failures

        def on_failure(_manager: Any, ep: importlib.metadata.EntryPoint, err: BaseException) -> None:
            failures[ep.name] = explain_import_failure(err, discovered[ep.name][0])

        fresh = [self._entry_points[(n, discovered[n][0].distribution)] for n in wanted]
        manager = _FreshNamedManager(
            fresh,
            namespace=self.kind.group,
            names=wanted,
            name_order=True,
            invoke_on_load=False,
            on_load_failure_callback=on_failure,
            on_missing_entrypoints_callback=lambda missing: None,
        )
        loaded = {ext.name: ext.plugin for ext in manager.extensions}
        for name in wanted:
            if name not in loaded and name not in failures:
                failures[name] = "it could not be imported"
        return loaded, failures


class _FreshNamedManager(NamedExtensionManager):
    """A NamedExtensionManager over entry points we discovered ourselves."""

    def __init__(self, entry_points: list[importlib.metadata.EntryPoint], **kwargs: Any) -> None:
        self._fresh_entry_points = entry_points
        super().__init__(**kwargs)

    def list_entry_points(self) -> list[importlib.metadata.EntryPoint]:
        return self._fresh_entry_points

    def _load_one_plugin(self, ep: importlib.metadata.EntryPoint, *args: Any, **kwargs: Any) -> Any:
        # stevedore re-raises AssertionError (and never catches SystemExit); a plugin whose
        # module fails an ``assert`` or calls ``sys.exit`` at import time is a load failure too.
        try:
            return super()._load_one_plugin(ep, *args, **kwargs)
        except (AssertionError, SystemExit) as err:
            self._on_load_failure_callback(self, ep, err)  # type: ignore[misc]  # _import always passes one
            return None
