"""A loopback server of the MemMachine endpoints its client (memmachine-client 0.4.0) calls, for its tests.

    GET  /api/v2/health                           the service's status and version
    POST /api/v2/projects                         make a project (201); 409 when it exists
    POST /api/v2/projects/get                     a project; 404 for none
    POST /api/v2/projects/delete                  a project and its memories (204); 404 for none
    POST /api/v2/memories                         messages in, an episode each (and the profile's queue)
    POST /api/v2/memories/search                  episodes (long- and short-term) and features for a query
    POST /api/v2/memories/list                    a page of the episodes or of the features
    POST /api/v2/memories/semantic/feature/get    a feature, with the episodes it cites when asked

The rules, each from MemMachine's own code (memmachine-server 0.4.0 `server/api_v2/router.py` and
`service.py`; the request and response models of memmachine-common 0.4.0 `api/spec.py`, which the
server validates every body against, so this server does too: a body the model refuses is a 422):
  - a request carries `Authorization: Bearer KEY` when the server has a key (the client sets it
    from `api_key`, client.py), else 401;
  - ids are `SafeId`s (letters, digits, `_`, `:`, `-`); `top_k` is 1 or more (`SearchMemoriesSpec`);
  - an add answers `{"results": [{"uid"}]}`, one uid a message in their order (`AddMemoriesResponse`),
    each message an episode dated by its `timestamp` (`created_at`), `producer` its `producer_id`;
    `types` empty means both memories (`ALL_MEMORY_TYPES`);
  - a search or a list of a project never made is a 404 "Project does not exist" (router.py);
  - search and list answer without the fields that are None (`response_model_exclude_none`);
  - profile ("semantic") memory is extracted in the background from a project's messages once at
    least `ingestion_trigger_messages` (5, `SemanticMemoryConf`) wait; the service reports no
    status for it.
What stands in for MemMachine's models: a long-term search ranks a project's episodes by the
words they share with the query (MemMachine: embeddings and a reranker); its short-term memory is
the newest `short_term` episodes; the profile's extraction makes one feature of each message
(`conversation: note N = text`, citing its episode), `extract_lists` listings after the messages
were queued (standing in for the background task's interval); tokens are words.  The filter
language is not parsed: a search or list with a filter is refused.
"""

from __future__ import annotations

import itertools
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.loopback import LoopbackState, Request, serve

PREFIX = "/api/v2"
VERSION = "0.4.0"
INGESTION_TRIGGER_MESSAGES = 5  # memmachine-server common/configuration SemanticMemoryConf
_WORD = re.compile(r"[a-z0-9]+")


class Refused(Exception):
    """A request the server answers with an error: its status and detail."""

    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass
class Project:
    description: str
    episodes: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)
    queued: list[dict[str, Any]] = field(default_factory=list)  # episodes the profile has not read
    lists_since_queued: int = 0


