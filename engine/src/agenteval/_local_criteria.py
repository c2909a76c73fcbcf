"""Criteria that live in the user's project rather than in an installed plugin.

Two forms, both found and imported while the run is planned (an import problem stops the
run with exit 2, naming the file, the line when known, and the error, before any agent or
judge call):

* **a function criterion**, named on ``--criteria`` or as a config's criteria key:
  ``path/to/metrics.py:fn`` (a file, relative to the config's folder, else to the current
  directory) or ``package.module:fn`` (a module found as below). ``fn`` is a plain function
  (``agenteval._function_criteria`` says what it takes and returns; default threshold
  1.0, scores in [0, 1]) or an ``agenteval.Evaluator`` subclass (e.g. one made with
  ``@agenteval.function_criterion``, which sets its own range and threshold);
* **an ADK custom metric**: a criterion that the config's ``custom_metrics`` section
  defines (``code_config.name: "package.module.fn"``), called with ADK's own objects by the
  installed *custom metric runner* (entry-point group ``agenteval.custom_metric_runners``,
  provided by agenteval-adk). As in ADK, the ``custom_metrics`` entry wins over an
  installed criterion of the same name.

A dotted module is looked up in the config's folder and each folder above it, then in the
current directory: the first folder that holds the module's file (``a/b.py`` or
``a/b/__init__.py`` for ``a.b``) is put at the front of ``sys.path``; when none does,
Python's own ``sys.path`` is used (an installed package). A file's folder is put on
``sys.path`` too, so it can import its neighbours. Imported modules stay imported, as in ADK.

``LocalCriteria`` serves these next to the installed criteria (it has the ``Registry``
methods the planner uses). The run folder's manifest records each one's file and sha256
(``CriterionEntry.describe``), so ``--resume`` refuses a changed file. One name is one
function per run: the same name defined differently by two configs is an error.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ._registry import CriterionRef, LoadedCriterion, Registry
from .errors import ConfigError, PluginLoadError

__all__ = ["LocalCriteria", "import_local_function", "is_local_reference", "local_source"]

#: The class attribute that holds where a local criterion's code came from.
_SOURCE_ATTRIBUTE = "_agenteval_local_source"
_RUNNERS_GROUP = "agenteval.custom_metric_runners"
_ADK_RUNNER = "adk"
#: The distribution named for a criterion from the user's project.
LOCAL_DISTRIBUTION = "local"
#: The start of an ADK custom metric's entry point (``custom_metrics:package.module.fn``).
CUSTOM_METRIC_PREFIX = "custom_metrics:"


def is_local_reference(name: str) -> bool:
    """Whether a criterion name points at code in the project (``file.py:fn``,
    ``package.module:fn``): installed criteria names never hold a colon."""
    return ":" in name


def local_source(evaluator: object) -> dict[str, Any]:
    """Where a local criterion's code came from (file, sha256...), else ``{}``."""
    return dict(getattr(type(evaluator), _SOURCE_ATTRIBUTE, None) or {})


def _sha256(path: Optional[Path]) -> Optional[str]:
    if path is None:
        return None
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _put_on_path(folder: Path) -> None:
    entry = str(folder)
    if entry not in sys.path:
        sys.path.insert(0, entry)


