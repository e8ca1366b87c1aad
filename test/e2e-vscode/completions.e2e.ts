// Code completion as you type in a real VS Code (code-server 4.139.1 = VS Code 1.139): a file opened and typed in
// shows the model's ghost text, Tab accepts it; a keystroke while the model generates cancels that suggestion (the
// engine's generation is aborted, and nothing of it is shown). Two models in a library: a scripted one with
// Qwen2.5-Coder's tokenizer that writes a known middle, and one with the same tokenizer and SmolLM2-135M's body, slow
// enough on this machine to type while it generates (`localResponses.completions.model` picks it).
// Prerequisites: npm run build && npm run e2e:prepare. Screenshots and the extension's log go to
// test-artifacts/vscode-e2e-completions/.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import {after, before, test} from "node:test";
import {templateModel} from "../helpers/templateModel.js";
import {CodeServer, freePort} from "./CodeServer.js";
import {suiteFolders, tools, vsix} from "./e2ePaths.js";
import {copiedConnection} from "./probeEndpoint.js";
import {closeSuite} from "./suiteTeardown.js";
import {Workbench} from "./Workbench.js";

const {state, artifacts} = suiteFolders("vscode-completions", "vscode-e2e-completions");
const modelsDir = path.join(state, "models");
/** After `<|fim_middle|>` (the end of every fill-in-the-middle prompt) the scripted model writes `return a + b;`. */
const scripted = "coder-fim";
const middle = ["<|fim_middle|>", "return", " a", " +", " b", ";"];
const slow = "slow-coder";

let server: CodeServer;
let workbench: Workbench;

