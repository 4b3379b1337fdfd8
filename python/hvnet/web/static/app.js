// hvnet serve's page: the served folder's scenarios, the editor (checked as you type by the server,
// with hvnet's own messages at their lines), the form view, runs and uploads.
import { getJson, postJson, postYaml, putYaml, named } from "./api.js";
import { FormView } from "./form.js";
import { documentOf, runScenario, runUpload, setUp as setUpRuns } from "./runs.js";

const $ = (id) => document.getElementById(id);
const state = { path: null, version: null, saved: "" };
let editor = null;
let form = null;

/** The editor's diagnostics for the problems hvnet's loader found (POST /api/validate). */
async function check(text, doc) {
  let found;
  try {
    found = (await postYaml(`/api/validate?${named($("name").value)}`, text)).problems;
  } catch (error) {
    found = [{ line: null, field: "", message: error.message, text: error.message }];
  }
  showProblems(found);
  return found.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line || 1, 1), doc.lines));
    const indent = line.text.length - line.text.trimStart().length;
    const message = p.field ? `${p.field}: ${p.message}` : p.message;
    return { from: line.from + indent, to: Math.max(line.to, line.from + indent), severity: "error", message };
  });
}

function showProblems(found) {
  $("problems").replaceChildren(
    ...found.map((p) => {
      const item = document.createElement("li");
      item.textContent = p.text;
      if (p.line) item.dataset.line = String(p.line);
      item.addEventListener("click", () => goToLine(p.line));
      return item;
    }),
  );
  showState();
}

function goToLine(line) {
  if (!line) return;
  const view = editor.view;
  const target = view.state.doc.line(Math.min(line, view.state.doc.lines));
  view.dispatch({ selection: { anchor: target.from }, scrollIntoView: true });
  view.focus();
}

/** A run's problem line (file:line: ...) of this file: its line in the editor. */
function goToProblem(text) {
  const found = /^(.*?):(\d+):/.exec(text);
  if (found && found[1] === $("name").value) goToLine(Number(found[2]));
}

function showState() {
  const modified = editor && editor.text() !== state.saved;
  const problems = $("problems").children.length;
  const parts = [state.path ? (modified ? "modified" : "saved") : "not saved yet"];
  if (problems) parts.push(`${problems} problem${problems > 1 ? "s" : ""}`);
  $("file-state").textContent = parts.join(" · ");
  $("file-state").classList.toggle("bad", problems > 0);
}

function load(text, path, version, name) {
  state.path = path;
  state.version = version;
  state.saved = path ? text : "";
  $("name").value = name || path || "scenario.yaml";
  editor.setText(text);
  for (const item of $("files").children) item.classList.toggle("open", item.textContent === path);
  if (!$("form").hidden) form.show();
  showState();
}

function discardChanges() {
  return editor.text() === state.saved || editor.text() === "" || window.confirm("Discard the changes not saved?");
}

async function listFiles() {
  const answer = await getJson("/api/files");
  $("folder").textContent = answer.root;
  $("files").replaceChildren(
    ...answer.files.map((path) => {
      const item = document.createElement("li");
      item.textContent = path;
      item.classList.toggle("open", path === state.path);
      item.addEventListener("click", () => openFile(path));
      return item;
    }),
  );
}

async function openFile(path) {
  if (!discardChanges()) return;
  const file = await getJson(`/api/files/${path.split("/").map(encodeURIComponent).join("/")}`);
  load(file.text, file.path, file.version);
}

async function save() {
  const path = $("name").value.trim();
  const url = `/api/files/${path.split("/").map(encodeURIComponent).join("/")}`;
  const version = path === state.path && state.version ? `?version=${state.version}` : "";
  const text = editor.text();
  let answer;
  try {
    answer = await putYaml(url + version, text);
  } catch (error) {
    if (error.status !== 409 || !window.confirm(`${error.message}\n\nReplace it?`)) {
      window.alert(error.message);
      return;
    }
    answer = await putYaml(`${url}?force=true`, text);
  }
  state.path = answer.path;
  state.version = answer.version;
  state.saved = text;
  await listFiles();
  showState();
}

function setUpNewDialog() {
  const dialog = $("new-dialog");
  $("new-button").addEventListener("click", () => {
    $("new-problems").textContent = "";
    dialog.showModal();
  });
  $("new-create").addEventListener("click", async (event) => {
    event.preventDefault();
    const fields = new FormData($("new-form"));
    const ask = {};
    for (const [key, value] of fields) {
      if (key === "file" || value === "") continue;
      ask[key] = ["hosts", "nics", "vms"].includes(key) ? Number(value) : value;
    }
    try {
      const answer = await postJson("/api/topology", ask);
      if (!discardChanges()) return;
      dialog.close();
      load(answer.yaml, null, null, fields.get("file") || "new-scenario.yaml");
    } catch (error) {
      $("new-problems").textContent = error.message;
    }
  });
}

function setUpRunButtons() {
  for (const button of document.querySelectorAll("[data-run]")) {
    button.addEventListener("click", () =>
      runScenario(button.dataset.run, $("name").value, editor.text(), { onProblem: goToProblem }),
    );
  }
  $("explain").addEventListener("click", () => {
    const upload = new FormData();
    upload.append("scenario", new Blob([editor.text()], { type: "application/yaml" }), $("name").value);
    for (const file of $("measurements").files) upload.append("measurements", file, file.name);
    if ($("from").value) upload.append("from", $("from").value);
    if ($("to").value) upload.append("to", $("to").value);
    runUpload("explain", upload, { title: "explain", onProblem: goToProblem });
  });
  $("read-measurements").addEventListener("click", () => {
    const upload = new FormData();
    for (const file of $("measurements").files) upload.append("files", file, file.name);
    runUpload("import/measurement", upload, { title: "measurements" });
  });
  $("dumps").addEventListener("change", () => {
    const upload = new FormData();
    for (const file of $("dumps").files) upload.append("files", file, file.name);
    runUpload("import/config", upload, {
      done: async (status) => {
        if (status.state !== "done" || !discardChanges()) return;
        const imported = await documentOf(status);
        load(imported.yaml, null, null, "imported.yaml");
        const notes = [...imported.assumptions.map((a) => `assumed: ${a}`), ...imported.problems.map((p) => `problem: ${p}`)];
        $("notes").replaceChildren(...notes.map((n) => Object.assign(document.createElement("li"), { textContent: n })));
      },
    });
  });
}

function setUpTabs() {
  const show = (formShown) => {
    $("form").hidden = !formShown;
    $("editor").hidden = formShown;
    $("show-form").classList.toggle("active", formShown);
    $("show-yaml").classList.toggle("active", !formShown);
    if (formShown) form.show();
  };
  $("show-yaml").addEventListener("click", () => show(false));
  $("show-form").addEventListener("click", () => show(true));
}

async function start() {
  const schema = await getJson("/api/schema");
  editor = window.HvnetEditor.create($("editor"), { doc: "", schema, check });
  editor.onChange(() => showState());
  form = new FormView(editor, $("form"), schema, (error) => window.alert(error.message));
  $("name").addEventListener("change", () => editor.relint());
  $("save").addEventListener("click", save);
  setUpNewDialog();
  setUpRunButtons();
  setUpTabs();
  setUpRuns();
  await listFiles();
  const first = $("files").firstElementChild;
  if (first) await openFile(first.textContent);
  document.body.dataset.ready = "true";
}

start();
