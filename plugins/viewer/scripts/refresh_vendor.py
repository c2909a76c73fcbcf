"""Re-download the viewer's vendored JavaScript with ``npm pack`` and rewrite the lock file.

    python plugins/viewer/scripts/refresh_vendor.py            # the pinned versions
    python plugins/viewer/scripts/refresh_vendor.py preact=10.27.0

Each package is fetched as its registry tarball (``npm pack NAME@VERSION``, whose integrity
the registry signs), the listed files are copied out (source-map comments removed, so a page
never asks for a ``.map``), with the package's licence, and ``vendor.lock.json`` records the
name, version, licence, tarball integrity and each file's sha256. Nothing here runs when the
viewer runs: the files are package data.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[1] / "src" / "agenteval_viewer" / "static" / "vendor"
LOCK = VENDOR / "vendor.lock.json"

#: name -> (version, licence, {file in the package: name in vendor/}); load order matters.
PACKAGES = {
    "preact": (
        "10.26.9",
        "MIT",
        {"dist/preact.min.umd.js": "preact.min.js", "hooks/dist/hooks.umd.js": "preact-hooks.umd.js"},
    ),
    "htm": ("3.1.1", "Apache-2.0", {"dist/htm.umd.js": "htm.umd.js"}),
}
_SOURCE_MAP = re.compile(r"\n?//# sourceMappingURL=\S+\s*$")


def _pack(name: str, version: str, folder: Path) -> tuple[Path, str]:
    out = subprocess.run(
        ["npm", "pack", f"{name}@{version}", "--json", "--pack-destination", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    [info] = json.loads(out.stdout)
    return folder / info["filename"], info["integrity"]


def refresh(versions: dict[str, str]) -> dict:
    lock: dict = {"packages": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (pinned, licence, files) in PACKAGES.items():
            version = versions.get(name, pinned)
            tarball, integrity = _pack(name, version, Path(tmp))
            entry = {
                "name": name,
                "version": version,
                "license": licence,
                "integrity": integrity,
                "files": [],
            }
            with tarfile.open(tarball) as archive:
                for source, target in files.items():
                    member = archive.extractfile(f"package/{source}")
                    assert member is not None, f"{name}@{version} has no {source}"
                    text = _SOURCE_MAP.sub("", member.read().decode("utf-8")) + "\n"
                    (VENDOR / target).write_text(text, encoding="utf-8")
                    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
                    entry["files"].append({"file": target, "from": source, "sha256": digest})
                licence_member = archive.extractfile("package/LICENSE")
                if licence_member is not None:
                    (VENDOR / f"LICENSE.{name}").write_bytes(licence_member.read())
            lock["packages"].append(entry)
    LOCK.write_text(json.dumps(lock, indent=2) + "\n", encoding="utf-8")
    return lock


def main(argv: list[str]) -> int:
    versions = dict(arg.split("=", 1) for arg in argv)
    lock = refresh(versions)
    for entry in lock["packages"]:
        files = ", ".join(f["file"] for f in entry["files"])
        print(f"{entry['name']}@{entry['version']} ({entry['license']}): {files}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
