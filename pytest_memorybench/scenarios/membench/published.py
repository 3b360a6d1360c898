"""The authors' released data: read it as cases, and write our generated cases in the same shape.

Released files (shapes documented in shared/reference/membench/README.md; the repository is
import-myself/Membench, data on the authors' download page):
  category files   `MemData/<FirstAgent|ThirdAgent>/<type>.json`: {scene: [trajectory, ...]}
  merged files     `FirstAgentDataLowLevel.json` etc.: {type: {scene: [trajectory, ...]}}
  test files       `data2test/<merged>_multiple_<N>.json` (noise inserted): the merged shape
  and, for hand-made data, a bare list of trajectories (its type is the file's name).
A trajectory is {tid, message_list, QA: {qid, question, time, choices {A..D}, ground_truth (a
letter), answer, target_step_id}}.  `message_list` is, by agent and stage:
  ThirdAgent, raw        [{message, time, place, ...}]       one step per message
  ThirdAgent, noise in   ["<message> (place: P; time'T')"]   one step per string; noise has no suffix
  FirstAgent, raw        [[{user|user_message, assistant|assistant_message, time, place}, ...], ...]
                         sessions of turns; evidence ids are [message, session]
  FirstAgent, noise in   [{user, agent}]                      flat; evidence ids are flat
  ThirdAgent highlevel files may hold sessions too ([[{message, time, place}, ...], ...]).
Which agent a file holds is read from its path (a `FirstAgent` / `ThirdAgent` part, or a name
starting so), else from its first message list.  `--mb-data membench=PATH` gives every MemBench
scenario the same path, a file or a folder searched recursively, and each keeps its own agent's
trajectories: participation the FirstAgent ones, observation the ThirdAgent ones.

Step ids (see `case.py`): 0-based positions in the flattened message list, the data's own
numbering.  A raw file's `[message, session]` pair already numbers the message across the whole
trajectory (`[[4,0],[9,0],[18,1],[31,2],[36,2]]` with sessions starting at messages 0, 14 and 27):
MemBench's own `benchmark/load_test_data.py` flattens the sessions and keeps `id[0]` (adding three
per noise session inserted before the named session), so we read the first number as the step and
the session only as a check.  MemBench's env sends an instruction first, so a driver storing it as
step 0 would number message i as i + 1; the paper's driver is unpublished and the data numbers
from 0, so we use the data's ids as they are.  No label is dropped quietly: an id outside the
trajectory (third parties found a few), one that is no number, or a pair whose message lies in
another session than it names (placed by the message, as MemBench's code does) is counted in the
loader's report, which the run's header prints; a question left without evidence ids still scores
accuracy, and recall@k says it could not be computed.

Types keep the file's names (`simple`, `conditional`, `highlevel`, ...), so summaries group by
the released categories; a type whose name contains "highlevel" is reflective (the release's own
convention), the rest factual.  Times are read leniently (ISO dates with or without seconds,
quotes around them); a message whose time cannot be read gets its predecessor's time plus a
minute (counted in the report when it had one).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from pytest_memorybench.core.errors import usage_error
from pytest_memorybench.core.load_report import LoadTally
from pytest_memorybench.core.readers import read_json, reading
from pytest_memorybench.core.records import Message
from pytest_memorybench.scenarios.membench.case import Case, distinctive_texts

FIRST, THIRD = "FirstAgent", "ThirdAgent"
_SUFFIX = re.compile(r"\s*\(place:\s*(?P<place>[^;)]*?)\s*(?:;\s*time\s*:?\s*'?(?P<time>[^')]*)'?)?\)\s*$")
_TIME_FORMATS = (
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d",
    "%Y/%m/%d %H:%M",
    "%B %d, %Y %H:%M",
    "%B %d, %Y",
)
_START = datetime(2024, 1, 1, 9, 0)


def load_cases(
    path: str,
    *,
    dialogue: bool,
    prefix: str,
    per_type: int = 0,
    seed: int = 0,
    tally: LoadTally | None = None,
) -> list[Case]:
    """The cases of one agent (FirstAgent: `dialogue`) under `path`; `per_type` > 0 samples that many
    of each type, uniformly with the seed (the paper's sub-datasets are such samples).  `tally`
    counts what the files hold of this agent and whatever could not be used."""
    tally = tally if tally is not None else LoadTally()
    root = Path(path).expanduser()
    if not root.exists():
        raise usage_error(f"--mb-data membench={path}: no such file or folder")
    files = [root] if root.is_file() else sorted(root.rglob("*.json"))
    if not files:
        raise usage_error(f"--mb-data membench={path}: no .json files in that folder")
    by_type: dict[str, list[Case]] = {}
    used: set[str] = set()
    for file in files:
        for kind, scene, trajectory in _read(file):
            if _is_first(file, trajectory) != dialogue:
                continue
            tally.held(f"{FIRST if dialogue else THIRD} trajectories")
            case = _case(file, kind, scene, trajectory, dialogue, prefix, used, tally)
            by_type.setdefault(kind, []).append(case)
    cases: list[Case] = []
    for kind in sorted(by_type):
        members = by_type[kind]
        if 0 < per_type < len(members):
            picked = set(
                random.Random(f"membench|sample|{seed}|{kind}").sample(range(len(members)), per_type)
            )
            tally.note(
                f"trajectories left out of the sample of per_type {per_type} a type",
                kind,
                len(members) - per_type,
            )
            members = [case for index, case in enumerate(members) if index in picked]
        cases.extend(members)
    return cases


@lru_cache(maxsize=4)
def _parsed(file: Path, mtime: float) -> Any:
    with reading(f"--mb-data membench: {file}"):
        return read_json(file)


def _read(file: Path) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(type, scene, trajectory) for every trajectory of a released file of any of the shapes."""
    data = _parsed(file, file.stat().st_mtime)
    stem = file.stem
    if isinstance(data, list):
        yield from ((stem, "", t) for t in data)
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, list):  # a category file: {scene: [...]}
                yield from ((stem, str(key), t) for t in value)
            elif isinstance(value, dict):  # a merged file: {type: {scene: [...]}}
                for scene, trajectories in value.items():
                    if not isinstance(trajectories, list):
                        raise usage_error(f"{file}: {key}/{scene} should be a list of trajectories")
                    yield from ((str(key), str(scene), t) for t in trajectories)
            else:
                raise usage_error(f"{file}: {key!r} holds neither trajectories nor scenes")
    else:
        raise usage_error(f"{file}: expected MemBench trajectories (a JSON object or list)")


