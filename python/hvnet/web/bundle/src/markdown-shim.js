// Stands in for codemirror-json-schema's utils/markdown.js, which pulls in markdown-it and shiki
// (several MB) to render a schema description. hvnet's descriptions are plain sentences with
// `code` spans: escaped, with those spans as <code>.
function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
export function renderMarkdown(markdown) {
  return escape(markdown).replace(/`([^`]+)`/g, "<code>$1</code>");
}
