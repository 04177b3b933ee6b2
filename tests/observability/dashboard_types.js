// Prints a TypeScript module that assigns the dashboard JSON (argv[2]) to the Grafana
// foundation SDK's types: the whole dashboard to dashboard.Dashboard, each panel's options
// and custom field config to its plugin's Options / FieldConfig, and each query to
// prometheus.dataquery. `tsc --strict` on the output is the structural check.
//
// Json<T> is what a JSON document can hold for T: string enums become their string
// values and methods (the SDK's builder markers) are dropped.
"use strict";
const fs = require("fs");

const dashboard = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const plugins = { timeseries: "timeseries", stat: "stat", xychart: "xychart", bargauge: "bargauge" };
const lit = (value) => JSON.stringify(value, null, 2);

const out = [];
out.push(`import * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";`);
out.push(`import * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";`);
for (const p of Object.values(plugins)) {
  out.push(`import * as ${p} from "@grafana/grafana-foundation-sdk/${p}";`);
}
out.push(`
type Fn = (...args: any[]) => any;
type Json<T> = 0 extends 1 & T ? any
  : T extends Fn ? never
  : T extends string ? \`\${T}\`
  : T extends number | boolean | null | undefined ? T
  : T extends readonly (infer U)[] ? Json<U>[]
  : { [K in keyof T as T[K] extends Fn ? never : K]: Json<T[K]> };
`);
out.push(`export const whole: Json<dashboard.Dashboard> = ${lit(dashboard)};`);

const panels = [];
for (const panel of dashboard.panels || []) {
  if (panel.type === "row") {
    out.push(`export const row_${panel.id}: Json<dashboard.RowPanel> = ${lit(panel)};`);
    panels.push(...(panel.panels || []));
  } else {
    panels.push(panel);
  }
}
for (const panel of panels) {
  const plugin = plugins[panel.type];
  if (!plugin) {
    console.error(`dashboard_types: panel ${panel.id} has unsupported type ${panel.type}`);
    process.exit(1);
  }
  const id = panel.id;
  out.push(`export const panel_${id}: Json<dashboard.Panel> = ${lit(panel)};`);
  out.push(`export const options_${id}: Json<${plugin}.Options> = ${lit(panel.options)};`);
  const custom = ((panel.fieldConfig || {}).defaults || {}).custom;
  if (custom !== undefined && plugin !== "stat") {
    out.push(`export const custom_${id}: Json<${plugin}.FieldConfig> = ${lit(custom)};`);
  }
  (panel.targets || []).forEach((target, i) => {
    out.push(`export const query_${id}_${i}: Json<prometheus.dataquery> = ${lit(target)};`);
  });
}
for (const variable of (dashboard.templating || {}).list || []) {
  out.push(`export const var_${variable.name}: Json<dashboard.VariableModel> = ${lit(variable)};`);
}
console.log(out.join("\n"));
