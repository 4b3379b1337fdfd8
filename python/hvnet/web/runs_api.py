"""The API that runs hvnet: ``POST /api/simulate`` and its kin, and the jobs the pages follow.

Each command has two routes with the same input:

- ``POST /api/{command}`` runs it and answers when it is done: the JSON document of
  ``hvnet {command} --json`` (200), or the failure: 422 with the problem lines a scenario, an input
  file or the run budget gives (``file:line: field: message``, as the CLI prints them), 429 when
  every worker is busy and the queue is full (Retry-After), 504 past the time limit, 500 for a
  failure of hvnet itself;
- ``POST /api/jobs/{command}`` queues it and answers 202 at once with the job's status; then
  ``GET /api/jobs/{id}`` is its progress, ``GET /api/jobs/{id}/document`` its answer (as above),
  ``GET /api/jobs/{id}/view`` its page (the HTML report, or the terminal's tables) and
  ``DELETE /api/jobs/{id}`` cancels it.

The scenario commands take the scenario as the body (``Content-Type: application/yaml``) and its
file name in ``?name=`` (problems are reported in it); explain and the imports take files
(multipart/form-data).

Annotations are evaluated as the routes are made (no ``from __future__ import annotations``): FastAPI
reads each route's dependency from them, and one of them is the command's own input.
"""

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import PurePosixPath
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, Response

from hvnet.errors import decode_text
from hvnet.web.jobs import Job, JobQueue, QueueFull
from hvnet.web.tasks import Task

__all__ = ["YAML_BODY", "ApiFailure", "failure_response", "router", "scenario_name", "scenario_text"]

router = APIRouter(prefix="/api")

#: The OpenAPI description of a scenario body.
YAML_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The scenario, as YAML (docs/scenario.md).",
        "content": {"application/yaml": {"schema": {"type": "string"}, "example": "name: two hosts\nhosts: [...]\n"}},
    }
}
_PROBLEMS = {"description": "The problems, one line each: {'detail': ..., 'kind': ..., 'problems': [...]}"}
_RESPONSES: dict[int | str, dict[str, Any]] = {
    422: _PROBLEMS,
    429: {"description": "Every worker is busy and the queue is full; try again after Retry-After seconds."},
    504: {"description": "The run took longer than the time limit (hvnet serve --time-limit)."},
}
#: How often a waiting request looks whether its client is still there.
_CLIENT_CHECK_S = 0.5

NameQuery = Annotated[str, Query(description="The scenario's file name, used in problems (file:line: field: message).")]


class ApiFailure(Exception):
    """A request answered with a failure (`failure_response`): app.py turns it into the response."""

    def __init__(self, status: int, kind: str, problems: list[str], headers: dict[str, str] | None = None) -> None:
        super().__init__(problems[0] if problems else kind)
        self.status, self.kind, self.problems, self.headers = status, kind, problems, headers


def scenario_name(name: str) -> str:
    """A file name for problems and the scenario's file in the worker: a relative YAML path."""
    cleaned = "/".join(part for part in name.replace("\\", "/").split("/") if part not in ("", ".", ".."))
    cleaned = cleaned.lstrip(".~") or "scenario.yaml"
    if PurePosixPath(cleaned).suffix.lower() not in (".yaml", ".yml"):
        cleaned += ".yaml"
    return cleaned


def scenario_text(body: bytes, name: str) -> str:
    """The body as text; 422 with the problem of its first byte that is not UTF-8."""
    text = decode_text(body, name)
    if not isinstance(text, str):
        raise ApiFailure(422, "scenario", [str(text)])
    return text


def failure_response(status: int, kind: str, problems: list[str], headers: dict[str, str] | None = None) -> Response:
    """The JSON answer of a failure: its first line as `detail`, every line in `problems`."""
    body = {"detail": problems[0] if problems else kind, "kind": kind, "problems": problems}
    return JSONResponse(body, status_code=status, headers=headers)


