// Enable GPU… in a real VS Code (code-server 4.139.1), as a person without a GPU build would run it (issue 55): the
// default linux-x64 VSIX carries the CPU build only, so the model first runs on the CPU; the command downloads
// node-llama-cpp's Vulkan build from the npm registry, checks it against the lockfile's integrity, installs it into the
// extension's global storage and offers Reload Window, after which `gpu: auto` runs the model on Vulkan. There is no
// GPU here: Debian's mesa-vulkan-drivers (lavapipe, installed by scripts/e2e-setup.sh) is a Vulkan device computed on
// the CPU, which ggml lists once GGML_VK_VISIBLE_DEVICES names it.
// Prerequisites: npm run build && npm run e2e:prepare; the npm registry. Screenshots and the extension's log go to
// test-artifacts/vscode-e2e-enable-gpu/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import {CodeServer, freePort} from "./CodeServer.js";
import {modelPath, suiteFolders, tools, vsix} from "./e2ePaths.js";
import {closeSuite} from "./suiteTeardown.js";
import {Workbench} from "./Workbench.js";

const {state, artifacts} = suiteFolders("vscode-enable-gpu", "vscode-e2e-enable-gpu");

let server: CodeServer;
let workbench: Workbench;

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'node scripts/package-vsix.mjs' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    // code-server, and the extension host it starts, inherit this: lavapipe is the only Vulkan device ggml then lists.
    process.env.GGML_VK_VISIBLE_DEVICES = "0";
    server = new CodeServer({tools, state});
    server.prepare(vsix, {}, {
        "localResponses.model.path": modelPath, "localResponses.server.port": await freePort(), "localResponses.threads": 1,
        "localResponses.parallel": 1, "localResponses.contextSize": 2048
    });
    workbench = await Workbench.open(await server.start(), artifacts);
});

after(async () => {
    await closeSuite(server, workbench, artifacts);
    delete process.env.GGML_VK_VISIBLE_DEVICES;
});

test("with the VSIX's CPU build only, gpu auto runs the model on the CPU and the tooltip says so", async () => {
    await workbench.waitForStatus(/stories260K: ready/, 180_000);
    const tooltip = await workbench.statusTooltip();
    assert.match(tooltip, /Engine: local \(this machine\) · CPU/);
});

test("Enable GPU… downloads the Vulkan build, checked and installed into global storage; Reload Window runs on Vulkan", async () => {
    await workbench.clearNotifications();
    await workbench.runCommand("Local Responses: Enable GPU…");
    const vulkan = await workbench.quickPickRow(/Vulkan/);
    await workbench.screenshot("enable-gpu-pick");
    await vulkan.click();
    // 27.5 MB from the registry, then the integrity check and the unpacking.
    const reload = workbench.notificationButton(/the Vulkan build is installed/, "Reload Window");
    await reload.waitFor({timeout: 240_000});
    await workbench.screenshot("enable-gpu-installed");
    const log = server.outputChannelLog("Local Responses");
    const installed = /gpu: installed the vulkan build in (.+)$/m.exec(log);
    assert.ok(installed != null, `no install line in the log:\n${log.slice(-2000)}`);
    const folder = installed[1]!.trim();
    assert.ok(folder.includes("globalStorage"), `installed into the extension's global storage: ${folder}`);
    const packageJson = path.join(folder, "node_modules/@node-llama-cpp/linux-x64-vulkan/package.json");
    assert.equal((JSON.parse(fs.readFileSync(packageJson, "utf8")) as {version: string}).version, "3.21.1");

    await workbench.afterReload(() => reload.click());
    // The new extension host loads the model through the Vulkan build: shader compilation on llvmpipe takes tens of seconds.
    await workbench.waitForStatus(/stories260K: ready/, 240_000);
    const deadline = Date.now() + 240_000;
    let tooltip = "";
    while (Date.now() < deadline) {
        tooltip = await workbench.statusTooltip().catch(() => "");
        if (/Engine: local \(this machine\) · Vulkan/.test(tooltip))
            break;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    await workbench.screenshot("enable-gpu-vulkan");
    assert.match(tooltip, /Engine: local \(this machine\) · Vulkan \(llvmpipe.*\): \d+\/\d+ layers/);
    assert.match(server.outputChannelLog("Local Responses"), /model: loaded stories260K on Vulkan \(llvmpipe.*\): 6\/6 layers/);
});