def _is_first(file: Path, trajectory: Any) -> bool:
    for part in reversed(file.parts):
        if part.startswith(FIRST):
            return True
        if part.startswith(THIRD):
            return False
    messages = trajectory.get("message_list") if isinstance(trajectory, dict) else None
    first = messages[0] if isinstance(messages, list) and messages else None
    if isinstance(first, list):  # a session: its first turn tells
        first = first[0] if first else None
    return isinstance(first, dict) and ("user" in first or "user_message" in first)


def _case(
    file: Path,
    kind: str,
    scene: str,
    trajectory: Any,
    dialogue: bool,
    prefix: str,
    used: set[str],
    tally: LoadTally,
) -> Case:
    tid = trajectory.get("tid", "?") if isinstance(trajectory, dict) else "?"
    where = f"{file}: trajectory {tid}"
    label = f"{kind}/{scene + '/' if scene else ''}{tid}"  # how the report names it
    if not isinstance(trajectory, dict) or not isinstance(trajectory.get("message_list"), list):
        raise usage_error(f"{where}: no message_list")
    qa = trajectory.get("QA")
    if not isinstance(qa, dict) or not isinstance(qa.get("choices"), dict) or "question" not in qa:
        raise usage_error(f"{where}: no QA with a question and choices")
    letters = sorted(str(letter).strip().upper() for letter in qa["choices"])
    options = {str(k).strip().upper(): _option_text(v) for k, v in qa["choices"].items()}
    answer = str(qa.get("ground_truth", "")).strip().upper()
    if answer not in options:
        raise usage_error(
            f"{where}: ground_truth {qa.get('ground_truth')!r} is not one of its choices {letters}"
        )
    steps, offsets = _steps(trajectory["message_list"], dialogue, where, tally)
    evidence = _evidence(qa.get("target_step_id"), len(steps), offsets, tally, label)
    case_id = (
        f"{prefix}-{_slug(kind)}-{_slug(scene) + '-' if scene else ''}{trajectory.get('tid', len(used))}"
    )
    while case_id in used:
        case_id += "+"
    used.add(case_id)
    frozen = tuple(steps)

    def turns() -> Iterator[Message]:
        for user, assistant, when in frozen:
            yield Message(user, when, "user")
            if dialogue:
                yield Message(assistant, when + timedelta(seconds=30), "assistant")

    return Case(
        id=case_id,
        type=kind,
        level="reflective" if "highlevel" in kind.lower() else "factual",
        question=str(qa["question"]),
        options=tuple(options[letter] for letter in letters),
        answer=answer,
        evidence=tuple(evidence),
        evidence_texts=distinctive_texts(
            [step[:2] for step in frozen], [frozen[step][:2] for step in evidence]
        ),
        steps=len(frozen),
        messages_per_step=2 if dialogue else 1,
        turns=turns,
        time=str(qa["time"]).strip("'\" ") if qa.get("time") else None,
    )


