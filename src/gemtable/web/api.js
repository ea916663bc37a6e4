// A small, self-contained reader for /openapi.json (no CDN assets).
import { h } from "./svg.js";

function ref(spec, schema) {
  if (schema && schema.$ref) return spec.components.schemas[schema.$ref.split("/").pop()] || {};
  return schema || {};
}

function typeOf(spec, schema) {
  schema = schema || {};
  if (schema.$ref) return schema.$ref.split("/").pop();
  if (schema.anyOf) return schema.anyOf.map((x) => typeOf(spec, x)).join(" | ");
  if (schema.type === "array") return `${typeOf(spec, schema.items)}[]`;
  return schema.type || "any";
}

function schemaTable(spec, schema) {
  const s = ref(spec, schema);
  const props = Object.entries(s.properties || {});
  if (!props.length) return h("code", { text: typeOf(spec, schema) });
  const req = new Set(s.required || []);
  return h("table", { class: "list" }, [h("tbody", {}, props.map(([name, p]) => h("tr", {}, [
    h("td", {}, [h("code", { text: name }), req.has(name) ? " *" : ""]),
    h("td", { text: typeOf(spec, p) }),
    h("td", { text: p.description || "" }),
  ])))]);
}

async function main() {
  const spec = await (await fetch("/openapi.json")).json();
  const root = document.getElementById("api");
  const intro = (spec.info.description || "").split("\n\n").map((para) => h("p", { text: para }));
  const parts = [h("h1", { text: `${spec.info.title} (v${spec.info.version})` }), ...intro,
    h("p", {}, ["The WebSocket protocol is described in docs/websocket.md. Raw description: ", h("a", { href: "/openapi.json", text: "/openapi.json" })])];
  for (const [path, ops] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters || []).map((p) => h("li", {}, [h("code", { text: p.name }), ` (${p.in}${p.required ? ", required" : ""}): ${typeOf(spec, p.schema)}${p.description ? ` — ${p.description}` : ""}`]));
      const body = op.requestBody && op.requestBody.content && op.requestBody.content["application/json"];
      parts.push(h("section", { class: "panel" }, [
        h("h3", {}, [h("code", { text: `${method.toUpperCase()} ${path}` }), ` — ${op.summary || ""}`]),
        op.description ? h("p", { text: op.description }) : null,
        params.length ? h("ul", {}, params) : null,
        body ? h("div", {}, [h("b", { text: "JSON body" }), schemaTable(spec, body.schema)]) : null,
        h("p", { class: "muted", text: `responses: ${Object.keys(op.responses || {}).join(", ")}` }),
      ]));
    }
  }
  root.replaceChildren(...parts);
}
main();