@dataclass
class MemMachineServer(LoopbackState):
    key: str = "mm-test-key"
    short_term: int = 2  # the newest episodes a search returns as short-term memory
    extract_lists: int = 1  # feature listings before queued messages are extracted
    projects: dict[str, Project] = field(default_factory=dict)  # "org/project" -> its memories
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def authorised(self, request: Request) -> bool:
        return not self.key or request.headers.get("authorization") == f"Bearer {self.key}"

    def namespace(self, request: Request) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        return str(body["project_id"]) if "project_id" in body else None

    def adds(self, request: Request) -> bool:
        return request.method == "POST" and request.path == f"{PREFIX}/memories"

    def error(self, title: str, message: str) -> Any:
        return {"detail": message}

    def route(self, request: Request) -> tuple[int, Any]:
        from pydantic import ValidationError

        path = request.path.removeprefix(PREFIX)
        if request.method == "GET" and path == "/health":
            return 200, {"status": "healthy", "service": "memmachine", "version": VERSION}
        handler = _ROUTES.get(path) if request.method == "POST" else None
        if handler is None:
            return 404, {"detail": "Not Found"}
        try:
            return handler(self, request.body or {})
        except ValidationError as exc:  # FastAPI's RequestValidationError, as RestError words it
            return 422, {"detail": f"Invalid request payload: {exc.errors()[0]['msg']}"}
        except Refused as refused:
            return refused.status, {"detail": refused.detail}

    def _read(self, spec: Any) -> Project:
        """The project a search or a listing reads: a 404 for none (router.py); a filter refused."""
        project = self.projects.get(f"{spec.org_id}/{spec.project_id}")
        if project is None:
            raise Refused(404, "Project does not exist")
        if spec.filter:
            raise Refused(422, "this fake parses no filter")
        return project

    # -- projects ---------------------------------------------------------------------------------

    def _create(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import CreateProjectSpec

        spec = CreateProjectSpec.model_validate(body)
        key = f"{spec.org_id}/{spec.project_id}"
        if key in self.projects:
            return 409, {"detail": "Project already exists"}
        self.projects[key] = Project(spec.description)
        return 201, self._project(spec.org_id, spec.project_id)

    def _get(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import GetProjectSpec

        spec = GetProjectSpec.model_validate(body)
        if f"{spec.org_id}/{spec.project_id}" not in self.projects:
            return 404, {"detail": "Project does not exist"}
        return 200, self._project(spec.org_id, spec.project_id)

    def _delete(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import DeleteProjectSpec

        spec = DeleteProjectSpec.model_validate(body)
        if self.projects.pop(f"{spec.org_id}/{spec.project_id}", None) is None:
            return 404, {"detail": "Project does not exist"}
        return 204, None

    def _project(self, org: str, project: str) -> dict[str, Any]:
        config = {"embedder": "", "reranker": "", "vector_graph_store": "", "vector_store": "",
                  "segment_store": "", "properties_schema": {}}  # fmt: skip
        description = self.projects[f"{org}/{project}"].description
        return {"org_id": org, "project_id": project, "description": description, "config": config}

    # -- memories ---------------------------------------------------------------------------------

    def _add(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import AddMemoriesSpec

        spec = AddMemoriesSpec.model_validate(body)
        project = self.projects.setdefault(f"{spec.org_id}/{spec.project_id}", Project(""))
        kinds = {kind.value for kind in spec.types} or {"episodic", "semantic"}
        results = []
        for message in spec.messages:
            episode = {
                "uid": str(uuid.uuid4()),
                "content": message.content,
                "session_key": f"{spec.org_id}/{spec.project_id}",
                "created_at": message.timestamp.isoformat(),
                "producer_id": message.producer,
                "producer_role": message.role,
                "produced_for_id": message.produced_for,
                "episode_type": "message",
                "metadata": dict(message.metadata) or None,
            }
            if "episodic" in kinds:
                project.episodes.append(episode)
            if "semantic" in kinds:
                project.queued.append(episode)
            results.append({"uid": episode["uid"]})
        return 200, {"results": results}

    def _search(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import SearchMemoriesSpec

        spec = SearchMemoriesSpec.model_validate(body)
        project = self._read(spec)
        kinds = {kind.value for kind in spec.types} or {"episodic", "semantic"}
        content: dict[str, Any] = {}
        if "episodic" in kinds:
            ranked = _ranked(spec.query, project.episodes, "content")[: spec.top_k]
            long_term = [episode | {"score": score} for score, episode in ranked]
            short_term = project.episodes[-self.short_term :] if self.short_term else []
            content["episodic_memory"] = {
                "long_term_memory": {"episodes": [_response(e) for e in long_term]},
                "short_term_memory": {"episodes": [_response(e) for e in short_term], "episode_summary": []},
            }
        if "semantic" in kinds:
            ranked = _ranked(spec.query, project.features, "value")[: spec.top_k]
            content["semantic_memory"] = [_feature(feature, citations=False) for _, feature in ranked]
        return 200, {"status": 0, "content": content}

    def _list(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import ListMemoriesSpec

        spec = ListMemoriesSpec.model_validate(body)
        project = self._read(spec)
        kinds = {spec.type.value} if spec.type is not None else {"episodic", "semantic"}
        start = spec.page_num * spec.page_size
        content: dict[str, Any] = {}
        if "episodic" in kinds:
            page = project.episodes[start : start + spec.page_size]
            content["episodic_memory"] = [{k: v for k, v in e.items() if v is not None} for e in page]
        if "semantic" in kinds:
            self._extract(project)
            page = project.features[start : start + spec.page_size]
            content["semantic_memory"] = [_feature(feature, citations=False) for feature in page]
        return 200, {"status": 0, "content": content}

    def _get_feature(self, body: dict[str, Any]) -> tuple[int, Any]:
        from memmachine_common.api.spec import GetFeatureSpec

        spec = GetFeatureSpec.model_validate(body)
        project = self.projects.get(f"{spec.org_id}/{spec.project_id}")
        found = [f for f in (project.features if project else []) if f["id"] == spec.feature_id]
        if not found:
            return 404, {"detail": "Feature not found"}
        return 200, _feature(found[0], citations=spec.load_citations)

    def _extract(self, project: Project) -> None:
        """The background extraction: once enough messages wait, after a few listings."""
        if len(project.queued) < INGESTION_TRIGGER_MESSAGES:
            return
        project.lists_since_queued += 1
        if project.lists_since_queued < self.extract_lists:
            return
        for episode in project.queued:
            n = next(self._ids)
            project.features.append(
                {
                    "id": str(n),
                    "tag": "conversation",
                    "feature_name": f"note {n}",
                    "value": episode["content"],
                    "citations": [episode["uid"]],
                }  # fmt: skip
            )
        project.queued, project.lists_since_queued = [], 0


def _ranked(query: str, items: list[dict[str, Any]], text: str) -> list[tuple[float, dict[str, Any]]]:
    """The items sharing a word with the query, most shared first, each with its share as a score."""
    asked = set(_WORD.findall(query.lower()))
    scored = [(len(asked & set(_WORD.findall(str(item[text]).lower()))), item) for item in items]
    return [(float(n) / max(len(asked), 1), item) for n, item in sorted(scored, key=lambda s: -s[0]) if n]


def _response(episode: dict[str, Any]) -> dict[str, Any]:
    """An `EpisodeResponse`, without its None fields."""
    keys = ("uid", "content", "producer_id", "producer_role", "produced_for_id", "episode_type", "metadata",
            "created_at", "score")  # fmt: skip
    return {key: episode[key] for key in keys if episode.get(key) is not None}


def _feature(feature: dict[str, Any], *, citations: bool) -> dict[str, Any]:
    """A `SemanticFeature`; its citations only when asked for (`load_citations`)."""
    metadata: dict[str, Any] = {"id": feature["id"]}
    if citations:
        metadata["citations"] = feature["citations"]
    return {"category": "profile", "tag": feature["tag"], "feature_name": feature["feature_name"],
            "value": feature["value"], "metadata": metadata}  # fmt: skip


_ROUTES = {
    "/projects": MemMachineServer._create,
    "/projects/get": MemMachineServer._get,
    "/projects/delete": MemMachineServer._delete,
    "/memories": MemMachineServer._add,
    "/memories/search": MemMachineServer._search,
    "/memories/list": MemMachineServer._list,
    "/memories/semantic/feature/get": MemMachineServer._get_feature,
}


@contextmanager
def memmachine_server(**options: Any) -> Iterator[MemMachineServer]:
    """A running server on 127.0.0.1 (its `url` set), stopped on leaving."""
    state = MemMachineServer(**options)
    with serve(state):
        yield state
