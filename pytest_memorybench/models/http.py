"""The wire under every model client: one TLS context, what a server's error says, a probe of a server.

Apart from the chat adapters (`llm`), since none of it knows a transcript: the SDK clients share
`shared_tls`, a retry reads the server's `Retry-After` and its error body, and `--agent` and the
judge check that a local server answers before a run pays for anything.
"""

from __future__ import annotations

import email.utils
import json
import os
import ssl
import urllib.error
import urllib.request
from datetime import datetime, timezone
from functools import cache
from http import HTTPStatus
from typing import Any

from pytest_memorybench.core.errors import describe_exception, usage_error

MAX_DETAIL = 200  # characters of a server's error message worth showing


@cache
def shared_tls() -> ssl.SSLContext:
    """One TLS context for every SDK client of the process, trusting what httpx trusts by default:
    the CA bundle in SSL_CERT_FILE or the folder in SSL_CERT_DIR when set, certifi's otherwise.

    Each conversation gets its own agent, and each agent its own client; left to itself, each client
    loads the CA bundle again: 76 ms of CPU on the event loop every conversation waits on.  Made from
    the standard library, so it fits whichever HTTP client the installed SDK is built on (httpx
    before openai 3.57 and anthropic 2.14, httpx2 since).
    """
    import certifi

    cafile = os.environ.get("SSL_CERT_FILE", "")
    if os.path.isfile(cafile):
        return ssl.create_default_context(cafile=cafile)
    capath = os.environ.get("SSL_CERT_DIR", "")
    if os.path.isdir(capath):
        return ssl.create_default_context(capath=capath)
    return ssl.create_default_context(cafile=certifi.where())


def retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` or `retry-after` (seconds or date)."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is not None:
            try:
                return max(0.0, float(value) * scale)
            except ValueError:
                pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return max(0.0, (moment - datetime.now(timezone.utc)).total_seconds())


def error_fields(body: object) -> dict[str, Any]:
    """The error object inside a body, whether wrapped as {"error": {...}} or given bare."""
    if not isinstance(body, dict):
        return {}
    inner = body.get("error")
    return inner if isinstance(inner, dict) else body


def error_message(body: object) -> str:
    """The server's own words for an error, on one line and cut to `MAX_DETAIL` characters."""
    message = error_fields(body).get("message")
    if not isinstance(message, str):
        return ""
    text = " ".join(message.split())
    return text if len(text) <= MAX_DETAIL else text[: MAX_DETAIL - 1] + "…"


def error_code(body: object) -> str | None:
    """The error's code or type ("insufficient_quota", "overloaded_error"), if the body gives one."""
    fields = error_fields(body)
    return fields.get("code") or fields.get("type")


def status_phrase(status: int) -> str:
    """HTTP's name for `status` ("Too Many Requests"), or nothing for a status it does not name."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def probe_server(base_url: str, spec_text: str, timeout: float = 5.0, *, flag: str = "--agent") -> list[str]:
    """The model ids a server lists; fails in one line only if nothing answers at all.

    Any HTTP answer proves the server is up (an Anthropic-style server has no /models and
    says 404), and so does a connection it accepted but is slow to answer (a local server busy
    with a request, e.g. one left by a killed run): only failures to connect are fatal, since they
    would fail every test anyway.
    """
    url = f"{base_url.rstrip('/')}/models"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            payload = response.read()
    except (urllib.error.HTTPError, TimeoutError):  # urllib wraps a timeout to connect in URLError
        return []
    except OSError as exc:  # URLError: refused connections, unknown hosts, timeouts to connect
        reason = getattr(exc, "reason", None) or describe_exception(exc)
        raise usage_error(
            f"{flag} {spec_text}: cannot reach {url} ({reason}); start the server or fix the URL"
        ) from None
    try:
        return [str(entry["id"]) for entry in json.loads(payload)["data"]]
    except (ValueError, KeyError, TypeError):
        return []