def _where_raised(exc: BaseException) -> str:
    """``file:line`` of the innermost frame that raised (or of a syntax error)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        column = f":{exc.offset}" if exc.offset else ""
        return f"{exc.filename}:{exc.lineno}{column}: "
    frames = traceback.extract_tb(exc.__traceback__)
    user = [f for f in frames if "importlib" not in f.filename and f.filename != __file__]
    innermost = user or frames
    frame = innermost[-1] if innermost else None
    return f"{frame.filename}:{frame.lineno}: " if frame is not None else ""


def _describe_exception(exc: BaseException) -> str:
    message = exc.msg if isinstance(exc, SyntaxError) else str(exc)
    return f"{_where_raised(exc)}{type(exc).__name__}: {message}"


def _module_file(root: Path, module: str) -> Optional[Path]:
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _roots(config_dir: Optional[Path]) -> list[Path]:
    roots = []
    if config_dir is not None:
        roots.extend([config_dir, *config_dir.parents])
    roots.append(Path.cwd())
    return list(dict.fromkeys(roots))


class _ImportProblem(Exception):
    """Why user code could not be imported (the message is complete)."""


def _import_module(module: str, config_dir: Optional[Path]) -> Any:
    roots = _roots(config_dir)
    found = next((root for root in roots if _module_file(root, module)), None)
    if found is not None:
        _put_on_path(found)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name and module.startswith(exc.name) and found is None:
            looked = ", ".join(str(r) for r in roots)
            raise _ImportProblem(
                f"no module {module!r}: not in {looked}, nor installed. Put the module there, "
                "or fix the dotted path"
            ) from None
        raise _ImportProblem(_describe_exception(exc)) from None
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the module raised while being imported
        raise _ImportProblem(_describe_exception(exc)) from None


_FILE_MODULES: dict[Path, Any] = {}


def _import_file(path: Path) -> Any:
    if path in _FILE_MODULES:
        return _FILE_MODULES[path]
    digest = hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    name = f"_agenteval_local_{path.stem if path.stem.isidentifier() else 'module'}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise _ImportProblem(f"{path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    _put_on_path(path.parent)
    sys.modules[name] = module  # dataclasses and pickling look the module up
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - the file raised while being run
        del sys.modules[name]
        raise _ImportProblem(_describe_exception(exc)) from None
    _FILE_MODULES[path] = module
    return module


def _attribute(module: Any, name: str, where: str) -> Any:
    if hasattr(module, name):
        return getattr(module, name)
    from ._loading._paths import suggest

    public = [n for n, v in vars(module).items() if not n.startswith("_") and callable(v)]
    guess = suggest(name, public)
    hint = f"did you mean {guess!r}? " if guess else ""
    listed = ", ".join(sorted(public)) or "(none)"
    raise _ImportProblem(f"{where} has no {name!r}; {hint}functions and classes there: {listed}")


def _resolve_file(text: str, config_dir: Optional[Path]) -> Path:
    given = Path(text).expanduser()
    if given.is_absolute():
        bases = [given]
    else:
        bases = [*([config_dir / given] if config_dir is not None else []), Path.cwd() / given]
    for candidate in dict.fromkeys(bases):
        if candidate.is_file():
            return candidate.resolve()
    looked = " or ".join(str(c) for c in dict.fromkeys(bases))
    raise _ImportProblem(f"no file {text!r} (looked for {looked})")


@dataclass
class _Local:
    """One local criterion: its class once built, and what identifies its definition."""

    name: str
    identity: str
    where: str
    ref: CriterionRef
    source: dict[str, Any]
    evaluator_class: Optional[type] = None
    build: Optional[Callable[[Sequence[str]], type]] = None
    param_keys: set[str] = field(default_factory=set)


class LocalCriteria:
    """The installed criteria (``registry``) plus the local ones requested by configs and
    ``--criteria`` (see the module docstring); the planner's criterion source."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self._local: dict[str, _Local] = {}

    # -- what the planner and resolve_criteria use ----------------------------------
    def names(self) -> list[str]:
        return sorted({*self.registry.names(), *self._local})

    def load(self, names: Iterable[str]) -> dict[str, LoadedCriterion]:
        names = list(dict.fromkeys(names))
        installed = self.registry.load([n for n in names if n not in self._local])
        loaded = dict(installed)
        for name in names:
            if name in self._local:
                loaded[name] = self._loaded(self._local[name])
        return {name: loaded[name] for name in names}

    # -- adding local criteria ------------------------------------------------------
    def add_function(self, name: str, config_dir: Optional[Path], where: str) -> None:
        """``file.py:fn`` or ``package.module:fn``, imported now; ``ConfigError`` if it
        cannot be."""
        from ._evaluator import Evaluator
        from ._function_criteria import function_criterion, signature_problem

        attribute = name.rpartition(":")[2]
        try:
            target, path = _import_reference(name, config_dir)
            if inspect.isclass(target) and issubclass(target, Evaluator):
                klass = target
            elif callable(target) and not inspect.isclass(target):
                problem = signature_problem(target)
                if problem:
                    line = _line_of(target)
                    raise _ImportProblem(f"{line}{attribute} cannot be a criterion: {problem}")
                klass = function_criterion(threshold=1.0)(target)
            else:
                raise _ImportProblem(
                    f"{attribute} is {type(target).__name__}, not a function or an agenteval.Evaluator class"
                )
        except _ImportProblem as exc:
            raise ConfigError(f"local criterion {name!r} cannot be loaded: {exc}", source=where) from None
        sha = _sha256(path)
        source = {
            "kind": "function",
            "file": str(path) if path else None,
            "sha256": sha,
            "function": attribute,
        }
        self._add(
            _Local(
                name=name,
                identity=f"{path}:{attribute}:{sha}",
                where=where,
                ref=CriterionRef(name, LOCAL_DISTRIBUTION, (sha or "0")[:12], name),
                source=source,
                evaluator_class=_with_source(klass, source),
            )
        )

    def add_custom_metric(
        self, name: str, raw: Any, params: Mapping[str, Any], config_dir: Optional[Path], where: str
    ) -> None:
        """ADK's ``custom_metrics.<name>``: the runner must be installed and the function
        importable, else ``ConfigError`` / ``PluginLoadError`` (exit 2)."""
        from ._loading._custom_metrics import parse_custom_metric
        from ._plugins import KINDS, PluginFinder, install_hint

        spec = parse_custom_metric(name, raw, where)
        problem = spec.problem_for_use()
        if problem:
            raise ConfigError(f"custom_metrics.{name}.{problem}", source=where)
        dotted = spec.function_path
        finder = PluginFinder(KINDS[_RUNNERS_GROUP])
        if _ADK_RUNNER not in finder.names():
            hint = install_hint("custom metric runner", _ADK_RUNNER) or "agenteval-adk"
            raise ConfigError(f"custom metric {name!r} ({dotted}) needs {hint}", source=where)
        module_name, _, attribute = dotted.rpartition(".")
        try:
            module = _import_module(module_name, config_dir)
            function = _attribute(module, attribute, f"module {module_name!r}")
            if not callable(function):
                raise _ImportProblem(f"{dotted} is {type(function).__name__}, not a function")
        except _ImportProblem as exc:
            msg = (
                f"custom_metrics.{name}.code_config.name: cannot import {dotted!r} "
                f"(module {module_name!r}): {exc}"
            )
            raise ConfigError(msg, source=where) from None
        path = Path(module.__file__).resolve() if getattr(module, "__file__", None) else None
        sha = _sha256(path)
        source = {
            "kind": "adk_custom_metric",
            "function": dotted,
            "file": str(path) if path else None,
            "sha256": sha,
        }
        runner_ref = next(r for r in finder.refs() if r.name == _ADK_RUNNER)
        ref = CriterionRef(
            name, runner_ref.distribution, runner_ref.version, f"{CUSTOM_METRIC_PREFIX}{dotted}"
        )
        definition = json.dumps(spec.model_dump(mode="json"), sort_keys=True)

        def build(param_keys: Sequence[str]) -> type:
            runner = finder.load_one(_ADK_RUNNER)
            return runner(function, name=name, path=dotted, spec=spec.model_dump(), param_keys=param_keys)

        self._add(
            _Local(
                name=name,
                identity=f"{dotted}:{path}:{sha}:{definition}",
                where=where,
                ref=ref,
                source=source,
                build=build,
                param_keys=set(params),
            )
        )

    def _add(self, local: _Local) -> None:
        known = self._local.get(local.name)
        if known is None:
            self._local[local.name] = local
            return
        if known.identity != local.identity:
            msg = (
                f"criterion {local.name!r} is defined differently in {known.where} "
                f"({known.source.get('file')}) and in {local.where} ({local.source.get('file')}); "
                "one name is one function per run: give them different names or paths"
            )
            raise ConfigError(msg)
        known.param_keys |= local.param_keys

    def _loaded(self, local: _Local) -> LoadedCriterion:
        from ._contracts import evaluator_class_problem

        if local.evaluator_class is None:
            assert local.build is not None
            klass = local.build(sorted(local.param_keys))
            local.evaluator_class = _with_source(klass, local.source)
        problem = evaluator_class_problem(local.evaluator_class)
        if problem:
            raise PluginLoadError(
                f"{local.where}: criterion {local.name!r} is not a valid criterion: {problem}"
            )
        return LoadedCriterion(local.ref, local.evaluator_class)


