"""The google-genai request models a Gemini judge call is built from, with ``name in model``
answered at once.

google-genai turns a request's models into the wire dict by asking ``"field" in model`` for
every field it knows. A pydantic model has no ``__contains__``, so Python answers by
iterating the model — its ``(name, value)`` pairs, every field each time — and a string is
never equal to a pair: the answer is always ``False`` and the SDK then reads the attribute.
On a ``GenerateContentConfig`` (dozens of fields) that walk, repeated for each field the SDK
looks up, was most of the CPU of building a request.

The subclasses here answer ``False`` for a string without the walk, and anything else as
the walk would, so the SDK builds the identical request (a test compares the bodies sent).
They add no field and change no validation; the SDK keeps a subclass instance as given.
"""

from __future__ import annotations

import functools
from typing import Any, NamedTuple

__all__ = ["RequestModels", "request_models"]


class _AnswersMembershipAtOnce:
    """``item in model``: ``False`` for a string (a model iterates ``(name, value)`` pairs,
    never strings); otherwise what iterating the model gives."""

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return False
        return any(pair == item for pair in self)  # type: ignore[attr-defined]


class RequestModels(NamedTuple):
    """The three model classes a judge request is made of."""

    config: Any
    content: Any
    part: Any

    def user_text(self, text: str) -> Any:
        """``text`` as one user turn, as the SDK would make it from the bare string."""
        return self.content(role="user", parts=[self.part(text=text)])


@functools.lru_cache(maxsize=1)
def request_models() -> RequestModels:
    """The subclasses, made once (google-genai is imported here, on the first call)."""
    from google.genai import types

    class GenerateContentConfig(_AnswersMembershipAtOnce, types.GenerateContentConfig):
        pass

    class Content(_AnswersMembershipAtOnce, types.Content):
        pass

    class Part(_AnswersMembershipAtOnce, types.Part):
        pass

    return RequestModels(GenerateContentConfig, Content, Part)
