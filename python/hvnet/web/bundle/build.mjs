// Builds what hvnet serve ships in python/hvnet/web/static/vendor/ (README.md there says why):
//   editor.js.gz            CodeMirror 6 + YAML + lint + completion/hover from a JSON Schema, one IIFE
//   LICENSES-editor.txt     the licence of every package in that bundle
//   swagger-ui/*.gz         Swagger UI's bundle and style sheet, for /docs
// Run in a scratch copy of this folder (node_modules stays out of the repository):
//   cp -r python/hvnet/web/bundle /tmp/hvnet-bundle && cd /tmp/hvnet-bundle
//   npm ci && node build.mjs "$OLDPWD/python/hvnet/web/static/vendor"     (Node 18 or later)
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const here = path.dirname(new URL(import.meta.url).pathname);
const out = path.resolve(process.argv[2] || path.join(here, "../static/vendor"));
const gzip = (data) => zlib.gzipSync(data, { level: 9 });

// codemirror-json-schema renders a schema's description with markdown-it and shiki (several MB);
// hvnet's descriptions are plain sentences, so a small shim renders them.
const shim = path.join(here, "src/markdown-shim.js");
const noMarkdown = {
  name: "no-markdown",
  setup(build) {
    build.onResolve({ filter: /utils\/markdown(\.js)?$/ }, () => ({ path: shim }));
  },
};
const result = await esbuild.build({
  entryPoints: [path.join(here, "src/editor.js")],
  bundle: true,
  minify: true,
  format: "iife",
  target: ["es2020"],
  legalComments: "none",
  plugins: [noMarkdown],
  write: false,
  metafile: true,
});
const bundle = result.outputFiles[0].contents;
fs.mkdirSync(path.join(out, "swagger-ui"), { recursive: true });
fs.writeFileSync(path.join(out, "editor.js.gz"), gzip(bundle));

// Every package whose code is in the bundle, with its licence text.
const packages = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const found = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (found) packages.set(found[1], path.join(here, "node_modules", found[1]));
}
let licences = "Licences of the packages bundled in editor.js (built by python/hvnet/web/bundle/build.mjs)\n";
for (const [name, folder] of [...packages].sort()) {
  const meta = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8"));
  const file = fs.readdirSync(folder).find((f) => /^(licen[cs]e|copying)/i.test(f));
  const text = file ? fs.readFileSync(path.join(folder, file), "utf8").trim() : `(no licence file; package.json says ${meta.license})`;
  licences += `\n${"=".repeat(78)}\n${name} ${meta.version} (${meta.license})\n${"=".repeat(78)}\n${text}\n`;
}
fs.writeFileSync(path.join(out, "LICENSES-editor.txt"), licences);

const swagger = path.join(here, "node_modules/swagger-ui-dist");
for (const name of ["swagger-ui-bundle.js", "swagger-ui.css"]) {
  fs.writeFileSync(path.join(out, "swagger-ui", `${name}.gz`), gzip(fs.readFileSync(path.join(swagger, name))));
}
const version = JSON.parse(fs.readFileSync(path.join(swagger, "package.json"), "utf8")).version;
fs.writeFileSync(
  path.join(out, "swagger-ui", "LICENSE-swagger-ui.txt"),
  `swagger-ui-dist ${version}\n\n${fs.readFileSync(path.join(swagger, "NOTICE"), "utf8")}\n${fs.readFileSync(path.join(swagger, "LICENSE"), "utf8")}`,
);
console.log(`editor.js: ${bundle.length} bytes (${packages.size} packages); swagger-ui ${version}`);
