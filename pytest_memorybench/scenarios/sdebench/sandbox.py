"""The grader's child process: pytest over one task copy, fenced in by an audit hook.

Run as a script, never imported by the package (it must not import it: the child starts with
`python -s -B` and an environment of the grader's alone, no user site, no PYTHONPATH, no bytecode
written; this folder is taken off `sys.path`, so a task's own `task` or `grading` module is its own):

    python -s -B sandbox.py ROOT CPU_SECONDS -- PYTEST_ARGS...

Before pytest (and so before the agent's module) is imported, an audit hook (PEP 578) is installed
that cannot be removed from Python code.  It refuses, with PermissionError:
- opening a file for writing, creating, removing, renaming, linking or changing the mode of a path
  outside ROOT (the task's temporary copy);
- reading a file outside ROOT, Python's own installation (the stdlib, the environment's
  site-packages; not a folder an editable install adds to the path) and the system's shared files
  (`/usr`, `/etc`, `/dev`, `/proc/self`, `/lib`): a patch cannot read the user's files and print
  them into the failing output the agent is told;
- starting a process (subprocess, os.system, exec, spawn, fork), signalling one (the harness),
  loading native code through ctypes, and opening a network connection.

Why a hook and not a container: grading must run wherever pytest runs (no Docker, no root on a CI
runner).  The hook fences a patch that misbehaves in Python (the benchmark's threat: an agent's
module that writes into the user's checkout, deletes files or phones home); a hang is the parent's
to stop (it kills the child's process group at its timeout), and resource limits cap CPU time and
file size.  It is not a boundary against an attacker with native code already on the machine.
"""

from __future__ import annotations

import os
import resource
import sys

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
PATH_EVENTS = {  # event -> which arguments are paths the call changes
    "os.remove": (0,),
    "os.rmdir": (0,),
    "os.mkdir": (0,),
    "os.rename": (0, 1),
    "os.replace": (0, 1),
    "os.link": (0, 1),
    "os.symlink": (1,),
    "os.chmod": (0,),
    "os.chown": (0,),
    "os.truncate": (0,),
    "os.utime": (0,),
    "shutil.rmtree": (0,),
    "shutil.move": (0, 1),
    "shutil.copyfile": (1,),
    "shutil.copytree": (1,),
}
REFUSED = (
    "subprocess.Popen",
    "os.system",
    "os.exec",
    "os.spawn",
    "os.posix_spawn",
    "os.fork",
    "os.forkpty",
    "pty.spawn",
    "os.kill",
    "os.killpg",
    "signal.pthread_kill",
    "ctypes.dlopen",
    "ctypes.dlsym",
    "socket.connect",
    "socket.sendto",
    "socket.bind",
)
ALLOWED_DEVICES = ("/dev/null", "/dev/tty")


def _real(path: object) -> str | bool:
    """The real path the audited call names; True for an open descriptor (opened earlier under the
    same rules), False for anything that is no path."""
    if isinstance(path, int):
        return True
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        return False
    return os.path.realpath(os.fspath(path))


def _inside(root: str, path: object) -> bool:
    real = _real(path)
    if isinstance(real, bool):
        return real
    return real == root or real.startswith(root + os.sep) or real in ALLOWED_DEVICES


def _writes(args: tuple[object, ...]) -> bool:
    mode, flags = args[1], args[2]
    if isinstance(mode, str):
        return any(letter in mode for letter in "wax+")
    return isinstance(flags, int) and bool(flags & WRITE_FLAGS)


SYSTEM_READS = ("/usr", "/etc", "/dev", "/proc/self", "/lib", "/lib64")


def _readable(path: object, roots: tuple[str, ...]) -> bool:
    real = _real(path)
    if isinstance(real, bool):
        return real
    return any(real == top or real.startswith(top.rstrip(os.sep) + os.sep) for top in roots)


def install(root: str) -> None:
    """Fence this process in: writes only under `root`, reads only there and in Python's own and the
    system's files, no processes, signals, native code or network."""
    root = os.path.realpath(root)
    python = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}  # not an editable
    readable = tuple(
        sorted({root, *SYSTEM_READS, *(os.path.realpath(path) for path in python)})
    )  # install's folder

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            if _writes(args) and not _inside(root, args[0]):
                raise PermissionError(
                    f"sdebench grading: writing {args[0]!r} outside the task copy is refused"
                )
            if not _readable(args[0], readable):
                raise PermissionError(
                    f"sdebench grading: reading {args[0]!r} outside the task copy is refused"
                )
            return
        changed = PATH_EVENTS.get(event)
        if changed is not None:
            for index in changed:
                if index < len(args) and not _inside(root, args[index]):
                    raise PermissionError(f"sdebench grading: {event} on {args[index]!r} is refused")
        elif event.startswith(REFUSED):
            raise PermissionError(f"sdebench grading: {event} is refused")

    sys.addaudithook(hook)


def _limits(cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 << 20, 16 << 20))


def main(argv: list[str]) -> int:
    """Fence the process in, then run pytest with the rest of the arguments."""
    root, cpu, rest = argv[0], int(argv[1]), argv[3:]  # argv[2] is "--"
    sys.dont_write_bytecode = True
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [root, *(path for path in sys.path if os.path.abspath(path or ".") != here)]
    os.chdir(root)
    _limits(cpu)
    import _pytest.junitxml  # noqa: F401, PLC0415
    import pytest  # noqa: PLC0415 (before the hook: pytest's own imports are trusted)

    install(root)
    return int(pytest.main(rest))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
