import assert from "node:assert/strict";
import type {ResponseObject} from "../../../src/protocol/wire.js";
import fs from "node:fs";
import path from "node:path";
import {test} from "node:test";
import {repoRoot} from "../../helpers/paths.js";
import {inspectorHtml} from "../../../src/vscode/inspector/inspectorHtml.js";
import type {ResponseDetail} from "../../../src/vscode/inspector/shared/inspectorProtocol.js";
import {dropdown, textField} from "../../../webview/components/ui.js";
import {detailView} from "../../../webview/views/detailView.js";
import {jobEventsList, jobsTable} from "../../../webview/views/jobsView.js";
import {responsesTable} from "../../../webview/views/responsesView.js";
import {MiniElement, withMiniDom} from "./miniDom.js";

// A partial response object: the fields the view reads.
const detail: ResponseDetail = {
    response: {
        id: "resp_1", object: "response", status: "failed", model: "m", created_at: 1_700_000_000, background: false,
        error: {code: "server_error", message: "The model was unloaded."}, text: {format: {type: "json_schema", name: "answer"}},
        usage: {
            input_tokens: 10, input_tokens_details: {cached_tokens: 4}, output_tokens: 3, output_tokens_details: {reasoning_tokens: 0},
            total_tokens: 13
        },
        output: [
            {type: "reasoning", id: "rs_1", summary: [], content: [{type: "reasoning_text", text: "thinking"}]},
            {
                type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: "{\"city\":\"Paris\"}",
                status: "completed"
            },
            {type: "custom_tool_call", id: "ctc_1", call_id: "call_2", name: "apply_patch", input: "*** Begin Patch"},
            {
                type: "message", id: "msg_1", role: "assistant", status: "completed",
                content: [{type: "output_text", text: "{\"ok\":true}", annotations: []}]
            }
        ]
    } as unknown as ResponseObject,
    inputItems: [
        {type: "message", id: "msg_0", status: "completed", role: "user", content: [{type: "input_text", text: "hi"}]},
        {type: "function_call_output", id: "fco_1", status: "completed", call_id: "call_1", output: "{\"temp\":21}"}
    ],
    timings: {
        queueWaitMs: 3, timeToFirstTokenMs: 120, generationMs: 400, outputTokensPerSecond: 7.1, promptTokensPerSecond: 50, inputTokens: 10,
        cachedTokens: 4, outputTokens: 3
    }
};

function build(): MiniElement[] {
    return withMiniDom(() => [
        detailView("resp_1", detail, {onDelete: () => undefined, onClose: () => undefined}),
        detailView("resp_gone", null, {onDelete: () => undefined, onClose: () => undefined}),
        responsesTable([{id: "resp_1", createdAt: 1_700_000_000, status: "failed", model: "m", inputTokens: 1, outputTokens: 2,
            background: false, preview: "", metadata: {}}], null, () => undefined),
        jobsTable([{id: "resp_2", createdAt: 1_700_000_000, status: "in_progress", model: "m", eventCount: 3, cancellable: true,
            timings: null}], null, {onWatch: () => undefined, onCancel: () => undefined}),
        jobEventsList("resp_2", [{sequence: 0, type: "response.created", summary: ""}]),
        textField({label: "Search stored responses", placeholder: "Search", value: "", onInput: () => undefined}),
        dropdown({label: "Filter by status", choices: [{value: "", label: "Any"}], value: "", onChange: () => undefined})
    ] as unknown as MiniElement[]);
}

const accessibleName = (element: MiniElement) => (element.getAttribute("aria-label") ?? element.textContent).trim();

test("accessibility: every control has a name, every table column a header, every clickable row a key", () => {
    const elements = build().flatMap((root) => [...root.walk()]);
    for (const element of elements) {
        if (["vscode-button", "button", "vscode-text-field", "vscode-dropdown"].includes(element.tagName))
            assert.notEqual(accessibleName(element), "", `${element.tagName} without an accessible name`);
        if (element.tagName === "th")
            assert.notEqual(element.textContent.trim(), "", "a column without a header");
        if (element.listeners.has("click") && !element.tagName.endsWith("button")) {
            assert.equal(element.getAttribute("tabindex"), "0", `${element.tagName} clickable but not focusable`);
            assert.ok(element.listeners.has("keydown"), `${element.tagName} clickable but not by keyboard`);
        }
        if (element.getAttribute("role") === "img")
            assert.notEqual(element.getAttribute("aria-label") ?? "", "");
    }
    for (const table of elements.filter((element) => element.tagName === "table")) {
        const headers = [...table.walk()].filter((element) => element.tagName === "th").length;
        const firstRow = [...table.walk()].find((element) => element.tagName === "tr" && element.getAttribute("tabindex") != null);
        assert.equal(firstRow?.children.length, headers, "one header per column");
    }
});

