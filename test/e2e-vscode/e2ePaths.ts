import fs from "node:fs";
import path from "node:path";

/** Where the e2e suites find the checkout, the editor tools, the VSIX under test and the trained model. */
export const repo = path.resolve(import.meta.dirname, "../..");
export const tools = process.env.LOCAL_RESPONSES_TOOLS ?? path.join(repo, ".tools/vscode-e2e");
export const modelPath = path.resolve(repo, "../shared/models/stories260K.gguf");
const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {name: string, version: string};
export const vsix = path.join(repo, `${pkg.name}-linux-x64-${pkg.version}.vsix`);

/** A suite's own editor state (under .e2e/) and artifacts (under test-artifacts/) folders, so suites may run side by side. */
export function suiteFolders(stateName: string, artifactsName: string): {state: string, artifacts: string} {
    return {state: path.join(repo, ".e2e", stateName), artifacts: path.join(repo, "test-artifacts", artifactsName)};
}