def _import_reference(reference: str, config_dir: Optional[Path]) -> tuple[Any, Optional[Path]]:
    """What ``path/to/file.py:name`` or ``package.module:name`` names, and its file."""
    module_reference, _, attribute = reference.rpartition(":")
    if not module_reference or not attribute.isidentifier():
        raise _ImportProblem(
            "write path/to/file.py:function or package.module:function (a colon, then the function's name)"
        )
    if module_reference.endswith(".py") or "/" in module_reference or "\\" in module_reference:
        file = _resolve_file(module_reference, config_dir)
        module = _import_file(file)
        path: Optional[Path] = file
    else:
        module = _import_module(module_reference, config_dir)
        path = Path(module.__file__).resolve() if getattr(module, "__file__", None) else None
    return _attribute(module, attribute, str(path) if path else module_reference), path


def import_local_function(reference: str, config_dir: Optional[Path] = None) -> Callable[..., Any]:
    """The function ``path/to/file.py:fn`` or ``package.module:fn`` names, found and imported
    as local criteria are (a file relative to ``config_dir``, else to the current folder; a
    dotted module in ``config_dir`` or a folder above it, the current folder, or installed).

    For plugins whose parameters name user code (a field matcher, a hook). Raises
    ``ValueError`` with the whole story (the file, the line when known, the error, the fix)
    when it cannot be imported or is not a function.
    """
    try:
        target, _ = _import_reference(reference, config_dir)
    except _ImportProblem as exc:
        raise ValueError(f"{reference!r} cannot be loaded: {exc}") from None
    if inspect.isclass(target) or not callable(target):
        raise ValueError(f"{reference!r} is {type(target).__name__}, not a function")
    return target


def _line_of(function: Any) -> str:
    try:
        code = function.__code__
        return f"{code.co_filename}:{code.co_firstlineno}: "
    except AttributeError:
        return ""


def _with_source(klass: type, source: Mapping[str, Any]) -> type:
    """A subclass of ``klass`` that says where its code came from (``local_source``)."""
    namespace = {
        _SOURCE_ATTRIBUTE: dict(source),
        "__module__": klass.__module__,
        "__qualname__": klass.__qualname__,
        "__doc__": klass.__doc__,
    }
    return type(klass.__name__, (klass,), namespace)
