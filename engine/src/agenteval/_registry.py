"""The criteria registry: entry-point group ``agenteval.criteria``, loaded with stevedore.

The only module that imports stevedore. Discovery reads installed metadata and never
imports a plugin; ``load`` imports exactly the requested names through a stevedore
``NamedExtensionManager`` and raises one ``CriterionLoadError`` listing everything that is
unknown, not installed, broken or provided twice. A broken plugin nobody asked for is never
imported, so it cannot break a run.

stevedore's own entry-point disk cache can miss a plugin installed a moment ago; we hand it
a fresh ``importlib.metadata`` listing instead (which also tells the distribution).
"""

from __future__ import annotations

import importlib.metadata
import inspect
import re
import traceback
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from pydantic import BaseModel
from stevedore import NamedExtensionManager

from .errors import CriterionLoadError
from .evaluator import Evaluator, EvaluatorInfo
from .results import PluginInfo

__all__ = ["CRITERIA_GROUP", "CriterionRef", "LoadedCriterion", "Registry"]

CRITERIA_GROUP = "agenteval.criteria"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")

#: ADK 2.13 criteria that no agenteval distribution installed here provides (yet).
_NOT_YET_PROVIDED = {
    "final_response_match_v2": "the agenteval-llm-judges distribution (plugins/llm_judges)",
    "rubric_based_final_response_quality_v1": "the agenteval-llm-judges distribution (plugins/llm_judges)",
    "rubric_based_tool_use_quality_v1": "the agenteval-llm-judges distribution (plugins/llm_judges)",
    "hallucinations_v1": "the agenteval-llm-judges distribution (plugins/llm_judges)",
    "per_turn_user_simulator_quality_v1": "the agenteval-llm-judges distribution (plugins/llm_judges)",
    "safety_v1": "the agenteval-vertex-safety distribution (pip install -e plugins/vertex_safety)",
    "response_evaluation_score": "no agenteval plugin (Vertex coherence, not planned)",
    "rubric_based_multi_turn_trajectory_quality_v1": "no agenteval plugin yet",
    "multi_turn_task_success_v1": "no agenteval plugin yet",
    "multi_turn_trajectory_quality_v1": "no agenteval plugin yet",
    "multi_turn_tool_use_quality_v1": "no agenteval plugin yet",
}


@dataclass(frozen=True)
class CriterionRef:
    """An installed criterion, known from metadata only (nothing imported)."""

    name: str
    distribution: str
    version: str
    target: str  # "module:Class"

    @property
    def display(self) -> str:
        """``distribution[name]``, as flake8 names plugins."""
        return f"{self.distribution}[{self.name}]"

    @property
    def plugin(self) -> PluginInfo:
        """The provenance recorded in every result."""
        return PluginInfo(distribution=self.distribution, version=self.version, entry_point=self.target)


@dataclass(frozen=True)
class LoadedCriterion:
    """A criterion whose evaluator class has been imported and checked."""

    ref: CriterionRef
    evaluator_class: type[Evaluator]

    @property
    def info(self) -> EvaluatorInfo:
        """What the evaluator declares about itself."""
        return self.evaluator_class.info


def _check_class(obj: Any) -> Optional[str]:
    """Why ``obj`` is not a usable evaluator class, or ``None`` if it is."""
    if not (inspect.isclass(obj) and issubclass(obj, Evaluator)):
        return f"it points at {obj!r}, which is not a subclass of agenteval.Evaluator"
    if inspect.isabstract(obj):
        missing = ", ".join(sorted(obj.__abstractmethods__))
        return f"{obj.__name__} does not implement {missing}"
    if not isinstance(getattr(obj, "info", None), EvaluatorInfo):
        return f"{obj.__name__}.info must be an agenteval.EvaluatorInfo"
    if not (inspect.isclass(obj.Params) and issubclass(obj.Params, BaseModel)):
        return f"{obj.__name__}.Params must be a pydantic model (subclass agenteval.Params)"
    return None


_INSTALLED: Optional[Registry] = None


