// Validate a glTF/GLB file with the Khronos glTF-Validator; prints its JSON report and
// exits 1 when the report has errors. Usage: node tools/validate_gltf.js FILE
const fs = require("fs");
const validator = require("gltf-validator");

const file = process.argv[2];
validator
  .validateBytes(new Uint8Array(fs.readFileSync(file)), { maxIssues: 100 })
  .then((report) => {
    console.log(JSON.stringify(report, null, 1));
    process.exit(report.issues.numErrors > 0 ? 1 : 0);
  })
  .catch((err) => {
    console.error(String(err));
    process.exit(2);
  });
