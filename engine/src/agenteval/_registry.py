"""Where plugins come from: ``Registry`` for criteria and ``ProviderRegistry`` for the
other kinds, both views of the one plugin finder (``agenteval._plugins``).

Discovery reads installed metadata and never imports a plugin; loading imports exactly the
requested names and raises one ``PluginLoadError`` listing every problem. A broken plugin
nobody asked for is never imported, so it cannot break a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from ._evaluator import Evaluator, EvaluatorInfo
from ._plugins import KINDS, PluginFinder, PluginRef
from ._results import PluginInfo

__all__ = [
    "AGENTS_GROUP",
    "CRITERIA_GROUP",
    "FORMATS_GROUP",
    "FORMAT_WRITERS_GROUP",
    "JUDGE_MODELS_GROUP",
    "USER_SIMULATORS_GROUP",
    "CriterionRef",
    "LoadedCriterion",
    "ProviderRegistry",
    "Registry",
    "installed_distributions",
]

CRITERIA_GROUP = "agenteval.criteria"
JUDGE_MODELS_GROUP = "agenteval.judge_models"
AGENTS_GROUP = "agenteval.agents"
USER_SIMULATORS_GROUP = "agenteval.user_simulators"
FORMATS_GROUP = "agenteval.formats"
FORMAT_WRITERS_GROUP = "agenteval.format_writers"
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class CriterionRef(PluginRef):
    """An installed criterion, known from metadata only (nothing imported)."""

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


def _criterion_ref(ref: PluginRef) -> CriterionRef:
    return CriterionRef(ref.name, ref.distribution, ref.version, ref.target)


_INSTALLED: Optional[Registry] = None


class Registry:
    """Where criteria come from. ``Registry()`` reads installed entry points;
    ``Registry.from_classes({...})`` serves given classes (tests, embedding)."""

    def __init__(self, classes: Optional[Mapping[str, type[Evaluator]]] = None) -> None:
        self._finder = PluginFinder(KINDS[CRITERIA_GROUP], classes)
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

    def refs(self) -> list[CriterionRef]:
        """Every installed criterion, sorted by name (duplicates listed once per dist)."""
        return [_criterion_ref(ref) for ref in self._finder.refs()]

    def names(self) -> list[str]:
        """The installed criterion names."""
        return self._finder.names()

    def load(self, names: Iterable[str]) -> dict[str, LoadedCriterion]:
        """Import and check the requested criteria; one ``PluginLoadError`` for all
        problems (unknown, not installed, broken, not keeping the contract, duplicate)."""
        loaded = self._finder.load_many(names)
        for name, item in loaded.items():
            if name not in self._loaded:
                self._loaded[name] = LoadedCriterion(_criterion_ref(item.ref), item.obj)
        return {name: self._loaded[name] for name in loaded}


class ProviderRegistry(PluginFinder):
    """The plugins of one of the other kinds (judge-model providers by default; agent
    adapters with ``group=AGENTS_GROUP``, user simulators with ``USER_SIMULATORS_GROUP``),
    from installed entry points or given classes."""

    def __init__(
        self,
        classes: Optional[Mapping[str, type]] = None,
        *,
        group: str = JUDGE_MODELS_GROUP,
        kind: Optional[str] = None,
    ) -> None:
        super().__init__(KINDS[group], classes)

    def load(self, name: str) -> type[Any]:
        """The plugin class named ``name``; ``PluginLoadError`` when unknown or broken."""
        return self.load_one(name)


def installed_distributions() -> dict[str, str]:
    """Every distribution that provides a plugin of any kind, by version (metadata only)."""
    found: dict[str, str] = {}
    for kind in KINDS.values():
        for ref in PluginFinder(kind).refs():
            found[ref.distribution] = ref.version
    return dict(sorted(found.items()))
