"""How the real (page URL, reference) pairs of ../shared/corpus/urls/ resolve by RFC 1808,
by `--spec whatwg`, and by Node's WHATWG URL (`new URL(ref, base).href`), the figures of
issue 20 and of the README's "which standard" advice.

    cargo build && python3 benches/whatwg_differences.py [--examples N]

(ABSOLVE=path/to/absolve to pick the binary; `node` must be on PATH.) Prints:
1. how many pairs RFC 1808 (`absolve resolve --pairs`) resolves to another string than
   Node, by category (the first that applies, in the order printed);
2. how many of RFC 1808's answers still mean another URL in the browser
   (`new URL(rfc1808_answer).href` differs from Node's answer for the pair), by category;
3. how many pairs `absolve resolve --pairs --spec whatwg` answers differently from Node
   (goal 0), each listed; and how many the URL Standard rejects (answered unchanged).
"""

import csv
import os
import subprocess
import sys
from collections import Counter, defaultdict

CORPUS = "../shared/corpus/urls/relative_urls_cc_10k.csv"
ABSOLVE = os.environ.get("ABSOLVE", "target/debug/absolve")
EXAMPLES = int(sys.argv[sys.argv.index("--examples") + 1]) if "--examples" in sys.argv else 2

# Node reads BASE<TAB>REF lines (an empty BASE: REF alone) and answers each with the
# href, or an empty line when the URL parser returns failure (an href is never empty).
NODE_HREF = r"""
import { createInterface } from "node:readline";
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  const tab = line.indexOf("\t");
  const base = line.slice(0, tab), ref = line.slice(tab + 1);
  try { out.push(base === "" ? new URL(ref).href : new URL(ref, base).href); }
  catch { out.push(""); }
}
process.stdout.write(out.join("\n") + "\n");
"""


def node(lines):
    run = subprocess.run(["node", "--input-type=module", "-e", NODE_HREF],
                         input="".join(lines), capture_output=True, text=True, check=True)
    answers = run.stdout.split("\n")[:-1]
    assert len(answers) == len(lines), (len(answers), len(lines))
    return answers


def absolve(lines, *spec):
    run = subprocess.run([ABSOLVE, "resolve", "--pairs", *spec], input="".join(lines),
                         capture_output=True, text=True, check=True)
    answers = run.stdout.split("\n")[:-1]
    assert len(answers) == len(lines)
    return answers


def category(base, ref, rfc, browser):
    """Why RFC 1808's answer `rfc` is not the browser's `browser`: the first that applies."""
    if browser == "":
        return "the URL Standard rejects the reference"
    if ref.startswith("#"):
        return "fragment-only reference (`#...`)"
    if "/../" in rfc or rfc.endswith("/..") or "/./" in rfc:
        return "dot segments kept above the root (`/../x`)"
    if ref.startswith("//") and browser == rfc + "/":
        return "`//host` without a path (the browser adds `/`)"
    if "\\" in ref:
        return "backslashes (slashes in a special URL)"
    if any(ord(c) > 126 or c in ' "<>`{}' or ord(c) < 32 for c in ref):
        return "raw non-ASCII, spaces or other code points the browser percent-encodes"
    if ref != ref.strip():
        return "leading/trailing spaces (the browser drops them)"
    if rfc.lower() == browser.lower():
        return "case of scheme or host"
    if ("?#" in ref or ref.endswith("?") or ref.endswith("#") or ref.endswith(";")
            or ";?" in ref or ";#" in ref):
        return "empty query, params or fragment dropped by RFC 1808"
    if any(f":{p}/" in rfc or rfc.endswith(f":{p}") for p in ("80", "443", "21")):
        return "default port"
    return "other"


def main():
    with open(CORPUS, newline="", encoding="utf-8") as f:
        rows = [(b, r) for b, r in list(csv.reader(f))[1:]]
    fit = [(b, r) for b, r in rows if not any(c in b + r for c in "\t\n\r")]
    print(f"{len(rows)} pairs in {CORPUS}; {len(rows) - len(fit)} left out (a tab or newline inside)")
    lines = [f"{b}\t{r}\n" for b, r in fit]
    rfc = absolve(lines)
    whatwg = absolve(lines, "--spec", "whatwg")
    browser = node(lines)
    browser_of_rfc = node([f"\t{answer}\n" for answer in rfc])

    def report(title, differing):
        print(f"\n{title}: {len(differing)}")
        by = defaultdict(list)
        for i in differing:
            by[category(*fit[i], rfc[i], browser[i])].append(i)
        for name, items in sorted(by.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(items):5}  {name}")
            for i in items[:EXAMPLES]:
                print(f"         {fit[i][1]!r} on {fit[i][0]!r}: RFC 1808 {rfc[i]!r}, browser {browser[i]!r}")

    report("RFC 1808 answers that differ from Node's new URL(ref, base).href",
           [i for i in range(len(fit)) if rfc[i] != browser[i]])
    changed = [i for i in range(len(fit)) if browser[i] and browser_of_rfc[i] != browser[i]]
    report("...of which still another URL in the browser after the rewrite "
           "(new URL(rfc1808_answer).href differs)", changed)
    print(f"  ({sum(1 for i in changed if not fit[i][1].startswith('#'))} of them "
          f"besides the fragment-only references)")

    rejected = [i for i in range(len(fit)) if browser[i] == ""]
    print(f"\nPairs the URL Standard rejects (Node throws): {len(rejected)}")
    for i in rejected:
        print(f"         {fit[i][1]!r} on {fit[i][0]!r}")
    differ = [i for i in range(len(fit)) if whatwg[i] != (browser[i] or fit[i][1])]
    print(f"\n--spec whatwg answers that differ from Node (a rejected reference counts as "
          f"answered unchanged): {len(differ)}")
    for i in differ:
        print(f"         {fit[i][1]!r} on {fit[i][0]!r}: absolve {whatwg[i]!r}, Node {browser[i]!r}")


main()
