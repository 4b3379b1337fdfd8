// The form view: the common fields of the scenario (hosts, NICs, teams, live migration, VMs) read
// from the YAML by the server (POST /api/form), and each change written back into the same YAML
// (POST /api/form/apply): the editor's text is the file, the form a view of it.
import { postJson, postYaml } from "./api.js";

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

/** The values of an enum of the schema's $defs, e.g. TeamKind -> ["lbfo", "set"]. */
const choices = (schema, name) => (schema && schema.$defs && schema.$defs[name] && schema.$defs[name].enum) || [];

export class FormView {
  /** `editor`: the HvnetEditor; `container`: where the form goes; `schema`: the scenario's JSON Schema. */
  constructor(editor, container, schema, onError) {
    Object.assign(this, { editor, container, schema, onError });
  }

  async show() {
    try {
      this.data = await postYaml("/api/form", this.editor.text());
    } catch (error) {
      this.container.replaceChildren(el("p", { className: "error", textContent: error.message }));
      return;
    }
    this.render();
  }

  async edit(edits) {
    try {
      const answer = await postJson("/api/form/apply", { yaml: this.editor.text(), edits });
      this.editor.setText(answer.yaml);
      await this.show();
    } catch (error) {
      this.onError(error);
    }
  }

  field(path, value, kind = "text", options = []) {
    let input;
    if (options.length) {
      input = el("select", {}, el("option", { value: "", textContent: "(default)" }));
      for (const option of options) input.append(el("option", { value: option, textContent: option }));
      input.value = value == null ? "" : String(value);
    } else {
      input = el("input", { type: kind, value: value == null ? "" : Array.isArray(value) ? value.join(", ") : value });
    }
    input.dataset.path = JSON.stringify(path);
    input.addEventListener("change", () => this.edit([{ path, value: input.value === "" ? null : input.value }]));
    return el("td", {}, input);
  }

  table(rows, columns, basePath, make) {
    const head = el("tr", {}, ...columns.map((c) => el("th", { textContent: c })), el("th"));
    const body = rows.map((row, index) => {
      const remove = el("button", { type: "button", textContent: "×", title: "remove" });
      remove.addEventListener("click", () => this.edit([{ path: [...basePath, index], remove: true }]));
      return el("tr", {}, ...make(row, [...basePath, index]), el("td", {}, remove));
    });
    return el("table", {}, head, ...body);
  }

  addButton(label, path, entry) {
    const button = el("button", { type: "button", textContent: label });
    button.addEventListener("click", () => this.edit([{ path, append: entry() }]));
    return button;
  }

  render() {
    const { hosts, vms, vm_count: vmCount } = this.data;
    const bools = ["true", "false"];
    const parts = [el("h3", { textContent: "Hosts" })];
    hosts.forEach((host, h) => {
      const box = el("div", { className: "host" });
      box.append(el("table", {}, el("tr", {}, el("th", { textContent: "host" }), this.field(["hosts", h, "name"], host.name))));
      box.append(el("h4", { textContent: "NICs" }));
      box.append(
        this.table(host.nics, ["name", "speed", "mtu", "rdma"], ["hosts", h, "nics"], (nic, p) => [
          this.field([...p, "name"], nic.name),
          this.field([...p, "speed"], nic.speed),
          this.field([...p, "mtu"], nic.mtu, "number"),
          this.field([...p, "rdma"], nic.rdma, "text", bools),
        ]),
      );
      const last = host.nics[host.nics.length - 1] || {};
      box.append(this.addButton("+ NIC", ["hosts", h, "nics"], () => ({ name: `nic${host.nics.length + 1}`, speed: last.speed || "10Gbps" })));
      box.append(el("h4", { textContent: "Teams" }));
      box.append(
        this.table(host.teams, ["name", "kind", "members", "mode", "load balancing"], ["hosts", h, "teams"], (team, p) => [
          this.field([...p, "name"], team.name),
          this.field([...p, "kind"], team.kind, "text", choices(this.schema, "TeamKind")),
          this.field([...p, "members"], team.members),
          this.field([...p, "mode"], team.mode, "text", choices(this.schema, "TeamingMode")),
          this.field([...p, "load_balancing"], team.load_balancing, "text", choices(this.schema, "LoadBalancing")),
        ]),
      );
      box.append(this.addButton("+ team", ["hosts", h, "teams"], () => ({ name: `team${host.teams.length + 1}`, members: host.nics.map((n) => n.name) })));
      const lm = host.live_migration;
      box.append(el("h4", { textContent: "Live migration" }));
      box.append(
        el(
          "table",
          {},
          el("tr", {}, el("th", { textContent: "option" }), el("th", { textContent: "simultaneous" }), el("th", { textContent: "networks" })),
          el(
            "tr",
            {},
            this.field(["hosts", h, "live_migration", "option"], lm.option, "text", choices(this.schema, "MigrationOption")),
            this.field(["hosts", h, "live_migration", "simultaneous"], lm.simultaneous, "number"),
            this.field(["hosts", h, "live_migration", "networks"], lm.networks),
          ),
        ),
      );
      parts.push(box);
    });
    parts.push(el("h3", { textContent: vmCount > vms.length ? `VMs (the first ${vms.length} of ${vmCount})` : "VMs" }));
    parts.push(
      this.table(vms, ["name", "host", "vCPUs", "memory"], ["vms"], (vm, p) => [
        this.field([...p, "name"], vm.name),
        this.field([...p, "host"], vm.host, "text", hosts.map((h) => h.name).filter(Boolean)),
        this.field([...p, "vcpus"], vm.vcpus, "number"),
        this.field([...p, "memory"], vm.memory),
      ]),
    );
    parts.push(this.addButton("+ VM", ["vms"], () => ({ name: `vm${vmCount + 1}`, host: (hosts[0] || {}).name || "hv1", memory: "8GiB" })));
    this.container.replaceChildren(...parts);
  }
}
