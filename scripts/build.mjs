// Bundles the two faces with esbuild: node-llama-cpp stays external (ESM with top-level await,
// reached through a real dynamic import()), and so does classic-level (the durable store's LevelDB, which finds its
// Node-API prebuild from its own folder); vscode is provided by the editor.
import {readFileSync} from "node:fs";
import {build} from "esbuild";

const common = {
    bundle: true,
    platform: "node",
    target: "node20",
    format: "cjs",
    sourcemap: true,
    external: ["vscode", "node-llama-cpp", "classic-level"],
    // jsonc-parser's "main" is a UMD build whose require("./impl/…") calls esbuild cannot follow (the bundle threw
    // "Cannot find module './impl/format'"): its ES module build bundles. Node (the tests) loads the UMD build fine.
    alias: {"jsonc-parser": "jsonc-parser/lib/esm/main.js"},
    // CommonJS has no import.meta; code that needs its own location reads __dirname when bundled.
    define: {"import.meta.url": "undefined"},
    logLevel: "warning"
};

// The CLI's first statement: an older Node fails with one line that says what to do, not with a syntax or API error
// from deep in a dependency (npm only warns about "engines"). The major comes from package.json's engines. The banner
// opens with the bundle's "use strict", which must stay the file's first statement to keep the bundle strict.
const nodeMajor = Number(/>=\s*(\d+)/.exec(JSON.parse(readFileSync("package.json", "utf8")).engines.node)[1]);
const nodeCheck = `if (Number(process.versions.node.split(".")[0]) < ${nodeMajor}) { process.stderr.write("error: local-responses needs `
    + `Node.js ${nodeMajor} or newer, this is " + process.version + ": install a current Node.js (nodejs.org) and run it again\\n"); `
    + "process.exit(1); }";

await Promise.all([
    build({
        ...common, entryPoints: ["src/cli.ts"], outfile: "dist/cli.js", banner: {js: `#!/usr/bin/env node\n"use strict";\n${nodeCheck}`}
    }),
    // The prompt tokenizer's worker thread (src/engine/llama/prompt/TokenizerWorker.ts), loaded from beside the bundles.
    build({...common, entryPoints: ["src/engine/llama/prompt/tokenizerWorkerMain.ts"], outfile: "dist/tokenizerWorkerMain.js"}),
    // The models folder's GGUF header reader (src/engine/models/ModelFitWorker.ts), a worker thread loaded from beside the bundles.
    build({...common, entryPoints: ["src/engine/models/modelFitWorkerMain.ts"], outfile: "dist/modelFitWorkerMain.js"}),
    // A library model's own process (src/engine/process/ModelProcess.ts), started from beside the bundles.
    build({...common, entryPoints: ["src/engine/process/modelProcessMain.ts"], outfile: "dist/modelProcessMain.js"}),
    ...(process.argv.includes("--cli-only") ? [] : await extensionBuilds())
]);

async function extensionBuilds() {
    const {existsSync} = await import("node:fs");
    const builds = [];
    if (existsSync("src/extension.ts"))
        builds.push(build({...common, entryPoints: ["src/extension.ts"], outfile: "dist/extension.js"}));
    if (existsSync("webview/main.ts"))
        builds.push(build({
            bundle: true, platform: "browser", format: "iife", target: "es2022", sourcemap: true, logLevel: "warning",
            entryPoints: ["webview/main.ts"], outfile: "dist/webview/main.js"
        }));
    return builds;
}
