// Calls to hvnet's API (/api, documented at /docs). The token, when the server needs one, is in
// an HttpOnly cookie that the login form set: the browser sends it, no script sees it.

/** The answer's JSON, or an Error whose `problems` are the failure's lines and `status` its code. */
export async function call(method, url, body, type) {
  const headers = type ? { "Content-Type": type } : {};
  const answer = await fetch(url, { method, body, headers, credentials: "same-origin" });
  if (answer.status === 401) {
    window.location.assign("/login");
    throw new Error("a token is needed");
  }
  const text = await answer.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { detail: text };
  }
  if (!answer.ok) {
    const error = new Error(problemsOf(data).join("\n") || `HTTP ${answer.status}`);
    error.status = answer.status;
    error.problems = problemsOf(data);
    error.retryAfter = answer.headers.get("Retry-After");
    throw error;
  }
  return data;
}

/** A failure's lines: hvnet's `problems`, or FastAPI's own `detail`. */
function problemsOf(data) {
  if (!data) return [];
  if (Array.isArray(data.problems)) return data.problems;
  if (typeof data.detail === "string") return [data.detail];
  if (Array.isArray(data.detail)) return data.detail.map((d) => `${(d.loc || []).join(".")}: ${d.msg}`);
  return [JSON.stringify(data)];
}

export const getJson = (url) => call("GET", url);
export const postYaml = (url, text) => call("POST", url, text, "application/yaml");
export const postJson = (url, data) => call("POST", url, JSON.stringify(data), "application/json");
export const putYaml = (url, text) => call("PUT", url, text, "application/yaml");
export const postForm = (url, form) => call("POST", url, form);
export const remove = (url) => call("DELETE", url);

/** `?name=...` for a scenario's file name. */
export const named = (name) => `name=${encodeURIComponent(name)}`;