class Registry:
    """Where criteria come from. ``Registry()`` reads installed entry points;
    ``Registry.from_classes({...})`` serves given classes (tests, embedding)."""

    def __init__(self, classes: Optional[Mapping[str, type[Evaluator]]] = None) -> None:
        self._classes = dict(classes) if classes is not None else None
        self._refs: Optional[dict[str, list[CriterionRef]]] = None
        self._entry_points: dict[tuple[str, str], importlib.metadata.EntryPoint] = {}
        self._loaded: dict[str, LoadedCriterion] = {}

    @classmethod
    def installed(cls) -> Registry:
        """The process-wide registry of installed entry points, discovered once.

        A plugin installed after the first call is seen by a new ``Registry()`` (or after
        ``Registry.forget_installed()``), not by this one.
        """
        global _INSTALLED
        if _INSTALLED is None:
            _INSTALLED = cls()
        return _INSTALLED

    @staticmethod
    def forget_installed() -> None:
        """Drop the cached ``Registry.installed()`` (for tests that install plugins)."""
        global _INSTALLED
        _INSTALLED = None

    @classmethod
    def from_classes(cls, classes: Mapping[str, type[Evaluator]]) -> Registry:
        """A registry of in-memory evaluator classes (no entry points involved)."""
        return cls(classes)

    # -- discovery (metadata only) -------------------------------------------------
    def _discover(self) -> dict[str, list[CriterionRef]]:
        if self._refs is not None:
            return self._refs
        refs: dict[str, list[CriterionRef]] = {}
        if self._classes is not None:
            for name, klass in self._classes.items():
                target = f"{klass.__module__}:{klass.__qualname__}"
                refs[name] = [CriterionRef(name, "<in-memory>", "0", target)]
        else:
            for ep in importlib.metadata.entry_points(group=CRITERIA_GROUP):
                dist = ep.dist
                dist_name, version = _name_and_version(dist)
                ref = CriterionRef(ep.name, dist_name, version, ep.value)
                same = [r for r in refs.get(ep.name, []) if r.distribution == dist_name]
                if not same:
                    refs.setdefault(ep.name, []).append(ref)
                    self._entry_points[(ep.name, dist_name)] = ep
        # Sorted by name, then by distribution: messages must not depend on disk order.
        self._refs = {n: sorted(group, key=lambda r: r.distribution) for n, group in sorted(refs.items())}
        return self._refs

    def refs(self) -> list[CriterionRef]:
        """Every installed criterion, sorted by name (duplicates listed once per dist)."""
        return [ref for group in self._discover().values() for ref in group]

    def names(self) -> list[str]:
        """The installed criterion names."""
        return list(self._discover())

    # -- loading (imports only what was asked for) ---------------------------------
    def load(self, names: Iterable[str]) -> dict[str, LoadedCriterion]:
        """Import and check the requested criteria; one ``CriterionLoadError`` for all
        problems (unknown, not installed, broken, duplicate)."""
        names = list(dict.fromkeys(names))
        if all(n in self._loaded for n in names):
            return {n: self._loaded[n] for n in names}
        discovered = self._discover()
        problems: list[str] = []
        unknown = [n for n in names if n not in discovered]
        duplicates = [n for n in names if len(discovered.get(n, ())) > 1]
        for name in duplicates:
            dists = " and ".join(r.display for r in discovered[name])
            problems.append(
                f"{name!r} is provided by more than one distribution ({dists}); uninstall one of them"
            )
        for name in unknown:
            problems.append(self._unknown_message(name))
        wanted = [n for n in names if n in discovered and n not in duplicates]
        classes, failures = self._import(wanted, discovered)
        for name in wanted:
            ref = discovered[name][0]
            if name in failures:
                problems.append(f"{ref.display} ({ref.target}) failed to load: {failures[name]}")
                continue
            why = _check_class(classes.get(name))
            if why:
                problems.append(
                    f"{ref.display} ({ref.target}) is not a valid criterion: {why}; "
                    f"report it to the maintainers of {ref.distribution}"
                )
        if problems:
            header = (
                "cannot load the requested criteria:"
                if len(problems) > 1
                else "cannot load a requested criterion:"
            )
            raise CriterionLoadError("\n".join([header, *(f"  - {p}" for p in problems)]))
        for name in wanted:
            self._loaded.setdefault(name, LoadedCriterion(discovered[name][0], classes[name]))
        return {n: self._loaded[n] for n in wanted}

    def _import(
        self, wanted: list[str], discovered: dict[str, list[CriterionRef]]
    ) -> tuple[dict[str, Any], dict[str, str]]:
        failures: dict[str, str] = {}
        if self._classes is not None:
            return {n: self._classes[n] for n in wanted}, failures
        if not wanted:
            return {}, failures

        def on_failure(_manager: Any, ep: importlib.metadata.EntryPoint, err: Exception) -> None:
            failures[ep.name] = _explain(err, discovered[ep.name][0])

        fresh = [self._entry_points[(n, discovered[n][0].distribution)] for n in wanted]
        manager = _FreshNamedManager(
            fresh,
            namespace=CRITERIA_GROUP,
            names=wanted,
            name_order=True,
            invoke_on_load=False,
            on_load_failure_callback=on_failure,
            on_missing_entrypoints_callback=lambda missing: None,
        )
        return {ext.name: ext.plugin for ext in manager.extensions}, failures

    def _unknown_message(self, name: str) -> str:
        installed = ", ".join(self.names()) or "(none)"
        if name in _NOT_YET_PROVIDED:
            return (
                f"{name!r} is an ADK 2.13 criterion, but it is not installed: it comes from "
                f"{_NOT_YET_PROVIDED[name]}. Installed criteria: {installed}"
            )
        from .loading._paths import suggest

        hint = suggest(name, self.names())
        guess = f"did you mean {hint!r}? " if hint else ""
        return (
            f"{name!r} is not an installed criterion; {guess}installed criteria: {installed}. "
            "A third-party criterion needs its distribution installed (pip install ...)"
        )


