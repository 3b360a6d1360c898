"""A task's host repository, built where boltons' real history cannot be cloned.

sde-bench's `build.py` copies a clone of boltons at `979fa9b` (with its ~1,600 commits), keeps only
the module's tests and plants the task on top: for a conversation task one commit adding the
package with its bug; for a history task the decided code under a commit that explains it, a noise
commit, then the regression under a misleading subject.  Without that clone (no git network), this
builds the same on boltons from its installed package (`pip install boltons`, the `sdebench` extra)
in a fresh repository: one commit holding the package, then the task's commits, each dated, and the
visible repro beside them (never the hidden test).  What is missing is boltons' real history as
noise, and the real-function tasks need boltons' own tests at `979fa9b`: those are not built.

    python -m pytest_memorybench.scenarios.sdebench.host TASK_ID OUT [--data DIR] [--boltons DIR]

builds a task of our generator (or of sde-bench's clone at DIR) into OUT, for a look at what an agent
with a workspace meets, or for your own coding agent.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pytest_memorybench.scenarios.sdebench.task import Task

EPOCH = datetime(2024, 11, 4, 10, 0, tzinfo=timezone.utc)  # the host's first commit; a commit a week after


def boltons_package() -> tuple[Path, str] | None:
    """Where the installed boltons package is, and its version (None: not installed)."""
    spec = importlib.util.find_spec("boltons")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))), importlib.metadata.version("boltons")


def build_host(task: Task, out: Path, boltons: Path | None = None) -> Path:
    """`task` planted on boltons (`boltons`: its package folder; default the installed one) in a new
    git repository at `out`, HEAD buggy, the repro at tests/test_regression.py uncommitted."""
    if task.tier != "planted":
        raise ValueError(f"{task.id} is a {task.tier} task: it needs boltons' own checkout at 979fa9b")
    found = (boltons, "") if boltons is not None else boltons_package()
    if found is None:
        raise FileNotFoundError(
            "boltons is not installed: pip install boltons (the sdebench extra), or give its folder"
        )
    package, version = found
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    out.mkdir(parents=True, exist_ok=True)
    _git(out, "init", "-q")
    _git(out, "checkout", "-q", "-b", "main")
    shutil.copytree(package, out / "boltons", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    named = f"boltons {version}".rstrip()
    (out / "README.md").write_text(
        f"# {named}, from its package\n\nThe host of sdebench task {task.id}: boltons' package, not its"
        " history (sde-bench pins a clone at 979fa9b).\n",
        encoding="utf-8",
    )
    clock = iter(EPOCH + timedelta(weeks=week) for week in range(1000))
    _commit(out, f"{named} from its package", "pytest-memorybench", next(clock))
    files = task.files
    tests = {path: text for path, text in files.tests.items() if path in files.layers.get("existing", [])}
    _write(out, {**files.sources, **tests})
    if task.source == "history":
        commits = list(task.commits)
        decision = next((c for c in commits if c.body), None)
        for commit in commits:
            if commit is decision:
                _write(out, {files.module: task.correct})
            elif commit is commits[-1]:
                _write(out, {files.module: task.bug})
            elif commit.subject.startswith("docs:"):
                _append(out / "CHANGELOG.md", "- internal cleanups\n")
            _commit(out, _message(commit.subject, commit.body), commit.author, next(clock))
    else:
        _write(out, {files.module: task.bug})
        _commit(out, f"feat: add {files.module.split('/')[0]} module", "Sam Dev", next(clock))
    repro = {path: files.tests[path] for path in files.layers.get("repro", [])}
    _write(out, repro)  # the visible repro, as the bug report names it; not committed
    return out


def _message(subject: str, body: str) -> str:
    return f"{subject}\n\n{body}" if body else subject


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def _append(path: Path, line: str) -> None:
    path.write_text(
        (path.read_text(encoding="utf-8") if path.exists() else "# Changelog\n") + line, encoding="utf-8"
    )


def _commit(root: Path, message: str, author: str, when: datetime) -> None:
    _git(root, "add", "-A")
    stamp = when.isoformat()
    env = {
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": "dev@example.com",
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": "dev@example.com",
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
    }
    _git(root, "commit", "-q", "--no-gpg-sign", "-m", message, env=env)


def _git(root: Path, *args: str, env: dict[str, str] | None = None) -> None:
    base = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    isolated = {**base, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, **(env or {})}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=isolated)


def main(argv: list[str] | None = None) -> int:
    """Build one task's host repository from the command line."""
    from pytest_memorybench.scenarios.sdebench.generator import generated_tasks  # noqa: PLC0415
    from pytest_memorybench.scenarios.sdebench.published import load_published  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("out", type=Path)
    parser.add_argument(
        "--data", default="", help="a clone of vectorize-io/sde-bench (default: our generator)"
    )
    parser.add_argument(
        "--boltons", type=Path, default=None, help="boltons' package folder (default: installed)"
    )
    args = parser.parse_args(argv)
    tasks = {task.id: task for task in (load_published(args.data).tasks if args.data else generated_tasks())}
    task = tasks.get(args.task)
    if task is None:
        print(f"error: no task {args.task!r}; the tasks: {', '.join(sorted(tasks))}", file=sys.stderr)
        return 4
    try:
        built = build_host(task, args.out, args.boltons)
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 4
    print(f"built {task.id} in {built}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
