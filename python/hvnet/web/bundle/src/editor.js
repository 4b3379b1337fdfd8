// hvnet's scenario editor: CodeMirror 6 with YAML, completion and hover from the scenario's JSON
// Schema (codemirror-json-schema), and a linter whose problems come from hvnet's own loader (the
// page gives `check`, which asks the server). Exposed as the global `HvnetEditor`.
import { EditorView, basicSetup } from "codemirror";
import { EditorState } from "@codemirror/state";
import { keymap, hoverTooltip } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { yaml, yamlLanguage } from "@codemirror/lang-yaml";
import { linter, lintGutter, forceLinting, diagnosticCount } from "@codemirror/lint";
import { yamlCompletion, yamlSchemaHover } from "codemirror-json-schema/yaml";
import { stateExtensions, updateSchema } from "codemirror-json-schema";

function create(parent, options) {
  const listeners = [];
  const extensions = [
    basicSetup,
    EditorView.lineWrapping,
    keymap.of([indentWithTab]),
    yaml(),
    yamlLanguage.data.of({ autocomplete: yamlCompletion() }),
    hoverTooltip(yamlSchemaHover()),
    stateExtensions(options.schema || {}),
    lintGutter(),
    linter(async (view) => (options.check ? options.check(view.state.doc.toString(), view.state.doc) : []), {
      delay: options.delay || 400,
    }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) for (const listener of listeners) listener(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ state: EditorState.create({ doc: options.doc || "", extensions }), parent });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setSchema: (schema) => updateSchema(view, schema),
    onChange: (listener) => listeners.push(listener),
    relint: () => forceLinting(view),
    problems: () => diagnosticCount(view.state),
    focus: () => view.focus(),
  };
}

window.HvnetEditor = { create };
