// Runs: a job queued on the server (POST /api/jobs/...), its progress polled until it ends, a
// cancel, and its answer shown: the page (report or tables) in the frame, the JSON a link away.
import { getJson, postForm, postYaml, remove, named } from "./api.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 250;
let current = null; // the job followed now: {id, command}

function list(element, lines, onClick) {
  element.replaceChildren(
    ...lines.map((line) => {
      const item = document.createElement("li");
      item.textContent = line;
      if (onClick) item.addEventListener("click", () => onClick(line));
      return item;
    }),
  );
}

function showProgress(status) {
  $("progress").hidden = false;
  const bar = $("bar");
  if (status.total > 0) {
    bar.max = status.total;
    bar.value = status.done;
  } else {
    bar.removeAttribute("value"); // indeterminate: the command does not count its runs
  }
  const counted = status.total > 0 ? `, ${status.done} of ${status.total} simulations` : "";
  $("progress-text").textContent = `${status.command}: ${status.state}${counted}, ${status.elapsed_s.toFixed(1)} s`;
}

function reset(command) {
  list($("run-problems"), []);
  list($("notes"), []);
  $("answer").hidden = true;
  $("progress").hidden = false;
  $("cancel").disabled = false;
  $("progress-text").textContent = `${command}: starting`;
}

/** Follows job `id` until it ends; then shows its answer and calls `done(status)`. */
async function follow(job, options) {
  current = job;
  for (;;) {
    const status = await getJson(`/api/jobs/${job.id}`);
    if (current !== job) return; // another run replaced this one
    showProgress(status);
    if (["done", "failed", "cancelled"].includes(status.state)) {
      $("cancel").disabled = true;
      finish(status, options);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function finish(status, options) {
  list($("notes"), status.notes || []);
  if (status.state === "failed") {
    list($("run-problems"), status.failure.problems, options.onProblem);
    $("progress-text").textContent += ` (HTTP ${status.failure.status}: ${status.failure.kind})`;
  } else if (status.state === "done") {
    if (status.has_view) {
      $("answer-title").textContent = options.title || status.command;
      $("json-link").href = `/api/jobs/${status.id}/document`;
      $("view").src = `/api/jobs/${status.id}/view`;
      $("answer").hidden = false;
    }
  }
  if (options.done) options.done(status);
}

/** Starts `command` on the scenario text; `options.onProblem(line)` for a clicked problem. */
export async function runScenario(command, name, text, options = {}) {
  reset(command);
  try {
    const job = await postYaml(`/api/jobs/${command}?${named(name)}`, text);
    await follow(job, { title: `${command} ${name}`, ...options });
  } catch (error) {
    failed(error, options);
  }
}

/** Starts a run on uploaded files: explain (with the scenario) or an import. */
export async function runUpload(command, form, options = {}) {
  reset(command);
  try {
    const job = await postForm(`/api/jobs/${command}`, form);
    await follow(job, options);
  } catch (error) {
    failed(error, options);
  }
}

function failed(error, options) {
  $("cancel").disabled = true;
  const wait = error.retryAfter ? ` (busy: try again in ${error.retryAfter} s)` : "";
  $("progress-text").textContent = `could not run${wait}`;
  list($("run-problems"), error.problems || [String(error.message)], options.onProblem);
}

/** The answer document of a finished job. */
export const documentOf = (status) => getJson(`/api/jobs/${status.id}/document`);

export function setUp() {
  $("cancel").addEventListener("click", async () => {
    if (current) {
      $("cancel").disabled = true;
      await remove(`/api/jobs/${current.id}`);
    }
  });
}
