"""The API the editor uses: the served folder's files, the check as you type, the JSON Schema,
the templates of `hvnet topology`, and the form view's reads and edits.

These answer in the server's process, at once (no worker): each is a parse of one text, bounded by
the body's size (`guard`) and by the loader's own bounds (nesting, aliases: `model.yamltree`).
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from hvnet.errors import HvnetError, Problem, ScenarioError
from hvnet.web.files import FileConflict, PathRefused, Workspace
from hvnet.web.forms import FormError, apply_edits, read_form
from hvnet.web.runs_api import YAML_BODY, ApiFailure, NameQuery, scenario_name, scenario_text

__all__ = ["TopologyRequest", "problems_of", "router"]

router = APIRouter(prefix="/api")
_VARIANTS = re.compile(r"^variants[ \t]*:", re.MULTILINE)


def _workspace(request: Request) -> Workspace:
    workspace: Workspace = request.app.state.workspace
    return workspace


# --- files --------------------------------------------------------------------------------------


@router.get("/files", tags=["files"], summary="The scenario files of the served folder.")
async def list_files(request: Request) -> dict[str, object]:
    workspace = _workspace(request)
    return {"root": workspace.root.name or str(workspace.root), "files": await run_in_threadpool(workspace.scenarios)}


@router.get("/files/{path:path}", tags=["files"], summary="A scenario's text and version.")
async def read_file(request: Request, path: str) -> dict[str, object]:
    try:
        text, version = _workspace(request).read(path)
    except PathRefused as refused:
        raise ApiFailure(refused.status, "path", [str(refused)]) from None
    return {"path": path, "text": text, "version": version}


@router.put("/files/{path:path}", tags=["files"], summary="Save a scenario.", openapi_extra=YAML_BODY)
async def write_file(
    request: Request,
    path: str,
    version: Annotated[
        str | None, Query(description="The version the file was opened at: it is replaced only if unchanged.")
    ] = None,
    force: Annotated[bool, Query(description="Replace the file whatever it holds (the user confirmed).")] = False,
) -> dict[str, object]:
    text = scenario_text(await request.body(), path)
    try:
        new_version = _workspace(request).write(path, text, version, force)
    except PathRefused as refused:
        raise ApiFailure(refused.status, "path", [str(refused)]) from None
    except FileConflict as conflict:
        raise ApiFailure(409, "exists", [str(conflict)]) from None
    return {"path": path, "version": new_version}


# --- checks as you type, the schema -------------------------------------------------------------


def problems_of(text: str, name: str) -> list[Problem]:
    """What `hvnet simulate` (and `compare`, for a file with variants:) would say of the text's
    file: its problems, each with its line, in the file `name`; none when it loads."""
    try:
        if _VARIANTS.search(text) is None:
            from hvnet.model import parse_scenario

            parse_scenario(text, name)
            return []
        from hvnet.variants import load_variants

        with tempfile.TemporaryDirectory(prefix="hvnet-check-") as folder:
            path = Path(folder) / PurePosixPath(name).name
            path.write_text(text, encoding="utf-8")
            try:
                load_variants(path)
            except ScenarioError as error:
                raise ScenarioError(
                    replace(p, file=name) if p.file == str(path) else p for p in error.problems
                ) from None
    except ScenarioError as error:
        return list(error.problems)
    return []


@router.post(
    "/validate",
    tags=["edit"],
    summary="Check a scenario as the loader does: every problem with its line (200 whether or not it has any).",
    openapi_extra=YAML_BODY,
)
async def validate(request: Request, name: NameQuery = "scenario.yaml") -> dict[str, object]:
    name = scenario_name(name)
    text = scenario_text(await request.body(), name)
    found = await run_in_threadpool(problems_of, text, name)
    return {"problems": [{"line": p.line, "field": p.field, "message": p.message, "text": str(p)} for p in found]}


@router.get("/schema", tags=["edit"], summary="The JSON Schema of scenario files (`hvnet schema`).")
async def schema() -> dict[str, Any]:
    from hvnet.model import scenario_json_schema

    return scenario_json_schema()


# --- templates ----------------------------------------------------------------------------------


class TopologyRequest(BaseModel):
    """The options of `hvnet topology star|leaf-spine`, by the same names."""

    kind: Literal["star", "leaf-spine"] = "star"
    hosts: int = Field(2, ge=1, le=1000)
    nic: str = "10Gbps"
    nics: int | None = Field(None, ge=1, le=32)
    team: str | None = None
    team_mode: str | None = None
    load_balancing: str | None = None
    vswitch: bool | None = None
    live_migration: str | None = None
    vms: int = Field(0, ge=0, le=10_000)
    vm_memory: str = "8GiB"
    vm_vcpus: int = Field(2, ge=1, le=240)
    drain: str | None = None
    traffic: str | None = None
    leaves: int = Field(2, ge=1, le=64)
    spines: int = Field(2, ge=1, le=64)
    uplink: str = "40Gbps"


def _generate(ask: TopologyRequest) -> str:
    """What `hvnet topology` prints for the same options (cli.topology._generated)."""
    from hvnet.errors import UnitError
    from hvnet.model import LoadBalancing, MigrationOption, TeamingMode, TeamKind, parse_scenario
    from hvnet.topology import Design, choice, leaf_spine, star
    from hvnet.units import parse_bitrate

    for option, value in (("nic", ask.nic), ("uplink", ask.uplink)):
        try:
            parse_bitrate(value)
        except UnitError as error:
            raise UnitError(f"{option}: {error}") from None
    kind = None if ask.team is None else choice("team", ask.team, TeamKind)
    design = Design(
        nics=ask.nics or (2 if kind is not None else 1),
        team=kind,
        team_mode=None if ask.team_mode is None else choice("team_mode", ask.team_mode, TeamingMode),
        load_balancing=None
        if ask.load_balancing is None
        else choice("load_balancing", ask.load_balancing, LoadBalancing),
        vswitch=ask.vswitch,
        live_migration=None
        if ask.live_migration is None
        else choice("live_migration", ask.live_migration, MigrationOption),
        vms=ask.vms,
        vm_memory=ask.vm_memory,
        vm_vcpus=ask.vm_vcpus,
        drain=ask.drain,
        traffic=ask.traffic,
    )
    if ask.kind == "star":
        text = star(ask.hosts, ask.nic, design=design)
    else:
        text = leaf_spine(ask.hosts, ask.nic, ask.leaves, ask.spines, ask.uplink, design=design)
    parse_scenario(text, "<generated>")  # what is given loads: a mistake here is hvnet's
    return text


@router.post("/topology", tags=["edit"], summary="A new scenario from a template, as `hvnet topology` prints it.")
async def topology(ask: TopologyRequest) -> dict[str, str]:
    try:
        return {"yaml": await run_in_threadpool(_generate, ask)}
    except HvnetError as error:
        raise ApiFailure(422, "options", str(error).splitlines()) from None


# --- the form view ------------------------------------------------------------------------------


class FormEdits(BaseModel):
    """The scenario's text and the form's edits to make in it (`forms.apply_edits`)."""

    yaml: str
    edits: list[dict[str, Any]]


@router.post(
    "/form", tags=["edit"], summary="The form's fields of a scenario: hosts, NICs, teams, VMs.", openapi_extra=YAML_BODY
)
async def form(request: Request) -> dict[str, Any]:
    text = scenario_text(await request.body(), "scenario.yaml")
    try:
        return await run_in_threadpool(read_form, text)
    except FormError as error:
        raise ApiFailure(422, "form", [str(error)]) from None


@router.post("/form/apply", tags=["edit"], summary="The scenario's text with the form's edits made in it.")
async def form_apply(edits: FormEdits) -> dict[str, str]:
    try:
        return {"yaml": await run_in_threadpool(apply_edits, edits.yaml, edits.edits)}
    except FormError as error:
        raise ApiFailure(422, "form", [str(error)]) from None
