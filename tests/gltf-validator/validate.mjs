// Validates glTF/GLB files with the Khronos glTF validator.
// Usage: node validate.mjs FILE...
// Prints one summary line per file and every reported issue; on any error it
// also prints the full JSON report and exits with status 1.
import { readFile } from "node:fs/promises";
import path from "node:path";
import validator from "gltf-validator";

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs FILE...");
  process.exit(2);
}

let failed = false;
for (const file of files) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    // Generated files are self-contained; any external reference is an error.
    externalResourceFunction: (uri) =>
      Promise.reject(new Error(`external resource ${uri} not allowed`)),
  });
  const { numErrors, numWarnings, numInfos, numHints, messages } = report.issues;
  console.log(
    `${file}: ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos, ${numHints} hints`,
  );
  for (const message of messages) {
    const severity = ["error", "warning", "info", "hint"][message.severity];
    console.log(`  ${severity} ${message.code} at ${message.pointer ?? ""}: ${message.message}`);
  }
  if (numErrors > 0) {
    failed = true;
    console.log(JSON.stringify(report, null, 2));
  }
}
process.exit(failed ? 1 : 0);