def _name_and_version(dist: Optional[importlib.metadata.Distribution]) -> tuple[str, str]:
    """A distribution's name and version; broken metadata (no ``Name``/``Version``) must
    not break discovery, so fall back to the metadata folder and ``"0"``."""
    if dist is None:
        return "<unknown>", "0"
    metadata = dist.metadata
    name = metadata.get("Name") if metadata is not None else None
    version = metadata.get("Version") if metadata is not None else None
    folder = getattr(dist, "_path", None)
    return name or (str(folder) if folder else "<unknown>"), version or "0"


def _explain(err: Exception, ref: CriterionRef) -> str:
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


class _FreshNamedManager(NamedExtensionManager):
    """A NamedExtensionManager over entry points we discovered ourselves."""

    def __init__(self, entry_points: list[importlib.metadata.EntryPoint], **kwargs: Any) -> None:
        self._fresh_entry_points = entry_points
        super().__init__(**kwargs)

    def list_entry_points(self) -> list[importlib.metadata.EntryPoint]:  # noqa: D102 - stevedore hook
        return self._fresh_entry_points

    def _load_one_plugin(self, ep: importlib.metadata.EntryPoint, *args: Any, **kwargs: Any) -> Any:
        # stevedore re-raises AssertionError (and never catches SystemExit); a plugin whose
        # module fails an ``assert`` or calls ``sys.exit`` at import time is a load failure too.
        try:
            return super()._load_one_plugin(ep, *args, **kwargs)
        except (AssertionError, SystemExit) as err:
            self._on_load_failure_callback(self, ep, err)
            return None


JUDGE_MODELS_GROUP = "agenteval.judge_models"


AGENTS_GROUP = "agenteval.agents"


USER_SIMULATORS_GROUP = "agenteval.user_simulators"


class ProviderRegistry:
    """Judge-model providers from the ``agenteval.judge_models`` entry points (or given
    classes). Like criteria: discovered from metadata, imported only when used. With
    ``group=AGENTS_GROUP`` (or ``USER_SIMULATORS_GROUP``) it serves agent adapters (or
    user simulators) the same way."""

    def __init__(
        self,
        classes: Optional[Mapping[str, type]] = None,
        *,
        group: str = JUDGE_MODELS_GROUP,
        kind: str = "judge model provider",
    ) -> None:
        self._group = group
        self._kind = kind
        self._classes = dict(classes) if classes is not None else None
        self._entry_points: Optional[dict[str, importlib.metadata.EntryPoint]] = None
        self._loaded: dict[str, type] = {}

    def _discover(self) -> dict[str, importlib.metadata.EntryPoint]:
        if self._entry_points is None:
            found: dict[str, importlib.metadata.EntryPoint] = {}
            if self._classes is None:
                for ep in importlib.metadata.entry_points(group=self._group):
                    found.setdefault(ep.name, ep)
            self._entry_points = found
        return self._entry_points

    def names(self) -> list[str]:
        """Installed provider names."""
        if self._classes is not None:
            return sorted(self._classes)
        return sorted(self._discover())

    def load(self, name: str) -> type:
        """The provider class; ``CriterionLoadError`` when unknown or broken."""
        if self._classes is not None:
            if name not in self._classes:
                raise CriterionLoadError(self._unknown(name))
            return self._classes[name]
        if name in self._loaded:
            return self._loaded[name]
        eps = self._discover()
        if name not in eps:
            raise CriterionLoadError(self._unknown(name))
        failures: dict[str, str] = {}
        ep = eps[name]
        dist_name, version = _name_and_version(ep.dist)

        def on_failure(_manager: Any, failed: importlib.metadata.EntryPoint, err: Exception) -> None:
            failures[failed.name] = _explain(err, CriterionRef(failed.name, dist_name, version, failed.value))

        manager = _FreshNamedManager(
            [ep],
            namespace=self._group,
            names=[name],
            invoke_on_load=False,
            on_load_failure_callback=on_failure,
            on_missing_entrypoints_callback=lambda missing: None,
        )
        if name in failures or not manager.extensions:
            why = failures.get(name, "it could not be imported")
            raise CriterionLoadError(f"{self._kind} {dist_name}[{name}] ({ep.value}) failed to load: {why}")
        self._loaded[name] = manager.extensions[0].plugin
        return self._loaded[name]

    def _unknown(self, name: str) -> str:
        installed = ", ".join(self.names()) or "(none)"
        return f"no {self._kind} {name!r} is installed; installed: {installed}"
