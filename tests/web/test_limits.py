"""What keeps `hvnet serve` safe and bounded (docs/web.md, "Security" and "Limits"): the token off
loopback (401), the body's size (413), the host and origin of a request (403), the queue (429), a
run's time limit (504) and the run budget (422), and a cancel that frees the worker at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from hvnet.web.settings import Settings, is_loopback
from tests.web.conftest import Served, drained_star, slow_scenario

YAML = {"Content-Type": "application/yaml"}
Serve = Callable[..., Served]
TOKEN = "a-test-token-of-some-length"


def _wait_for(client: httpx.Client, job: str, states: tuple[str, ...], seconds: float = 20) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        status: dict[str, object] = client.get(f"/api/jobs/{job}").json()
        if status["state"] in states or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


# --- the token ----------------------------------------------------------------------------------


def test_loopback_needs_no_token_and_any_other_address_gets_one() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost") and is_loopback("127.8.0.1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.10") and not is_loopback("example.org")
    assert Settings(root=Path(".")).token is None
    generated = Settings(root=Path("."), host="0.0.0.0").token
    assert generated is not None and len(generated) >= 32
    assert Settings(root=Path("."), host="0.0.0.0").token != generated  # new each time


def test_off_loopback_a_request_without_the_token_gets_401(serve: Serve) -> None:
    """The guard follows the settings: served for 192.0.2.10 (a non-loopback address), every API call
    and page needs the token, as a Bearer header, X-Hvnet-Token, or the login form's cookie."""
    server = serve(host="192.0.2.10", token=TOKEN)
    refused = server.client.get("/api/files")
    assert refused.status_code == 401
    assert refused.headers["www-authenticate"].startswith("Bearer")
    assert server.client.post("/api/simulate", content=drained_star(), headers=YAML).status_code == 401
    assert server.client.get("/api/files", headers={"Authorization": "Bearer wrong-token-123"}).status_code == 401
    assert server.client.get("/api/files", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert server.client.get("/api/files", headers={"X-Hvnet-Token": TOKEN}).status_code == 200
    simulated = server.client.post(
        "/api/simulate", content=drained_star(), headers={**YAML, "Authorization": f"Bearer {TOKEN}"}
    )
    assert simulated.status_code == 200


def test_a_page_without_the_token_is_sent_to_the_login_form_which_sets_a_cookie(serve: Serve) -> None:
    """A browser gets the login form; the token typed there becomes an HttpOnly, SameSite=Strict
    cookie, and the address never holds it."""
    server = serve(host="192.0.2.10", token=TOKEN)
    page = server.client.get("/", headers={"Accept": "text/html"})
    assert page.status_code == 303 and page.headers["location"] == "/login"
    assert server.client.get("/login").status_code == 200
    wrong = server.client.post("/login", data={"token": "not-the-token"})
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    signed_in = server.client.post("/login", data={"token": TOKEN})
    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/"
    cookie = signed_in.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert TOKEN not in signed_in.headers["location"]
    assert server.client.get("/api/files").status_code == 200  # the client keeps the cookie
    assert server.client.get("/", headers={"Accept": "text/html"}).status_code == 200


def test_on_loopback_a_given_token_is_required_too(serve: Serve) -> None:
    server = serve(token=TOKEN)
    assert server.client.get("/api/files").status_code == 401
    assert server.client.get("/api/files", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_a_foreign_host_name_or_origin_is_refused(served: Served) -> None:
    """A page of another site may not drive the server: a host name that is no loopback name (DNS
    rebinding) gets 403, and so does a request that changes something from another origin."""
    assert served.client.get("/api/files", headers={"Host": "evil.example:8765"}).status_code == 403
    foreign = served.client.post(
        "/api/simulate", content=drained_star(), headers={**YAML, "Origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    own = served.client.post("/api/validate", content=drained_star(), headers={**YAML, "Origin": served.url})
    assert own.status_code == 200
    assert served.client.get("/api/files", headers={"Host": "localhost:1"}).status_code == 200


# --- sizes --------------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_413(serve: Serve) -> None:
    """Refused from its Content-Length before it is read, or as it streams in without one."""
    server = serve(max_body_bytes=1000)
    large = "# padding\n" * 200 + drained_star()
    answer = server.client.post("/api/simulate", content=large, headers=YAML)
    assert answer.status_code == 413
    assert "at most 1,000 are accepted" in answer.json()["detail"]

    def chunks() -> Iterator[bytes]:
        for _ in range(50):
            yield b"# padding padding padding padding padding\n"

    streamed = server.client.post("/api/validate", content=chunks(), headers=YAML)
    assert streamed.status_code == 413
    assert server.client.post("/api/validate", content=drained_star()[:900], headers=YAML).status_code == 200


def test_a_run_over_the_budget_is_a_clear_422(serve: Serve) -> None:
    """The run budget (hvnet.budget) refuses a run too large for the memory allowed, with its cause,
    before the core runs it: the worker answers, it does not die."""
    server = serve(max_memory_bytes=20_000, workers=1)
    answer = server.client.post("/api/simulate?name=big.yaml", content=drained_star(), headers=YAML)
    assert answer.status_code == 422
    assert answer.json()["kind"] == "RunTooLarge"
    assert answer.json()["detail"].startswith("big.yaml: this run is too large to simulate: about")


# --- the queue, progress, cancel and the time limit ---------------------------------------------


def test_a_long_run_shows_progress_and_a_cancel_frees_its_worker(serve: Serve) -> None:
    """A check counts its simulations as they finish; a cancel kills the worker, so the one worker is
    free for the next run at once."""
    server = serve(workers=1, queue=1)
    job = server.client.post("/api/jobs/check?name=slow.yaml", content=slow_scenario(), headers=YAML)
    assert job.status_code == 202
    job_id = job.json()["id"]
    deadline = time.monotonic() + 20
    status = server.client.get(f"/api/jobs/{job_id}").json()
    while not status["done"] and time.monotonic() < deadline:
        time.sleep(0.05)
        status = server.client.get(f"/api/jobs/{job_id}").json()
    assert status["state"] == "running"
    assert 0 < status["done"] < status["total"] == 2520
    waiting = server.client.post("/api/jobs/simulate", content=drained_star(), headers=YAML).json()
    assert waiting["state"] == "queued"  # the one worker is busy
    cancelled = server.client.delete(f"/api/jobs/{job_id}").json()
    assert cancelled["state"] == "cancelled"
    assert _wait_for(server.client, waiting["id"], ("done", "failed"), 10)["state"] == "done"
    assert server.client.get(f"/api/jobs/{job_id}/document").status_code == 409


def test_past_the_queue_a_run_is_refused_429_with_retry_after(serve: Serve) -> None:
    server = serve(workers=1, queue=0)
    job = server.client.post("/api/jobs/check", content=slow_scenario(), headers=YAML).json()
    refused = server.client.post("/api/simulate", content=drained_star(), headers=YAML)
    assert refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0
    assert refused.json()["kind"] == "busy"
    server.client.delete(f"/api/jobs/{job['id']}")
    assert server.client.post("/api/simulate", content=drained_star(), headers=YAML).status_code == 200


def test_a_run_past_the_time_limit_is_stopped_504(serve: Serve) -> None:
    server = serve(time_limit_s=0.5, workers=1)
    answer = server.client.post("/api/check?name=slow.yaml", content=slow_scenario(), headers=YAML)
    assert answer.status_code == 504
    assert answer.json()["detail"].startswith("the run took longer than 0.5 s, the time limit of each run")
    assert server.client.post("/api/simulate", content=drained_star(), headers=YAML).status_code == 200


def test_an_unknown_job_is_404(served: Served) -> None:
    assert served.client.get("/api/jobs/nope").status_code == 404
    assert served.client.delete("/api/jobs/nope").status_code == 404


@pytest.mark.parametrize("command", ["simulate", "check", "advise", "cost", "design", "compare"])
def test_every_command_queues_as_a_job_with_a_page(served: Served, command: str) -> None:
    """The pages run each command as a job: it ends done, with its document and a page to show."""
    text = drained_star() + "requirements: {max_drain: 10min}\n"
    job = served.client.post(f"/api/jobs/{command}?name=s.yaml", content=text, headers=YAML)
    assert job.status_code == 202
    status = _wait_for(served.client, job.json()["id"], ("done", "failed", "cancelled"))
    assert status["state"] == "done", status
    assert status["has_view"] is True
    view = served.client.get(f"/api/jobs/{status['id']}/view")
    assert view.status_code == 200 and view.text.startswith("<!DOCTYPE html>")
    assert served.client.get(f"/api/jobs/{status['id']}/document").json()["hvnet"]


def test_a_client_that_hangs_up_cancels_its_run(serve: Serve) -> None:
    """POST /api/check waits for its answer; a client that gives up frees the worker within a second,
    rather than at the time limit."""
    server = serve(workers=1, queue=0)
    with pytest.raises(httpx.ReadTimeout), httpx.Client(base_url=server.url, timeout=0.5) as impatient:
        impatient.post("/api/check", content=slow_scenario(), headers=YAML)
    deadline = time.monotonic() + 5
    answer = server.client.post("/api/simulate", content=drained_star(), headers=YAML)
    while answer.status_code == 429 and time.monotonic() < deadline:
        time.sleep(0.1)
        answer = server.client.post("/api/simulate", content=drained_star(), headers=YAML)
    assert answer.status_code == 200
