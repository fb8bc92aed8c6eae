"""Writing files safely: all or nothing."""

import os
import tempfile

from ..solver.errors import FootprintError


def write_atomically(path, text):
    """Write via a temporary file in the same folder and rename: a failure never leaves half a file,
    and an existing file is replaced only once the new one is complete."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FootprintError(f"{path}: the folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".footprint-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