async function until<T>(what: string, check: () => Promise<T | null | false>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
        const value = await check().catch(() => null);
        if (value != null && value !== false)
            return value;
        if (Date.now() > deadline) {
            await workbench.screenshot(`timeout-${what.replace(/\W+/g, "-")}`);
            // The editor's lines as the DOM holds them: what a selector should have found.
            fs.writeFileSync(path.join(artifacts, `timeout-${what.replace(/\W+/g, "-")}.html`),
                await workbench.page.locator(".monaco-editor .view-lines").first().innerHTML().catch(() => ""));
            assert.fail(`${what}: not within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
    }
}

/** The completions status item's tooltip (hovered), e.g. `Suggestions: 1 shown, 1 accepted (100%)`. */
async function completionTooltip(): Promise<string> {
    const page = workbench.page;
    await page.mouse.move(5, 5);
    await page.waitForTimeout(300);
    await page.locator(".part.statusbar [id='local-responses.local-responses.localResponses.completions']").hover();
    const hover = page.locator(".workbench-hover, .monaco-hover").filter({hasText: "Suggestions:"}).first();
    await hover.waitFor({timeout: 10_000});
    const text = await hover.innerText();
    await page.mouse.move(5, 5);
    return text;
}

/** The tooltip's counts: shown, accepted, asked, cancelled. */
async function counts(): Promise<{shown: number, accepted: number, asked: number, cancelled: number}> {
    const text = await completionTooltip();
    const [, shown, accepted] = /Suggestions: (\d+) shown, (\d+) accepted/.exec(text) ?? [];
    const [, asked, cancelled] = /Asked: (\d+) \((\d+) cancelled/.exec(text) ?? [];
    return {shown: Number(shown), accepted: Number(accepted), asked: Number(asked), cancelled: Number(cancelled)};
}

/** Opens a workspace file with Quick Open and waits for its editor. */
async function openFile(name: string): Promise<void> {
    const page = workbench.page;
    await page.keyboard.press("Escape");
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input.input");
    await input.waitFor({timeout: 10_000});
    await input.fill(name);
    await page.locator(".quick-input-list .monaco-list-row").filter({hasText: name}).first().waitFor({timeout: 15_000});
    await input.press("Enter");
    await page.locator(`.tab.active[data-resource-name='${name}']`).waitFor({timeout: 15_000});
    await page.locator(".monaco-editor.focused").waitFor({timeout: 10_000});
}

/**
 * The ghost text the editor shows on the cursor's line, or "" when none: VS Code 1.139 renders it in the line as spans
 * of class `ghost-text-decoration`, one per syntax-highlighted token.
 */
async function ghostText(): Promise<string> {
    const parts = await workbench.page.locator(".monaco-editor .view-line .ghost-text-decoration").allInnerTexts();
    return parts.join("").replaceAll("\u00a0", " ");
}

before(async () => {
    assert.ok(fs.existsSync(vsix), `${vsix} is missing: run 'npm run e2e:prepare' first`);
    fs.rmSync(artifacts, {recursive: true, force: true});
    const fimModel = await templateModel("qwen2.5", {name: "fim-e2e", chain: middle});
    const slowModel = await templateModel("qwen2.5", undefined, "smollm2-135m");
    server = new CodeServer({tools, state});
    server.prepare(vsix, {"editor.inlineSuggest.enabled": true, "chat.disableAIFeatures": false}, {
        "localResponses.models.directory": modelsDir,
        "localResponses.model.path": path.join(modelsDir, `${scripted}.gguf`),
        "localResponses.models.maxLoaded": 2,
        "localResponses.server.port": await freePort(), "localResponses.threads": 1, "localResponses.parallel": 1,
        "localResponses.contextSize": 4096
    });
    fs.mkdirSync(modelsDir, {recursive: true});
    fs.symlinkSync(fimModel, path.join(modelsDir, `${scripted}.gguf`));
    fs.symlinkSync(slowModel, path.join(modelsDir, `${slow}.gguf`));
    // The body's line indented by three spaces: the test types the fourth (an Enter's indentation depends on when the
    // editor's JavaScript support has loaded).
    fs.writeFileSync(path.join(server.workspace, "add.js"), "function add(a, b) {\n   \n}\n\nconsole.log(add(1, 2));\n");
    const body = Array.from({length: 40}, (_, index) => `    const value${index} = compute(${index}, "${"x".repeat(index % 9)}");`);
    fs.writeFileSync(path.join(server.workspace, "slow.js"), `function run() {\n${body.join("\n")}\n}\n\n`);
    workbench = await Workbench.open(await server.start(), artifacts);
    await until("the server listening", async () => /server: listening on/.test(server.outputChannelLog("Local Responses")), 120_000);
});

after(async () => {
    await closeSuite(server, workbench, artifacts);
});

test("typing in a file shows the model's ghost text, and Tab accepts it", async () => {
    const tooltip = await until("completion on", async () => {
        const text = await completionTooltip();
        return text.includes("Code completion: on") ? text : null;
    }, 60_000);
    assert.match(tooltip, /Code completion: on, from coder-fim/);
    await openFile("add.js");
    const page = workbench.page;
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("End");
    // A blank line after the block header: the provider asks for the block's body.
    await page.keyboard.type(" ");
    const shown = await until("ghost text", async () => {
        const text = await ghostText();
        return text.includes("return a + b;") ? text : null;
    }, 60_000);
    assert.equal(shown.trim(), "return a + b;");
    await workbench.screenshot("ghost-text");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Control+S");
    const accepted = "function add(a, b) {\n    return a + b;\n}\n\nconsole.log(add(1, 2));\n";
    await until("the accepted text saved", async () =>
        fs.readFileSync(path.join(server.workspace, "add.js"), "utf8") === accepted, 10_000);
    await workbench.screenshot("accepted");
    const after = await until("the acceptance counted", async () => {
        const figures = await counts();
        return figures.accepted === 1 ? figures : null;
    }, 10_000);
    assert.ok(after.shown >= 1);
    assert.match(await completionTooltip(), /Latency: median [\d.]+ m?s, last [\d.]+ m?s/);
});

test("a keystroke while the model generates cancels that suggestion: generation aborted, nothing of it shown", async () => {
    // The slow model, a few tokens per suggestion to begin with; three seconds of quiet before a suggestion is asked, so
    // what follows a keystroke is seen before the next suggestion can come.
    server.updateMachineSettings({
        "localResponses.completions.model": slow, "localResponses.completions.maxTokens": 8, "localResponses.completions.debounceMs": 3000
    });
    await until("the slow model chosen", async () => (await completionTooltip()).includes(`from ${slow}`), 30_000);
    await openFile("slow.js");
    const page = workbench.page;
    await page.keyboard.press("Control+End");
    // Warm up: the model loads and reads the file once (its prefix is then read from the cache).
    const warm = await counts();
    await page.keyboard.type(" ");
    await until("a first suggestion asked and answered", async () => (await counts()).asked > warm.asked, 240_000);
    await workbench.screenshot("slow-warm");
    // Now the model writes noise up to a cap it takes many seconds to reach.
    server.updateMachineSettings({"localResponses.completions.maxTokens": 1024, "localResponses.completions.timeLimitMs": 60_000});
    await page.waitForTimeout(2000);
    await page.keyboard.press("Backspace");
    // A block header's end: the suggestion may run over lines, so the model generates up to its cap.
    await page.keyboard.type("function next() {");
    const before = await counts();
    // Three seconds of quiet, then two of generation.
    await page.waitForTimeout(5000);
    await page.keyboard.type("x");
    const cancelled = await until("the suggestion cancelled", async () => {
        const figures = await counts();
        return figures.cancelled > before.cancelled ? figures : null;
    }, 2500);
    assert.equal(cancelled.shown, before.shown, "the cancelled suggestion was not shown");
    assert.equal(await ghostText(), "", "no ghost text of the cancelled suggestion");
    await workbench.screenshot("cancelled");

    // The server counts the editor's generations: the aborted one as cancelled.
    const {endpoint, apiKey} = await copiedConnection(workbench);
    const metrics = await (await fetch(`${endpoint.replace(/\/v1$/, "")}/metrics`, {headers: {authorization: `Bearer ${apiKey}`}})).text();
    const series = (pattern: RegExp) => Number(pattern.exec(metrics)?.[1] ?? 0);
    assert.ok(series(/^local_responses_generations_total\{protocol="vscode_completions",status="cancelled"\} (\d+)$/m) >= 1, metrics);
    assert.ok(series(/^local_responses_editor_suggestions_total\{outcome="cancelled"\} (\d+)$/m) >= 1);
    assert.equal(series(/^local_responses_editor_suggestions_total\{outcome="accepted"\} (\d+)$/m), 1);
});