def _option_text(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_") or "x"


def _evidence(raw: Any, steps: int, offsets: list[int] | None, tally: LoadTally, label: str) -> list[int]:
    """The question's evidence as sorted step ids; every id that cannot be placed is counted."""
    ids = _ids(raw)
    if not ids:
        tally.note("questions without evidence ids (recall not measured for them)", label)
    found: set[int] = set()
    for given in ids:
        step = _step_of(given)
        if step is None:
            tally.note("evidence ids that are no step number, left out", f"{label}: {given!r}")
        elif not 0 <= step < steps:
            tally.note(
                "evidence ids outside the trajectory, left out", f"{label}: {given!r} of {steps} steps"
            )
        else:
            if offsets is not None and isinstance(given, list):
                session = given[1]
                if not (0 <= session < len(offsets) - 1 and offsets[session] <= step < offsets[session + 1]):
                    tally.note(
                        "evidence ids whose message is in another session than they name, placed by the"
                        " message as MemBench's code does",
                        f"{label}: {given!r}",
                    )
            found.add(step)
    return sorted(found)


def _ids(raw: Any) -> list[Any]:
    if raw is None:
        return []
    return raw if isinstance(raw, list) else [raw]


def _step_of(raw: Any) -> int | None:
    """An evidence id as a step id: ints as they are; a raw file's `[message, session]` by its
    message, numbered across the whole trajectory (MemBench's `load_test_data.py` keeps `id[0]`)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.strip().lstrip("-").isdigit():
        return int(raw)
    if (
        isinstance(raw, list)
        and len(raw) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in raw)
    ):
        return int(raw[0])
    return None


def _steps(
    messages: list[Any], dialogue: bool, where: str, tally: LoadTally
) -> tuple[list[tuple[str, str, datetime]], list[int] | None]:
    """(user text, assistant text, time) per step, and the session offsets of raw data in sessions."""
    offsets: list[int] | None = None
    if messages and all(isinstance(session, list) for session in messages):
        offsets = [0]
        flat = []
        for session in messages:
            flat.extend(session)
            offsets.append(len(flat))
        messages = flat
    steps: list[tuple[str, str, datetime]] = []
    previous = _START - timedelta(minutes=1)
    for entry in messages:
        user: Any
        assistant: Any
        raw_time: Any
        if isinstance(entry, str):
            suffix = _SUFFIX.search(entry)
            user, assistant, raw_time = entry, "", suffix.group("time") if suffix else None
        elif isinstance(entry, dict):
            user = entry.get("user", entry.get("user_message", entry.get("message")))
            assistant = entry.get("assistant", entry.get("assistant_message", entry.get("agent", "")))
            if user is None:
                raise usage_error(f"{where}: a message has none of the keys user, user_message, message")
            raw_time = entry.get("time")
            if not dialogue and entry.get("place"):
                user = f"{user} (place: {entry['place']})"
        else:
            raise usage_error(f"{where}: a message is a {type(entry).__name__}, expected text or an object")
        when = parse_time(raw_time)
        if when is None:
            if raw_time not in (None, ""):
                tally.note(
                    "message times in no known format, set a minute after the message before", repr(raw_time)
                )
            when = previous + timedelta(minutes=1)
        steps.append((str(user), str(assistant or ""), when))
        previous = when
    return steps, offsets


def parse_time(raw: Any) -> datetime | None:
    """A released time string as a datetime, or None when it is in no format we know."""
    if raw is None:
        return None
    text = str(raw).strip().strip("'\"").strip()
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    for form in _TIME_FORMATS:
        try:
            return datetime.strptime(text, form)
        except ValueError:
            continue
    return None


# -- writing ------------------------------------------------------------------------------------


def to_published(case: Case, *, dialogue: bool, noise_inserted: bool, tid: int = 0) -> dict[str, Any]:
    """A generated case as a released trajectory, for fixtures and for sharing generated sets.

    `noise_inserted` picks the test-file form (flat lists, the "(place: P; time'T')" suffix, flat
    ids) over the raw category-file form (message objects; sessions with [turn, session] ids,
    a session being a day of the conversation; an id is `[message, session]`, the message
    numbered across the whole trajectory, as the released files number it).
    """
    messages = list(case.turns())
    stride = 2 if dialogue else 1
    steps = [
        (messages[i], messages[i + 1] if dialogue else messages[i]) for i in range(0, len(messages), stride)
    ]
    qa: dict[str, Any] = {
        "qid": tid,
        "question": case.question,
        "time": f"{steps[-1][0].timestamp:%Y-%m-%d %H:%M}",
        "choices": dict(zip("ABCD", case.options, strict=False)),
        "ground_truth": case.answer,
        "answer": case.options["ABCD".index(case.answer)],
        "target_step_id": list(case.evidence),
    }
    if not dialogue:
        listed: list[Any] = []
        for user, _ in steps:
            match = _SUFFIX.search(user.text)
            text, place = (user.text[: match.start()], match.group("place")) if match else (user.text, "")
            stamp = f"{user.timestamp:%Y-%m-%d %H:%M}"
            listed.append(
                f"{text} (place: {place}; time'{stamp}')"
                if noise_inserted
                else {"message": text, "time": stamp, "place": place}
            )
        return {"tid": tid, "message_list": listed, "QA": qa}
    if noise_inserted:
        return {"tid": tid, "message_list": [{"user": u.text, "agent": a.text} for u, a in steps], "QA": qa}
    sessions: list[list[dict[str, str]]] = []
    where: list[list[int]] = []
    day = None
    for user, reply in steps:
        if user.timestamp.date() != day:
            sessions.append([])
            day = user.timestamp.date()
        where.append([len(where), len(sessions) - 1])
        sessions[-1].append(
            {
                "user": user.text,
                "assistant": reply.text,
                "time": f"{user.timestamp:%Y-%m-%d %H:%M}",
                "place": "",
            }
        )
    qa["target_step_id"] = [where[step] for step in case.evidence]
    return {"tid": tid, "message_list": sessions, "QA": qa}
