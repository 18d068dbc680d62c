// Checks fixtures/whatwg/references.tsv against Node's WHATWG URL (`new URL(ref, base).href`).
//
//   node tests/whatwg/node-check.mjs [FILE]          exit 1 and list every row that differs
//   node tests/whatwg/node-check.mjs --write [FILE]  rewrite the expected column from Node
//
// Format: UTF-8, one row per line: BASE<TAB>REFERENCE<TAB>EXPECTED, where EXPECTED is the
// serialized URL or the word `failure` (the URL parser returns failure: `new URL` throws).
// An empty BASE is no base. Lines starting with `#` and empty lines are comments. In the
// fields `\t`, `\n`, `\r`, `\\` and `\uXXXX` stand for the characters they name.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const write = args[0] === "--write";
const file = args[write ? 1 : 0] ??
  fileURLToPath(new URL("../../fixtures/whatwg/references.tsv", import.meta.url));

export function unescape(field) {
  return field.replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (_, e) =>
    e[0] === "u" ? String.fromCharCode(parseInt(e.slice(1), 16))
      : { t: "\t", n: "\n", r: "\r", "\\": "\\" }[e] ?? `\\${e}`);
}

export function escape(text) {
  return text.replace(/[\\\t\n\r\u0000-\u001f\u007f]/g, (c) =>
    ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] ??
      `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function href(base, reference) {
  try {
    return base === "" ? new URL(reference).href : new URL(reference, base).href;
  } catch {
    return "failure";
  }
}

const lines = readFileSync(file, "utf8").split("\n");
let rows = 0;
let differ = 0;
const out = lines.map((line, index) => {
  if (line === "" || line.startsWith("#")) return line;
  const fields = line.split("\t");
  if (fields.length !== 3) {
    console.error(`${file}:${index + 1}: expected 3 tab-separated fields, found ${fields.length}`);
    process.exit(2);
  }
  rows += 1;
  const [base, reference, expected] = fields.map(unescape);
  const node = href(base, reference);
  if (node !== expected) {
    differ += 1;
    if (!write) {
      console.log(`${file}:${index + 1}: ${JSON.stringify(reference)} against ${JSON.stringify(base)}: ` +
        `expected ${JSON.stringify(expected)}, Node ${process.version} gives ${JSON.stringify(node)}`);
    }
  }
  return [fields[0], fields[1], escape(node)].join("\t");
});
if (write) {
  writeFileSync(file, out.join("\n"));
  console.log(`${rows} rows, ${differ} expected values rewritten from Node ${process.version}`);
} else {
  console.log(`${rows} rows, ${differ} differ from Node ${process.version}`);
  process.exit(differ === 0 ? 0 : 1);
}
