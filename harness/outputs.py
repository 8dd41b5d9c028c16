"""Outputs the user names: whether they can be written there, checked before any work starts.

One check for the command line (``--out``, ``--to``, ``--builtins-dir``) and the Python API
(``run_study(out=...)``), each naming the argument as its user wrote it.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from harness.errors import UsageError


def writable_output(path: str | os.PathLike[str], option: str, *, directory: bool = False) -> Path:
    """``path``, once it is known that the output ``option`` names can be written there, before any work is done.

    Nothing is created: the nearest existing folder on the way to ``path`` (``path`` itself for an existing
    output folder) must be a folder in which a temporary folder can be made and removed, and an existing output
    file must open for writing.

    Parameters
    ----------
    path : str or path-like
        The output file, or folder when ``directory``.
    option : str
        How the user named it (``"--out"``, ``"--to"``; ``"out"`` in Python), for the message.
    directory : bool, default False
        Whether the output is a folder (a run directory) rather than a file.

    Raises
    ------
    harness.errors.UsageError
        Naming ``option``, ``path`` and why it cannot be written: an existing output of the other kind, a plain
        file on the way, or a folder where files cannot be created (``/proc``, read-only, no permission).

    Returns
    -------
    pathlib.Path
        ``path``, as a ``Path``.
    """
    path = Path(path)
    if path.exists() and path.is_dir() != directory:
        raise UsageError(f"{option} {path} exists and is {'not a directory' if directory else 'a directory'}")
    if path.is_file():
        try:
            os.close(os.open(path, os.O_WRONLY))  # no truncation: the file is left as it is
        except OSError as error:
            raise UsageError(f"cannot write {option} {path}: {error.strerror}") from None
        return path
    base = path if path.is_dir() else next(parent for parent in path.absolute().parents if parent.exists())
    if not base.is_dir():
        raise UsageError(f"cannot write {option} {path}: {base} is not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(dir=base, prefix=".harness-write-check-"))
    except OSError as error:
        raise UsageError(f"cannot write {option} {path}: cannot create anything in {base} ({error.strerror})") from None
    return path


def atomic_write(target: Path, write: Callable[[str], object]) -> None:
    """Write ``target`` whole or not at all: ``write(temporary_path)`` writes a temporary file beside it, renamed over
    it once synced, with the user's normal permissions (a reader, or a run killed mid-write, never sees half a file).

    ``tempfile.mkstemp`` creates its file with mode 0600; it is widened to what a plain
    ``open`` would give (0666 less the umask), like every other output of the harness.
    """
    fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.fchmod(fd, 0o666 & ~_umask())
    os.close(fd)
    try:
        write(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, target)
        _fsync_directory(target.parent)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _umask() -> int:
    """The process's umask (read by setting it and putting it back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (survives a power cut, not only a kill)."""
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
