"""The folder `hvnet serve` serves: its scenario files, read and written only inside it.

    folder = Workspace(Path("designs"))
    folder.scenarios()                          # ["cluster.yaml", "lab/two-hosts.yaml", ...]
    text, version = folder.read("cluster.yaml")
    folder.write("cluster.yaml", text, version=version)      # refused if the file changed since

A path comes from a request, so it is checked before it is used (`resolve`): relative, no ``..``,
no symbolic link on the way, a YAML name, inside the folder. Nothing a user wrote is overwritten
unasked, as the CLI never does without ``--force``: saving over a file needs the version it was
opened at (it changed since: 409) or ``force``; a new file that exists is refused (409) unless ``force``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path, PurePosixPath

from hvnet.errors import HvnetError

__all__ = ["MAX_LISTED", "FileConflict", "PathRefused", "Workspace", "version_of"]

#: At most this many scenarios are listed (a folder of generated sweeps can hold thousands).
MAX_LISTED = 2000
_SUFFIXES = (".yaml", ".yml")


class PathRefused(HvnetError):
    """A path that leaves the folder, passes a symbolic link, or is no scenario's name (403/404)."""

    def __init__(self, path: str, why: str, status: int = 403) -> None:
        super().__init__(f"{path}: {why}")
        self.status = status


class FileConflict(HvnetError):
    """Saving would overwrite what a user wrote without asking (409)."""


def version_of(data: bytes) -> str:
    """A file's version: the SHA-256 of its bytes, short."""
    return hashlib.sha256(data).hexdigest()[:16]


class Workspace:
    """Scenario files under one folder, `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def resolve(self, path: str) -> Path:
        """The file `path` names inside the folder; PathRefused for anything else."""
        if not path or "\x00" in path or "\\" in path:
            raise PathRefused(path or "''", "not a file name in the served folder")
        pure = PurePosixPath(path)
        if pure.is_absolute() or path.startswith("~"):
            raise PathRefused(path, "an absolute path; give a path inside the served folder")
        if any(part in ("..", "") for part in path.split("/")) or any(part.startswith(".") for part in pure.parts):
            raise PathRefused(path, "leaves the served folder or names a hidden file ('..', '.name')")
        if pure.suffix.lower() not in _SUFFIXES:
            raise PathRefused(path, "only scenario files (.yaml, .yml) are served")
        here = self.root
        for part in pure.parts:
            here = here / part
            if here.is_symlink():
                raise PathRefused(path, "passes a symbolic link; hvnet serve follows none")
        resolved = here.resolve()
        if not resolved.is_relative_to(self.root):  # pragma: no cover - the checks above keep it inside
            raise PathRefused(path, "leaves the served folder")
        return resolved

    def scenarios(self) -> list[str]:
        """The scenario files under the folder, sorted, relative and with '/'; hidden folders and
        symbolic links are left out."""
        found: list[str] = []
        for folder, folders, files in os.walk(self.root):
            here = Path(folder)
            folders[:] = sorted(d for d in folders if not d.startswith(".") and not (here / d).is_symlink())
            for name in sorted(files):
                if name.lower().endswith(_SUFFIXES) and not name.startswith(".") and not (here / name).is_symlink():
                    found.append((here / name).relative_to(self.root).as_posix())
                    if len(found) >= MAX_LISTED:
                        return found
        return found

    def read(self, path: str) -> tuple[str, str]:
        """A scenario's text and version; PathRefused (404) when there is none."""
        file = self.resolve(path)
        if not file.is_file():
            raise PathRefused(path, "no such scenario in the served folder", status=404)
        data = file.read_bytes()
        return data.decode("utf-8-sig", errors="replace"), version_of(data)

    def write(self, path: str, text: str, version: str | None = None, force: bool = False) -> str:
        """Writes `text` (UTF-8) to `path`, making its folders; returns the new version.

        An existing file is replaced only with `force`, or when `version` is the one it has now
        (it was opened at that version and nobody wrote it since); FileConflict otherwise."""
        file = self.resolve(path)
        if file.exists() and not force:
            current = version_of(file.read_bytes())
            if version is None:
                raise FileConflict(f"{path}: exists; not overwritten (confirm to replace it)")
            if version != current:
                raise FileConflict(
                    f"{path}: changed on disk since it was opened; not overwritten (confirm to replace it)"
                )
        elif not file.exists() and version is not None and not force:
            raise FileConflict(f"{path}: was deleted since it was opened; not written again (confirm to write it)")
        file.parent.mkdir(parents=True, exist_ok=True)
        data = text.encode("utf-8")
        temporary = file.with_name(f".{file.name}.hvnet-saving")
        temporary.write_bytes(data)
        os.replace(temporary, file)
        return version_of(data)