def _queue(request: Request) -> JobQueue:
    queue: JobQueue = request.app.state.queue
    return queue


def _submit(request: Request, task: Task) -> Job:
    try:
        return _queue(request).submit(task)
    except QueueFull as full:
        raise ApiFailure(429, "busy", [str(full)], {"Retry-After": str(full.retry_after_s)}) from None


def outcome(job: Job) -> Response:
    """A finished job's answer: its document, or its failure."""
    if job.answer is not None:
        return Response(job.answer.document, media_type="application/json")
    if job.failure is not None:
        return failure_response(job.failure.status, job.failure.kind, list(job.failure.problems))
    return failure_response(409, "cancelled", ["the run was cancelled"])


async def _wait(request: Request, job: Job) -> Response:
    """Waits for `job`; a client that went away cancels it (its worker is freed at once)."""
    while not job.is_finished:
        try:
            await asyncio.wait_for(job.finished(), _CLIENT_CHECK_S)
        except TimeoutError:
            if await request.is_disconnected():
                _queue(request).cancel(job.id)
                await job.finished()
    return outcome(job)


# --- the inputs of each command ------------------------------------------------------------------


async def _yaml_task(request: Request, command: str, name: str, options: dict[str, object]) -> Task:
    name = scenario_name(name)
    return Task(command, name, scenario_text(await request.body(), name), options=options)


async def simulate_input(
    request: Request,
    name: NameQuery = "scenario.yaml",
    failure_costs: Annotated[
        int | None, Query(ge=0, description="Cost this many failures, the first in time (default 16).")
    ] = None,
    uncertainty: Annotated[
        bool,
        Query(
            description="Band each headline figure: every unconfirmed parameter at either end of its range "
            "(two runs a parameter), durations widened to the validation's leave-one-out residuals."
        ),
    ] = False,
) -> Task:
    return await _yaml_task(request, "simulate", name, {"failure_costs": failure_costs, "uncertainty": uncertainty})


async def check_input(
    request: Request,
    name: NameQuery = "scenario.yaml",
    limit: Annotated[int | None, Query(ge=1, description="At most this many failures of each kind.")] = None,
) -> Task:
    return await _yaml_task(request, "check", name, {"limit": limit})


async def advise_input(
    request: Request,
    name: NameQuery = "scenario.yaml",
    effects: Annotated[bool, Query(description="Simulate each fix to state its effect.")] = True,
) -> Task:
    return await _yaml_task(request, "advise", name, {"effects": effects})


def _plain_input(command: str) -> Callable[..., Awaitable[Task]]:
    async def plain_input(request: Request, name: NameQuery = "scenario.yaml") -> Task:
        return await _yaml_task(request, command, name, {})

    return plain_input


async def _uploads(files: list[UploadFile]) -> tuple[tuple[str, bytes], ...]:
    return tuple([(file.filename or "upload", await file.read()) for file in files])


async def explain_input(
    scenario: Annotated[UploadFile, File(description="The scenario of the cluster the measurement was taken on.")],
    measurements: Annotated[list[UploadFile], File(description="NTttcp or iperf3 -J output, counter logs.")],
    sender: Annotated[str | None, Form(alias="from", description="Host or VM that sent.")] = None,
    receiver: Annotated[str | None, Form(alias="to", description="Host or VM that received.")] = None,
) -> Task:
    name = scenario_name(scenario.filename or "scenario.yaml")
    text = scenario_text(await scenario.read(), name)
    options: dict[str, object] = {"from": sender or None, "to": receiver or None}
    return Task("explain", name, text, await _uploads(measurements), options)


async def measurement_input(
    files: Annotated[list[UploadFile], File(description="NTttcp, iperf3 -J, PDH-CSV, sar/sadf, ip, /proc/net/dev.")],
) -> Task:
    return Task("import-measurement", uploads=await _uploads(files))


