"""Keeping the cyclic garbage collector off agenteval's bulk data.

Loading an eval file builds hundreds of thousands of long-lived objects with no reference
cycles; a run then works with them for minutes. Left to the collector, every young pass
would walk the new objects and every full pass would walk them all again. Two tools:

* ``gc_paused()`` around building many objects at once: the collector is off, and what was
  built is filed straight under the oldest generation (``gc.freeze()`` + ``gc.unfreeze()``).
* ``data_frozen()`` around a whole run: every object alive at its start is set aside
  (``gc.freeze()``) until its end.

Both leave a host application's own ``gc.freeze()`` alone. ``gc.get_freeze_count()`` walks
every frozen object, so it is asked once per ``data_frozen`` and never inside one.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["data_frozen", "gc_paused"]

#: True while a run has frozen the data (nested pauses then leave the freeze alone).
_run_frozen = False


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the collector while building many objects; file them under the oldest
    generation afterwards (see the module docstring)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if not _run_frozen and not gc.get_freeze_count():
            gc.freeze()
            gc.unfreeze()
        if enabled:
            gc.enable()


@contextmanager
def data_frozen() -> Iterator[None]:
    """Set every object alive now aside from the collector until the block ends (skipped
    when the host application froze objects itself, so that its freeze is never undone)."""
    global _run_frozen
    if _run_frozen or gc.get_freeze_count():
        yield
        return
    gc.freeze()
    _run_frozen = True
    try:
        yield
    finally:
        _run_frozen = False
        gc.unfreeze()