test("accessibility: a failed response's error is an alert, its structure has headings, tool calls and timings are labeled", () => {
    const [failed] = build();
    const all = [...failed!.walk()];
    const alert = all.find((element) => element.getAttribute("role") === "alert");
    assert.ok(alert != null && alert.textContent.includes("The model was unloaded."));
    assert.equal(all.filter((element) => element.tagName === "h2").length, 1);
    assert.ok(all.filter((element) => element.tagName === "h3").map((element) => element.textContent).includes("Timings"));
    const timings = all.find((element) => element.getAttribute("data-testid") === "timings")!;
    assert.match(timings.textContent, /Time to first token120 ms/);
    const call = all.find((element) => element.getAttribute("data-item-type") === "function_call")!;
    assert.match(call.textContent, /get_weather/);
    assert.match(call.textContent, /"city": "Paris"/, "arguments pretty-printed");
    assert.ok(
        all.some(
            (element) => element.getAttribute("data-item-type") === "custom_tool_call" && element.textContent.includes("*** Begin Patch")
        )
    );
    assert.ok(all.some((element) => element.textContent.startsWith("Structured output (answer)")), "JSON output labeled with its schema");
    assert.ok(all.filter((element) => element.tagName === "details").length >= 5, "each item keeps its raw JSON, and the response's");
});

test("accessibility: the page declares its language and title", () => {
    const html = inspectorHtml({cspSource: "x", scriptUri: "y", styleUris: ["z"]});
    assert.match(html, /<html lang="en">/);
    assert.match(html, /<title>[^<]+<\/title>/);
});

type Rgb = [number, number, number];

function parseHex(hex: string): Rgb {
    const value = hex.replace("#", "");
    return [0, 2, 4].map((offset) => parseInt(value.slice(offset, offset + 2), 16)) as Rgb;
}

/** WCAG 2 contrast ratio of two opaque colors. */
function contrast(a: Rgb, b: Rgb): number {
    const luminance = (rgb: Rgb) => {
        const [r, g, b] = rgb.map((channel) => {
            const c = channel / 255;
            return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
        }) as Rgb;
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (light + 0.05) / (dark + 0.05);
}

test("accessibility: text in the inspector's stylesheet reaches 4.5:1 on its backgrounds in the light and dark themes", () => {
    const css = fs.readFileSync(path.join(repoRoot, "media/inspector.css"), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
    const themes = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures/themeColors.json"),
        "utf8")) as Record<string, Record<string, string>>;
    const rules = [...css.matchAll(/([^{}]+)\{([^}]*)\}/g)].map(([, selector, body]) => ({
        selector: selector!.trim(),
        color: /(?:^|;|\s)color:\s*var\(--vscode-([\w-]+)/.exec(body!)?.[1] ?? null,
        background: /background:\s*var\(--vscode-([\w-]+)/.exec(body!)?.[1] ?? null
    }));
    // Text of rules without a background sits on the page or in a code block; a background without a text color holds the page's text.
    const pageBackgrounds = ["editor-background", "textCodeBlock-background"];
    let checked = 0;
    for (const [theme, colors] of Object.entries(themes).filter(([name]) => !name.startsWith("_"))) {
        const color = (name: string) => {
            assert.ok(colors[name] != null, `${theme} has no value for --vscode-${name}: add it to the fixture`);
            return parseHex(colors[name]!);
        };
        for (const rule of rules) {
            if (rule.color == null && rule.background == null)
                continue;
            const texts = rule.color != null ? [rule.color] : ["foreground"];
            const backgrounds = rule.background != null ? [rule.background] : pageBackgrounds;
            for (const text of texts)
                for (const background of backgrounds) {
                    const ratio = contrast(color(text), color(background));
                    assert.ok(ratio >= 4.5,
                        `${theme}: ${rule.selector} --vscode-${text} on --vscode-${background} is ${ratio.toFixed(2)}:1`);
                    checked++;
                }
        }
    }
    assert.ok(checked > 20, `checked ${checked} pairs`);
});