async def config_input(
    files: Annotated[list[UploadFile], File(description="One JSON dump per host, as collect.ps1 writes them.")],
) -> Task:
    return Task("import-config", uploads=await _uploads(files))


#: Each route: (path, the input, summary, whether the body is a scenario).
_COMMANDS: list[tuple[str, Callable[..., Awaitable[Task]], str, bool]] = [
    ("simulate", simulate_input, "Simulate a scenario: the document of `hvnet simulate --json`.", True),
    ("compare", _plain_input("compare"), "Every variant side by side: `hvnet compare --json`.", True),
    ("check", check_input, "Evaluate its requirements under every failure: `hvnet check --json`.", True),
    ("advise", advise_input, "What the design should change, and why: `hvnet advise --json`.", True),
    ("cost", _plain_input("cost"), "The priced bill of materials (each variant's): `hvnet cost --json`.", True),
    ("design", _plain_input("design"), "The cheapest candidate that meets them: `hvnet design --json`.", True),
    ("explain", explain_input, "Measured beside predicted, and what explains the gap: `hvnet explain --json`.", False),
    (
        "import/measurement",
        measurement_input,
        "Measurement files normalised: `hvnet import measurement --json`.",
        False,
    ),
    ("import/config", config_input, "Hosts' configuration dumps as a scenario: {yaml, assumptions, problems}.", False),
]


def _add_routes(path: str, make_input: Callable[..., Awaitable[Task]], summary: str, yaml_body: bool) -> None:
    extra = YAML_BODY if yaml_body else None

    @router.post(f"/{path}", summary=summary, responses=_RESPONSES, openapi_extra=extra, tags=["run"])
    async def run_now(request: Request, task: Annotated[Task, Depends(make_input)]) -> Response:
        return await _wait(request, _submit(request, task))

    @router.post(
        f"/jobs/{path}",
        status_code=202,
        summary=f"Queue it; follow GET /api/jobs/{{id}}. {summary}",
        responses=_RESPONSES,
        openapi_extra=extra,
        tags=["jobs"],
    )
    async def run_later(request: Request, task: Annotated[Task, Depends(make_input)]) -> dict[str, object]:
        return _submit(request, task).status()


for _path, _input, _summary, _yaml in _COMMANDS:
    _add_routes(_path, _input, _summary, _yaml)


def _job(request: Request, job_id: str) -> Job:
    job = _queue(request).get(job_id)
    if job is None:
        raise HTTPException(404, f"no job {job_id} (finished jobs are kept a while, then forgotten)")
    return job


@router.get("/jobs/{job_id}", tags=["jobs"], summary="A job's state and progress (done of total simulations).")
async def job_status(request: Request, job_id: str) -> dict[str, object]:
    return _job(request, job_id).status()


@router.get("/jobs/{job_id}/document", tags=["jobs"], summary="A finished job's answer, as POST /api/{command}'s.")
async def job_document(request: Request, job_id: str) -> Response:
    job = _job(request, job_id)
    if not job.is_finished:
        return failure_response(409, "running", [f"job {job_id} is {job.state}; ask again when it is done"])
    return outcome(job)


@router.get(
    "/jobs/{job_id}/view",
    tags=["jobs"],
    summary="A finished job's page: the HTML report, or the terminal's tables.",
    response_class=HTMLResponse,
)
async def job_view(request: Request, job_id: str) -> Response:
    job = _job(request, job_id)
    if job.answer is None or job.answer.view is None:
        raise HTTPException(404, f"job {job_id} has no page ({job.state})")
    return HTMLResponse(job.answer.view, headers={"Cache-Control": "no-store"})


@router.delete("/jobs/{job_id}", tags=["jobs"], summary="Cancel a job: its worker process is killed.")
async def job_cancel(request: Request, job_id: str) -> dict[str, object]:
    job = _job(request, job_id)
    _queue(request).cancel(job_id)
    if not job.is_finished:
        await asyncio.wait_for(job.finished(), 10)
    return job.status()
