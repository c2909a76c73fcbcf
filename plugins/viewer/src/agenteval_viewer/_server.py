"""The ``agenteval view`` server: the viewer's static front end and a read-only JSON API over
the run folders of one runs folder (stdlib ``ThreadingHTTPServer``, no dependency).

Routes (``docs/viewer.md``): ``GET /api/runs``, ``/api/runs/<id>/summary``,
``/api/runs/<id>/index``, ``/api/runs/<id>/head``, ``/api/runs/<id>/cases/<row>``, ``/api/runs/<id>/events``
(server-sent events), ``/api/compare?a=<id>&b=<id>``; everything else is a file of the
package's ``static/`` folder (``/`` is ``index.html``).

Security: it binds a loopback address unless told otherwise; a request whose ``Host`` header
is not that address (or ``localhost``) with the port is refused with 403, so a web page that
rebinds its own name to 127.0.0.1 cannot read the runs; only GET and HEAD exist (anything
else: 405); every response carries a Content-Security-Policy, ``nosniff`` and
``no-referrer``; static paths never leave ``static/``. Errors are JSON ``{"error": ...}``;
an unexpected one is logged as one line on standard error and never shown as a traceback.

With ``authoring`` (``agenteval view --allow-write``) the routes under ``/api/author/``
(GET, POST, DELETE) are served by ``_authoring_api.Authoring``, behind its token; with
``labelling`` (``agenteval view`` on a loopback address) ``/api/runs/<id>/labels`` (GET,
POST) by ``_labels_api.Labelling``, behind its own. ``GET /api/capabilities`` says which
exist (and hands the labelling token to the page: no other site can read it).
"""

from __future__ import annotations

import hashlib
import ipaddress
import mimetypes
import re
import socket
import sys
import threading
import traceback
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Optional, Union
from urllib.parse import parse_qs, unquote, urlsplit

from ._compare_payload import ComparePayloads, CompareRefused
from ._disk_cache import DiskCache
from ._history import History
from ._live import RunTail
from ._store import Encoded, NotFound, RunStore, encode_json

__all__ = ["CONTENT_SECURITY_POLICY", "STATIC_DIR", "ViewerServer", "is_loopback", "static_file"]

#: The HTML report's policy, plus ``frame-ancestors 'none'`` (only a header can say that).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'"
)
STATIC_DIR = Path(__file__).resolve().parent / "static"

#: a summary's ``version`` (``summary?since=``)
_VERSION = re.compile(r"[0-9_-]{1,300}")
_RUN_ROUTE = re.compile(r"/api/runs/([^/]+)/(summary|index|head|events|labels)")
_CASE_ROUTE = re.compile(r"/api/runs/([^/]+)/cases/([^/]+)")
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
    ".map": "application/json",
}
_COMPRESSIBLE = ("text/", "application/json", "image/svg")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP addresses."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def static_file(root: Path, url_path: str) -> Optional[Path]:
    """The file of the (resolved) ``root`` folder that ``url_path`` names, or ``None``: a
    path with an empty, ``.`` or ``..`` segment, a backslash or a NUL, or one that resolves
    (through a symbolic link) outside ``root``, names nothing. ``/`` is ``index.html``."""
    relative = unquote(url_path).lstrip("/") or "index.html"
    if any(p in ("", ".", "..") or "\\" in p or "\x00" in p for p in relative.split("/")):
        return None
    try:
        target = (root / relative).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None
    except (OSError, ValueError):
        return None
    return target


#: The viewer's page (``/``).
_PAGE = "index.html"


def _page(static_dir: Path) -> bytes:
    """The page, with a ``modulepreload`` link for each module its entry module imports
    (``_modules.preloaded``): the browser fetches them at once, where it found them one level
    of imports after another (three round trips of about 80 ms each, while the server also
    reads the run), and the run's data is asked for that much sooner."""
    from ._modules import preloaded

    page = (static_dir / _PAGE).read_text(encoding="utf-8")
    return preloaded(page, lambda name: (static_dir / name).read_text(encoding="utf-8")).encode("utf-8")


