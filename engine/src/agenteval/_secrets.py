"""Keeping credentials out of everything agenteval records or prints.

``scrub_secrets(text)`` replaces the value of every credential in use with ``[redacted]``:
the values of environment variables whose names say they hold one (``*_API_KEY``,
``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ``*_KEY``...) plus any value a provider or an
adapter registered with ``register_secret`` (a key read from a file, a bearer token).
Values shorter than 6 characters are left alone (``1``, ``true``): they would redact
ordinary words, and they are not credentials worth the name.

``redact_secrets(value)`` is for what is written to describe a run (the manifest): in text,
the values of ``key=``/``token=``... parameters, a URL's password and ``Bearer`` tokens
become ``***``; in mappings, so does every string under a credential-named key
(``api_key``, ``token``, ``Authorization``...); credential values in use are scrubbed as
above. Each value it hides is registered, so echoes of it are scrubbed everywhere.

``endpoint_override_warnings(env_file)`` is the ``.env`` check: a ``.env`` that sets an
endpoint (``OPENAI_BASE_URL``...) while the matching key comes from elsewhere would send
the user's own key to that endpoint; each such pair gets one warning naming both.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, TypeVar

from pydantic import BaseModel

__all__ = [
    "REDACTED",
    "Scrubber",
    "endpoint_override_warnings",
    "redact_argv",
    "redact_secrets",
    "register_secret",
    "register_secrets_in",
    "scrub_secrets",
    "scrubbed_bytes",
    "secret_values",
]

REDACTED = "[redacted]"
_MIN_LENGTH = 6
#: Environment variable names that hold credentials.
_SECRET_NAME = re.compile(r"(API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)
#: Names that match the pattern above but hold no secret (paths, switches).
_NOT_SECRET = {"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_GENAI_USE_VERTEXAI"}

_registered: set[str] = set()
#: Bumped by each new registered value, so a ``Scrubber`` knows to rebuild its pattern.
_generation = 0
_lock = threading.Lock()

#: Endpoint variables and the key variables whose values go to that endpoint.
_ENDPOINT_KEYS: dict[str, tuple[str, ...]] = {
    "OPENAI_BASE_URL": ("OPENAI_API_KEY",),
    "OPENAI_API_BASE": ("OPENAI_API_KEY",),
    "GOOGLE_GEMINI_BASE_URL": ("GOOGLE_API_KEY", "GEMINI_API_KEY"),
    "GOOGLE_VERTEX_BASE_URL": ("GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"),
    "ANTHROPIC_BASE_URL": ("ANTHROPIC_API_KEY",),
    "AZURE_OPENAI_ENDPOINT": ("AZURE_OPENAI_API_KEY",),
}


def register_secret(value: Optional[str]) -> None:
    """Scrub ``value`` too from now on (a credential that is not in the environment)."""
    global _generation
    if value and len(value) >= _MIN_LENGTH:
        with _lock:
            if value not in _registered:
                _registered.add(value)
                _generation += 1


def _environment_secrets(environ: Optional[Mapping[str, str]]) -> set[str]:
    env = os.environ if environ is None else environ
    return {
        value.strip()
        for name, value in env.items()
        if name.upper() not in _NOT_SECRET and _SECRET_NAME.search(name) and value
    }


def _longest_first(values: set[str]) -> list[str]:
    return sorted((v for v in values if len(v) >= _MIN_LENGTH), key=len, reverse=True)


def secret_values(environ: Optional[Mapping[str, str]] = None) -> list[str]:
    """The credential values to scrub, longest first (so a key that contains another is
    replaced whole)."""
    with _lock:
        registered = set(_registered)
    return _longest_first(_environment_secrets(environ) | registered)


def _pattern(values: list[str]) -> Optional[re.Pattern[str]]:
    # Longest first: at each position the longest value wins, as with one replace per value.
    return re.compile("|".join(map(re.escape, values))) if values else None


def scrub_secrets(text: str, environ: Optional[Mapping[str, str]] = None) -> str:
    """``text`` with every credential value in use replaced by ``[redacted]``.

    ``text`` that is not a ``str`` is returned unchanged. Reads the environment on every
    call: meant for error messages; bulk data (a run's records) goes through a ``Scrubber``."""
    if not isinstance(text, str) or not text:
        return text
    pattern = _pattern(secret_values(environ))
    return pattern.sub(REDACTED, text) if pattern is not None else text


def scrubbed_bytes(data: bytes, scrub: Callable[[str], str]) -> bytes:
    """``data`` (UTF-8 text, lone surrogates passed through) with ``scrub`` (e.g. a
    ``Scrubber``) applied: ``data`` itself when it hides nothing (no encoding again)."""
    text = data.decode("utf-8", "surrogatepass")
    kept = scrub(text)
    return data if kept is text else kept.encode("utf-8", "surrogatepass")


#: Up to this many credential values, a ``Scrubber`` looks for each with ``in`` before it
#: runs the pattern: values that start differently leave the pattern no literal prefix to
#: search for, and it then tries every position of the text (about 20x slower on a run's
#: records with two such values; a search per value costs less up to a few dozen).
_SEARCHED_ALONE = 32


class Scrubber:
    """``scrub_secrets`` for bulk text: the environment's credential values are read once,
    when it is made (a run's environment is settled before the run starts); values
    registered later with ``register_secret`` are still picked up. A text that holds none
    of the values is returned as it is; one that holds any is scanned once by the pattern."""

    def __init__(self, environ: Optional[Mapping[str, str]] = None) -> None:
        self._environment = _environment_secrets(environ)
        self._generation = -1
        self._compiled: Optional[re.Pattern[str]] = None
        self._values: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        if self._generation != _generation:
            with _lock:
                self._generation = _generation
                values = self._environment | _registered
            ordered = _longest_first(values)
            self._compiled = _pattern(ordered)
            self._values = tuple(ordered) if len(ordered) <= _SEARCHED_ALONE else ()
        if self._compiled is None or not isinstance(text, str):
            return text
        if self._values and not any(value in text for value in self._values):
            return text
        return self._compiled.sub(REDACTED, text)


#: What ``redact_secrets`` and ``redact_argv`` put in place of a credential.
HIDDEN = "***"
#: Setting names (mapping keys, URL parameters) whose values are credentials; ``max_tokens``
#: and the like (a count, not a token) are not.
_SECRET_SETTING = re.compile(
    r"(api[_-]?key|apikey|(^|[_-])key$|token$|secret|passw(or)?d|credential|authorization|^auth$|^sig(nature)?$)",
    re.IGNORECASE,
)
_URL_PARAMETER = re.compile(r"(?P<lead>^|[?&;\s])(?P<name>[\w.-]+)=(?P<value>[^&#\s]+)")
_URL_PASSWORD = re.compile(r"(?P<lead>[a-z][\w+.-]*://[^/@\s:]*:)(?P<value>[^/@\s]+)(?=@)", re.IGNORECASE)
_BEARER = re.compile(r"(?P<lead>\b(?:bearer|basic)\s+)(?P<value>[\w~+/.=-]{6,})", re.IGNORECASE)
Redactable = TypeVar("Redactable")


def _hide(value: str) -> str:
    register_secret(value)
    return HIDDEN


def _redact_text(text: str, scrub: Scrubber) -> str:
    def pair(match: re.Match[str]) -> str:
        if not _SECRET_SETTING.search(match["name"]):
            return match.group()
        return f"{match['lead']}{match['name']}={_hide(match['value'])}"

    if "@" in text:
        text = _URL_PASSWORD.sub(lambda m: m["lead"] + _hide(m["value"]), text)
    if " " in text:
        text = _BEARER.sub(lambda m: m["lead"] + _hide(m["value"]), text)
    if "=" in text:
        text = _URL_PARAMETER.sub(pair, text)
    return scrub(text)


def _redact(value: Any, scrub: Scrubber) -> Any:
    if isinstance(value, str):
        return _redact_text(value, scrub)
    if isinstance(value, dict):
        return {
            key: _hide(item)
            if isinstance(key, str) and isinstance(item, str) and item and _SECRET_SETTING.search(key)
            else _redact(item, scrub)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_redact(item, scrub) for item in value)
    return value


def redact_secrets(value: Redactable) -> Redactable:
    """``value`` (text, plain data or a pydantic model) with its credentials hidden (see the
    module docstring); a model comes back as a new model of the same class."""
    scrub = Scrubber()
    if isinstance(value, BaseModel):
        return type(value).model_validate(_redact(value.model_dump(mode="python", by_alias=True), scrub))
    return _redact(value, scrub)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line with its credentials hidden: the value of a credential-named flag
    (``--api-key X``, ``--token=X``) and, in any other argument, what ``redact_secrets``
    hides in text (``?key=X`` in a URL, ``user:password@``, ``Bearer X``)."""
    scrub = Scrubber()
    redacted: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next:
            redacted.append(_hide(arg))
            hide_next = False
            continue
        flag, eq, value = arg.partition("=")
        if flag.startswith("-") and _SECRET_SETTING.search(flag.lstrip("-")):
            redacted.append(f"{flag}={_hide(value)}" if eq else arg)
            hide_next = not eq
            continue
        redacted.append(_redact_text(arg, scrub))
    return redacted


def register_secrets_in(value: Any) -> None:
    """Scrub from now on every credential ``redact_secrets`` would hide in ``value`` (a
    judge's ``judge_model_config`` with an ``api_key``): echoes of it never reach a record
    or the judge cache."""
    redact_secrets(value)


def _read_env_file(path: Path) -> dict[str, str]:
    from dotenv import dotenv_values

    return {name: value for name, value in dotenv_values(path).items() if value is not None}


def endpoint_override_warnings(env_file: Path, environ: Optional[Mapping[str, str]] = None) -> list[str]:
    """Warnings for ``env_file`` (a ``.env`` about to be loaded without overriding):
    each endpoint it sets (and the environment does not) whose key comes from the
    environment instead of the same file. Call it before loading the file; an unreadable
    file gives no warning (loading it reports the problem)."""
    env = os.environ if environ is None else environ
    try:
        values = _read_env_file(Path(env_file))
    except (OSError, UnicodeDecodeError):
        return []
    warnings = []
    for endpoint, keys in _ENDPOINT_KEYS.items():
        if not values.get(endpoint) or env.get(endpoint):
            continue  # not set by the file, or the environment's value wins
        from_elsewhere = [key for key in keys if env.get(key) and not values.get(key)]
        if from_elsewhere:
            names = " and ".join(from_elsewhere)
            warnings.append(
                f"{env_file}: sets {endpoint}={values[endpoint]!r} while {names} comes from your "
                f"environment, so that key would be sent to {values[endpoint]!r}; set {names} in the "
                f"same file too if this is intended, or remove {endpoint} from it"
            )
    return warnings
