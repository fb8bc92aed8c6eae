"""The one way this extension writes a file: whole or not at all, never over one of its inputs.

Every output (motion and track JSON, plots, baked .blend files) goes through replace_file: the new content
goes to a temporary file in the target's folder, named for this host and process so no two writers share
one; it is flushed to disk, read back and checked; only then is it renamed over the target (atomic on
one filesystem), with the mode the old file had. On any failure the temporary is removed and the target
is as it was. A process killed mid-write (SIGKILL, power loss) leaves its temporary behind: the next write
into that folder removes the temporaries of processes of this host that are gone. See docs/reliability.md.
"""

import hashlib
import os
import re
import secrets
import socket
import stat

from ..solver.errors import FootprintError

TEMPORARY = re.compile(r"^\..*\.footprint-(?P<host>[0-9a-f]{8})-(?P<pid>\d+)-[0-9a-f]{8}\.")  # any suffix after
_cleaned = set()  # folders whose stale temporaries this process has removed already
_NAME_KEPT = 80  # bytes of the target's name kept in a temporary's (a name may be 255 bytes long)


class WriteError(FootprintError):
    """An output that cannot be written (or would replace an input); the target is left as it was."""


def _host() -> str:
    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]


def temporary_name(path, suffix=".tmp") -> str:
    """A fresh temporary beside path: .<name>.footprint-<host>-<pid>-<random><suffix>."""
    folder, name = os.path.split(os.path.abspath(path))
    kept = name.encode("utf-8")[:_NAME_KEPT].decode("utf-8", errors="ignore")
    return os.path.join(folder, f".{kept}.footprint-{_host()}-{os.getpid()}-{secrets.token_hex(4)}{suffix}")


def remove_stale_temporaries(folder, again=False):
    """Remove the temporaries that processes of this host which no longer run left in folder: once per
    folder and process (a batch writes many outputs into one folder), unless again."""
    if folder in _cleaned and not again:
        return
    _cleaned.add(folder)
    host = _host()
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        match = TEMPORARY.match(name)
        if match is None or match["host"] != host or _running(int(match["pid"])):
            continue
        try:
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass  # another cleaner got there first, or a read-only folder: harmless either way


def _running(pid) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def check_target(path, inputs=(), remedy="write the output elsewhere"):
    """Refuse a target whose folder is missing, that is a folder, or that is one of the inputs: by
    identity (same device and inode, so a hard link or another spelling of the path is caught too)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise WriteError(f"{path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise WriteError(f"{path}: is a folder")
    for source in inputs:
        if source and os.path.exists(path) and os.path.exists(source) and os.path.samefile(path, source):
            raise WriteError(f"{path}: is the input {source}; {remedy}")


def replace_file(path, write, verify, inputs=(), suffix=".tmp"):
    """Create path whole through a temporary: write(temporary) makes it, verify(temporary) raises unless
    it reads back right. Returns path. The target is only ever replaced by a complete, checked file."""
    check_target(path, inputs)
    folder = os.path.dirname(os.path.abspath(path))
    remove_stale_temporaries(folder)
    tmp = temporary_name(path, suffix)
    try:
        write(tmp)
        verify(tmp)
        _keep_mode(path, tmp)
        os.replace(tmp, path)
        _sync_folder(folder)
    except OSError as exc:
        raise WriteError(f"{path}: could not write ({exc.strerror or exc}); nothing was changed") from None
    finally:
        for leftover in (tmp, tmp + "@"):  # Blender saves to <name>@ and renames
            if os.path.lexists(leftover):
                os.unlink(leftover)
    return path


def write_atomically(path, content, inputs=()):
    """Write text or bytes to path through replace_file, checked byte for byte after an fsync."""
    data = content.encode("utf-8") if isinstance(content, str) else bytes(content)

    def write(tmp):
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for any new file
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())

    def verify(tmp):
        with open(tmp, "rb") as fh:
            if fh.read() != data:
                raise OSError(0, "what was written does not read back")

    return replace_file(path, write, verify, inputs)


def sync_file(path):
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


def _keep_mode(path, tmp):
    """A replaced file keeps its permissions; a new one gets the umask's (as open() would give it)."""
    if os.path.exists(path):
        os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))


def _sync_folder(folder):
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