def _log(message: str) -> None:
    sys.stderr.write(f"agenteval view: {message}\n")
    sys.stderr.flush()


class ViewerServer(ThreadingHTTPServer):
    """Serves ``runs_dir``. ``port=0`` picks a free port (``self.port`` is the one bound).

    ``allow_remote`` accepts any ``Host`` header (for a non-loopback ``host``); the API stays
    read-only. ``cache_dir`` keeps finished runs' summaries and indexes between sessions
    (``_disk_cache``; none by default). ``bundle`` stands in for ``agenteval_viewer._bundle``
    (tests).
    """

    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        runs_dir: Path,
        host: str = "127.0.0.1",
        port: int = 8585,
        *,
        allow_remote: bool = False,
        bundle: Any = None,
        static_dir: Path = STATIC_DIR,
        poll_s: float = 0.25,
        heartbeat_s: float = 15.0,
        cache_dir: Optional[Path] = None,
        authoring: Any = None,
        labelling: Any = None,
    ) -> None:
        if ":" in host.strip("[]"):
            self.address_family = socket.AF_INET6
        super().__init__((host.strip("[]"), port), _Handler)
        self.runs_dir = Path(runs_dir)
        self.host = host.strip("[]")
        self.port = self.server_address[1]
        self.allow_remote = allow_remote
        self.static_dir = Path(static_dir).resolve()
        self.store = RunStore(self.runs_dir, bundle, disk=DiskCache(cache_dir) if cache_dir else None)
        self.history = History(self.runs_dir)
        self.compare = ComparePayloads(self.runs_dir, self.store.stamp)
        self.poll_s = poll_s
        self.heartbeat_s = heartbeat_s
        self.stopping = threading.Event()
        #: The authoring API (``agenteval view --allow-write``: ``_authoring_api.Authoring``).
        self.authoring = authoring
        #: Human labels from the case drawer (``_labels_api.Labelling``; none by default).
        self.labelling = labelling
        names = {self.host, "localhost"} if is_loopback(self.host) else {self.host}
        shown = {f"[{n}]" if ":" in n else n for n in names}
        self.allowed_hosts = {f"{n}:{self.port}".lower() for n in shown}
        if self.port == 80:
            self.allowed_hosts |= {n.lower() for n in shown}

    @property
    def url(self) -> str:
        """The address to open (``localhost`` names stay as given)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):
            host = "127.0.0.1"
        return f"http://{host}:{self.port}/"

    def warm(self, run_id: str) -> threading.Thread:
        """Build ``run_id``'s summary and case index in the background."""
        thread = threading.Thread(target=self.store.warm, args=(run_id,), daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """Stop serving: ends the live streams, closes the socket, then waits for the disk
        cache writes under way."""
        self.stopping.set()
        self.shutdown()
        self.server_close()
        self.store.flush()

    def handle_error(self, request: Any, client_address: Any) -> None:
        kind = sys.exc_info()[0]
        if kind is not None and issubclass(kind, (BrokenPipeError, ConnectionResetError)):
            return
        _log(f"error serving {client_address[0]}: {traceback.format_exc(limit=1).splitlines()[-1]}")


class _Handler(BaseHTTPRequestHandler):
    server: ViewerServer
    server_version = "agenteval-view"
    protocol_version = "HTTP/1.1"

    def version_string(self) -> str:
        return self.server_version  # no Python version in the Server header

    # ------------------------------------------------------------------ methods

    def do_GET(self) -> None:
        self._handle(head=False)

    def do_HEAD(self) -> None:
        self._handle(head=True)

    def _read_only(self) -> None:
        if self.server.authoring is not None and self.command in ("POST", "DELETE"):
            self._handle(head=False)  # the authoring routes (--allow-write)
            return
        if self.server.labelling is not None and self.command == "POST" and self.path.endswith("/labels"):
            self._handle(head=False)  # the labelling route
            return
        self._json(HTTPStatus.METHOD_NOT_ALLOWED, {"error": "the viewer is read-only: GET and HEAD only"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_TRACE = do_CONNECT = _read_only

    def __getattr__(self, name: str) -> Any:
        if name.startswith("do_"):
            return self._read_only
        raise AttributeError(name)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # no access log; errors are logged where they happen

    # ------------------------------------------------------------------ responses

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        super().end_headers()

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """The stdlib's own errors (bad request line, header too long) as JSON too."""
        self.close_connection = True
        try:
            self._json(code, {"error": message or HTTPStatus(code).phrase})
        except (BrokenPipeError, ConnectionResetError, ValueError):
            pass

    def _send(
        self,
        status: int,
        body: Union[bytes, Callable[[], bytes]],
        content_type: str,
        cache: str,
        etag: Optional[str] = None,
        gzipped: Optional[bytes] = None,
    ) -> None:
        if etag is not None and self._matches(etag):
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.send_header("Cache-Control", cache)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        use_gzip = gzipped is not None and "gzip" in self.headers.get("Accept-Encoding", "")
        if use_gzip and gzipped is not None:
            payload = gzipped
        else:
            payload = body() if callable(body) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Cache-Control", cache)
        if etag is not None:
            self.send_header("ETag", etag)
        if gzipped is not None:
            self.send_header("Vary", "Accept-Encoding")
        if use_gzip:
            self.send_header("Content-Encoding", "gzip")
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            self.send_header("Allow", "GET, HEAD")
        if self.close_connection:  # e.g. a request body left unread: the client is told
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def _matches(self, etag: str) -> bool:
        wanted = self.headers.get("If-None-Match")
        return wanted is not None and etag in [t.strip() for t in wanted.split(",")]

    def start_event_stream(self) -> None:
        """The headers of a server-sent event stream (never cached or buffered by a proxy;
        the connection ends with the stream)."""
        self.close_connection = True
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.send_header("X-Accel-Buffering", "no")
        self.end_headers()

    def _json(self, status: int, value: Any, cache: str = "no-store") -> None:
        self._send(status, encode_json(value), "application/json", cache)

    def _encoded(self, encoded: Encoded) -> None:
        # A loopback client is not made to wait for gzip: it gets the gzip form when there is
        # one (from the disk cache, or made since), else the plain one at once.
        loopback = ipaddress.ip_address(self.client_address[0].split("%")[0]).is_loopback
        fresh = encoded.first_answer()
        wanted = encoded.worth_gzip and (not loopback or (encoded.has_gzip and not fresh))
        gzipped = encoded.gzipped() if wanted else None
        self._send(HTTPStatus.OK, encoded.plain, "application/json", "no-cache", encoded.etag, gzipped)

    # ------------------------------------------------------------------ routing

    def _host_allowed(self) -> bool:
        if self.server.allow_remote:
            return True
        return (self.headers.get("Host") or "").strip().lower() in self.server.allowed_hosts

    def _handle(self, head: bool) -> None:
        if not self._host_allowed():
            self._json(
                HTTPStatus.FORBIDDEN, {"error": "this server answers only to its own loopback address"}
            )
            return
        try:
            parts = urlsplit(self.path)
            path = parts.path
            if path.startswith("/api/"):
                self._api(path, parse_qs(parts.query))
            else:
                self._static(path)
        except NotFound as exc:
            self._json(HTTPStatus.NOT_FOUND, {"error": str(exc)})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # noqa: BLE001 - never a traceback to the client
            _log(f"{self.command} {self.path[:200]!r}: {type(exc).__name__}: {str(exc)[:300]}")
            self.close_connection = True
            try:
                self._json(
                    HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal error; see the server's log"}
                )
            except (BrokenPipeError, ConnectionResetError, ValueError):
                pass

    def _api(self, path: str, query: dict[str, list[str]]) -> None:
        store = self.server.store
        if path == "/api/capabilities":
            allowed: dict[str, Any] = {"write": self.server.authoring is not None}
            if self.server.labelling is not None:
                allowed["labels"] = self.server.labelling.capabilities()
            self._json(HTTPStatus.OK, allowed)
            return
        if path.startswith("/api/author/") and self.server.authoring is not None:
            self.server.authoring.handle(self, path, query)
            return
        match = _RUN_ROUTE.fullmatch(path)
        if match and match.group(2) == "labels":
            if self.server.labelling is None:
                raise NotFound("labelling is off: agenteval view labels only on a loopback address")
            self.server.labelling.handle(self, store.folder(unquote(match.group(1))))
            return
        if self.command not in ("GET", "HEAD"):
            self._json(
                HTTPStatus.METHOD_NOT_ALLOWED, {"error": "only the authoring and labelling APIs take writes"}
            )
            return
        if path == "/api/runs":
            self._json(HTTPStatus.OK, {"runs": self.server.history.runs()})
            return
        if path == "/api/compare":
            self._compare(query)
            return
        match = _RUN_ROUTE.fullmatch(path)
        if match:
            run_id, what = unquote(match.group(1)), match.group(2)
            if what == "summary":
                since = query.get("since", [""])[0]
                if _VERSION.fullmatch(since):
                    self._encoded(store.summary_since(run_id, since))
                else:
                    self._encoded(store.summary(run_id))
            elif what == "index":
                since = query.get("since", [""])[0]
                if since.isascii() and since.isdigit():
                    self._encoded(store.index_since(run_id, int(since)))
                else:
                    self._encoded(store.index(run_id))
            elif what == "head":
                self._encoded(store.head(run_id))
            else:
                self._events(run_id)
            return
        match = _CASE_ROUTE.fullmatch(path)
        if match:
            run_id, row = unquote(match.group(1)), match.group(2)
            if not row.isascii() or not row.isdigit():
                raise NotFound(f"{row!r} is not a row number")
            self._encoded(store.case(run_id, int(row)))
            return
        raise NotFound(f"no API route {path!r}")

    def _compare(self, query: dict[str, list[str]]) -> None:
        a, b = (query.get(k, [""])[0] for k in ("a", "b"))
        if not a or not b:
            self._json(
                HTTPStatus.BAD_REQUEST, {"error": "give the two runs: /api/compare?a=<run id>&b=<run id>"}
            )
            return
        self.server.store.folder(a), self.server.store.folder(b)  # NotFound -> 404
        try:
            document = self.server.compare.payload(a, b)
        except CompareRefused as exc:
            self._json(HTTPStatus.CONFLICT, {"error": str(exc)})
            return
        self._encoded(Encoded(encode_json(document), etag=None))

    def _events(self, run_id: str) -> None:
        store = self.server.store
        folder = store.folder(run_id)
        last = self.headers.get("Last-Event-ID", "")
        tail = RunTail(
            folder,
            store.rows_by_key(run_id),
            int(last) if last.isascii() and last.isdigit() else None,
            poll_s=self.server.poll_s,
            heartbeat_s=self.server.heartbeat_s,
        )
        if tail.state != "running":
            # 204 tells an EventSource not to reconnect: nothing more will happen to this run.
            self.send_response(HTTPStatus.NO_CONTENT)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        self.start_event_stream()
        if self.command == "HEAD":
            return
        for chunk in tail.stream(self.server.stopping):
            self.wfile.write(chunk)
            self.wfile.flush()

    def _static(self, path: str) -> None:
        target = static_file(self.server.static_dir, path)
        if target is None:
            raise NotFound(f"no file {path[:200]!r}")
        info = target.stat()
        etag = f'"{info.st_mtime_ns:x}-{info.st_size:x}"'
        kind = (
            _TYPES.get(target.suffix.lower())
            or mimetypes.guess_type(target.name)[0]
            or "application/octet-stream"
        )
        if target == self.server.static_dir / _PAGE:
            body = _page(self.server.static_dir)  # its modules named for the browser to fetch at once
            etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        elif self._matches(etag):
            self._send(HTTPStatus.OK, b"", kind, "no-cache", etag)
            return
        else:
            body = target.read_bytes()
        gzipped = None
        if len(body) > 1024 and kind.startswith(_COMPRESSIBLE):
            import gzip

            gzipped = gzip.compress(body, compresslevel=5, mtime=0)
        self._send(HTTPStatus.OK, body, kind, "no-cache", etag, gzipped)
