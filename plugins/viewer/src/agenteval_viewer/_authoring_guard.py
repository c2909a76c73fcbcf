"""Who may write, and where: the safety rules of ``agenteval view --allow-write`` (the token
and origin rules, ``SessionToken``, also guard the labelling route, ``_labels_api``).

* **A per-session token.** ``WriteGuard`` makes a random token when the server starts; the
  command prints it in the address it opens (``#/author?token=...``: a hash is never sent to
  a server or kept in a referrer). Every request of the authoring API must carry it in the
  ``X-Agenteval-Token`` header (compared in constant time). A page on another site cannot
  read the token and cannot set that header on a cross-site request without a preflight
  the server never answers, so it cannot write.
* **Same origin only.** A request whose ``Origin`` header is present and is not this
  server's own address is refused, as is ``Sec-Fetch-Site: cross-site``.
* **Paths stay inside the eval-set folders** the viewer was started with. A client names a
  file by the index of its folder and a relative path; an absolute path, a ``..`` / ``.`` /
  empty segment, a backslash, a NUL or a path that resolves (through a symbolic link) out
  of its folder is refused with a ``PathRefused`` naming the reason.

Refusals are ``GuardRefused`` (HTTP 403) and ``PathRefused`` (400); both carry a message
for the JSON ``{"error": ...}`` body.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

__all__ = ["TOKEN_HEADER", "GuardRefused", "PathRefused", "SessionToken", "WriteGuard", "WriteRoot"]

#: The request header that carries the session's token.
TOKEN_HEADER = "X-Agenteval-Token"
#: The longest file or folder name most file systems take, and the longest path Linux takes,
#: in bytes (longer ones are refused here, not left to fail as ``ENAMETOOLONG`` wherever the
#: file is looked at).
_NAME_MAX, _PATH_MAX = 255, 4096


class GuardRefused(Exception):
    """A request the authoring API refuses (HTTP 403)."""

    status = 403


class PathRefused(Exception):
    """A file path outside the eval-set folders, or malformed (HTTP 400)."""

    status = 400


@dataclass(frozen=True)
class WriteRoot:
    """One eval-set folder writes may touch: ``index`` is how clients name it."""

    index: int
    folder: Path

    @property
    def label(self) -> str:
        return self.folder.name or str(self.folder)


class SessionToken:
    """A write route's per-session token, and the same-origin rule; ``screen`` names what
    needs it in the refusals."""

    def __init__(self, token: Optional[str] = None, screen: str = "writing") -> None:
        self.token = token or secrets.token_urlsafe(24)
        self.screen = screen

    def check_request(self, headers: Mapping[str, str], own_origins: Sequence[str]) -> None:
        """Refuse (``GuardRefused``) a request without this session's token, or from
        another origin. ``own_origins`` are this server's ``scheme://host:port`` forms."""
        given = headers.get(TOKEN_HEADER) or ""
        if not given:
            raise GuardRefused(
                f"{self.screen} needs the session's token in the {TOKEN_HEADER} header; "
                "open the address agenteval view printed (it carries the token)"
            )
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode()):
            raise GuardRefused(
                "wrong session token: this viewer was restarted or the token is not its own; open the "
                "address agenteval view printed"
            )
        origin = headers.get("Origin")
        if origin is not None and origin.lower() not in {o.lower() for o in own_origins}:
            raise GuardRefused(f"requests from another origin ({origin[:100]!r}) may not write")
        if (headers.get("Sec-Fetch-Site") or "").lower() == "cross-site":
            raise GuardRefused("cross-site requests may not write")


class WriteGuard(SessionToken):
    """The token and the folders of one ``--allow-write`` session.

    ``folders`` must exist; they are resolved once (symbolic links followed), and a file is
    inside a folder when its own resolved path is.
    """

    def __init__(self, folders: Sequence[Path], token: Optional[str] = None) -> None:
        if not folders:
            raise ValueError("give at least one eval-set folder")
        super().__init__(token, "the Eval sets screen")
        self.roots = tuple(WriteRoot(i, Path(f).resolve(strict=True)) for i, f in enumerate(folders))

    # ------------------------------------------------------------------ paths

    def root(self, index: object) -> WriteRoot:
        """The folder numbered ``index`` (an int, or its decimal string)."""
        if isinstance(index, str) and index.isascii() and index.isdigit():
            index = int(index)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.roots):
            raise PathRefused(f"no eval-set folder {index!r}; there are {len(self.roots)} (0-based)")
        return self.roots[index]

    def resolve(self, index: object, relative: object, *, must_exist: bool = True) -> Path:
        """The file ``relative`` (slash-separated) inside folder ``index``, resolved.

        Refused: a non-string or empty path, an absolute one, a segment that is empty,
        ``.`` or ``..``, a backslash, a NUL, a control character, a name or a whole path
        longer than the file system takes, or a path that resolves outside the folder (a
        symbolic link out of it)."""
        root = self.root(index)
        if not isinstance(relative, str) or not relative.strip():
            raise PathRefused("give the eval set's path relative to its folder")
        if relative.startswith("/") or (len(relative) > 1 and relative[1] == ":"):
            raise PathRefused(
                f"{relative[:200]!r} is an absolute path; give a path relative to {root.label!r}"
            )
        parts = relative.split("/")
        for part in parts:
            if part in ("", ".", ".."):
                raise PathRefused(
                    f"{relative[:200]!r}: '..', '.' and empty segments are not allowed; "
                    f"give a path inside {root.label!r}"
                )
            if "\\" in part or any(ord(c) < 32 or ord(c) == 127 for c in part):
                raise PathRefused(f"{relative[:200]!r}: backslashes and control characters are not allowed")
            if len(part.encode("utf-8", "surrogatepass")) > _NAME_MAX:
                raise PathRefused(
                    f"{relative[:200]!r}: a file or folder name is at most {_NAME_MAX} bytes; "
                    "use a shorter one"
                )
        try:
            target = root.folder.joinpath(*parts).resolve(strict=False)
        except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, too long a name
            raise PathRefused(f"{relative[:200]!r} cannot be resolved: {exc}") from None
        if len(str(target).encode("utf-8", "surrogatepass")) >= _PATH_MAX:
            raise PathRefused(
                f"{relative[:200]!r}: the path is longer than the system takes ({_PATH_MAX} bytes); "
                "use a shorter one"
            )
        if not target.is_relative_to(root.folder):
            raise PathRefused(
                f"{relative[:200]!r} leads outside the eval-set folder {root.label!r} (through a "
                "symbolic link); only files inside the folders given to --allow-write can be written"
            )
        try:
            missing = must_exist and not target.is_file()
        except OSError as exc:  # too long a path, a folder not searchable
            raise PathRefused(f"{relative[:200]!r} cannot be read: {exc.strerror}") from None
        if missing:
            raise PathRefused(f"there is no eval set {relative[:200]!r} in {root.label!r}")
        return target

    def relative(self, path: Path) -> tuple[int, str]:
        """(folder index, slash-separated path) of a resolved file inside a folder."""
        for root in self.roots:
            if path.is_relative_to(root.folder):
                return root.index, path.relative_to(root.folder).as_posix()
        raise PathRefused(f"{str(path)!r} is not inside an eval-set folder")
