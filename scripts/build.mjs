// Bundles the two faces with esbuild: node-llama-cpp stays external (ESM with top-level await,
// reached through a real dynamic import()), and so does classic-level (the durable store's LevelDB, which finds its
// Node-API prebuild from its own folder); vscode is provided by the editor.
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

await Promise.all([
    build({...common, entryPoints: ["src/cli.ts"], outfile: "dist/cli.js", banner: {js: "#!/usr/bin/env node"}}),
    // The prompt tokenizer's worker thread (src/engine/llama/TokenizerWorker.ts), loaded from beside the bundles.
    build({...common, entryPoints: ["src/engine/llama/tokenizerWorkerMain.ts"], outfile: "dist/tokenizerWorkerMain.js"}),
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
