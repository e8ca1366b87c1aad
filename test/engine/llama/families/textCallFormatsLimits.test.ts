import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {performance} from "node:perf_hooks";
import {maxCallNesting} from "../../../../src/engine/llama/families/callNesting.js";
import {textCallFormats, type TextCallFormatName, type TextCallTools} from "../../../../src/engine/llama/families/textCallFormats.js";
import {readChunks} from "../../../helpers/textCallRecorder.js";

const tools: TextCallTools = new Map([
    ["shell", {params: {type: "object", properties: {command: {type: "array"}}}}],
    ["apply_patch", {params: {type: "object", properties: {input: {type: "string"}}}}],
    ["untyped", {}]
]);

/**
 * Per format, a call of about `size` characters shaped to cost the most where reading is not one pass: closing tags
 * or brackets everywhere in a value, long runs of space where a pattern backtracks, nesting left open.
 */
const longCalls: {format: TextCallFormatName, shape: string, call: (size: number) => string}[] = [
    {format: "gemma4", shape: "JSON in doubled braces, a `}` at every character of an open string",
        call: (size) => `<|tool_call>call:untyped{{"input": "${"}".repeat(size)}`},
    {format: "gemma4", shape: "bare keys, 20,000-deep nesting left open",
        call: (size) => `<|tool_call>call:untyped{${"a:{".repeat(size / 3)}`},
    {format: "gemma4", shape: "one long string value",
        call: (size) => `<|tool_call>call:apply_patch{input:<|"|>${"x}} ".repeat(size / 4)}<|"|>}<tool_call|>`},
    {format: "argKeyValue", shape: "a long run of spaces after the name",
        call: (size) => `<tool_call>untyped${" ".repeat(size)}x\n</tool_call>`},
    {format: "argKeyValue", shape: "a value full of its closing tag",
        call: (size) => `<tool_call>apply_patch\n<arg_key>input</arg_key><arg_value>${"</arg_value> x".repeat(size / 14)}` +
            "</arg_value></tool_call>"},
    {format: "functionParameter", shape: "a value full of its closing tag",
        call: (size) => `<tool_call>\n<function=apply_patch>\n<parameter=input>\n${"</parameter> x\n".repeat(size / 15)}</parameter>\n` +
            "</function>\n</tool_call>"},
    {format: "seedFunctionParameter", shape: "JSON arguments, a `}` at every character of a string",
        call: (size) => `<seed:tool_call>\n<function=apply_patch>\n{"input": "${"}".repeat(size)}"}</function>\n</seed:tool_call>`},
    {format: "invoke", shape: "a value full of its closing tag",
        call: (size) => `<minimax:tool_call>\n<invoke name="apply_patch">\n<parameter name="input">${"</parameter> x".repeat(size / 13)}` +
            "</parameter>\n</invoke>\n</minimax:tool_call>"}
];

/** Well above one pass over 128K characters on a loaded 2-core machine (under 1 ms idle), far below the quadratic's seconds. */
const maxMs = 150;

/** The least time over a few parses of `text` (stopping early past maxMs: the quadratic reading took seconds a parse). */
function parseMs(format: TextCallFormatName, text: string): number {
    let least = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5 && (round === 0 || least <= maxMs); round++) {
        const start = performance.now();
        textCallFormats[format].parse(text, tools);
        least = Math.min(least, performance.now() - start);
    }
    return least;
}

/** The call's text as TextCallReader gives it back: what the client gets (answer text, calls read to their end). */
function readAnswer(format: TextCallFormatName, text: string) {
    const {answer, calls} = readChunks(format, tools, [text]);
    return {answer, calls: calls.map(({name, arguments: args}) => ({name, arguments: args}))};
}

/** The arguments `{command: [[…[]…]]}`, nested `depth` levels deep in all (the arguments object is level 1). */
function nestedCommand(depth: number): string {
    return `{"command": ${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;
}

/** Per format, a call of `shell` whose `command` argument nests the arguments `depth` levels deep. */
const nestedCalls: Record<TextCallFormatName, (depth: number) => string> = {
    functionParameter: (depth) => `<tool_call>\n<function=shell>\n<parameter=command>\n${nestedCommand(depth).slice(12, -1)}\n` +
        "</parameter>\n</function>\n</tool_call>",
    seedFunctionParameter: (depth) => `<seed:tool_call>\n<function=shell>\n${nestedCommand(depth)}</function>\n</seed:tool_call>`,
    argKeyValue: (depth) => `<tool_call>shell\n<arg_key>command</arg_key><arg_value>${nestedCommand(depth).slice(12, -1)}</arg_value>` +
        "</tool_call>",
    invoke: (depth) => `<minimax:tool_call>\n<invoke name="shell">\n<parameter name="command">${nestedCommand(depth).slice(12, -1)}` +
        "</parameter>\n</invoke>\n</minimax:tool_call>",
    gemma4: (depth) => `<|tool_call>call:shell{command:${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}<tool_call|>`
};

describe("text call formats: cost and nesting (no model)", () => {
    for (const {format, shape, call} of longCalls)
        it(`${format}, ${shape}: read in time linear in the call's length`, () => {
            parseMs(format, call(4096));
            const [at64K, at128K] = [parseMs(format, call(65_536)), parseMs(format, call(131_072))];
            // Twice the text may cost up to 3× (plus timer noise on sub-millisecond reads); a quadratic reading costs 4×.
            assert.ok(at128K < 3 * at64K + 2, `${format}: 64K ${at64K.toFixed(2)} ms, 128K ${at128K.toFixed(2)} ms`);
            assert.ok(at128K < maxMs, `${format}: 128K ${at128K.toFixed(2)} ms`);
        });

    it("gemma4: 20,000 nested `{a:` come back as text, nothing thrown", () => {
        for (const close of ["", "<|\"|>x<|\"|>" + "}".repeat(20_000) + "<tool_call|>"]) {
            const text = `<|tool_call>call:untyped{${"a:{".repeat(20_000)}${close}`;
            assert.deepEqual(readAnswer("gemma4", text), {answer: text, calls: []});
        }
    });

    for (const [format, nested] of Object.entries(nestedCalls) as [TextCallFormatName, (depth: number) => string][])
        it(`${format}: arguments nested past ${maxCallNesting} levels come back as text, up to it as a call`, () => {
            for (const depth of [maxCallNesting + 1, 20_000]) {
                const text = nested(depth);
                assert.deepEqual(readAnswer(format, text), {answer: text, calls: []}, `${format}, depth ${depth}`);
            }
            const [call] = readAnswer(format, nested(maxCallNesting)).calls;
            assert.equal(call?.name, "shell", format);
            assert.equal(JSON.stringify(call.arguments), nestedCommand(maxCallNesting).replace(": ", ":"), format);
        });

    it("gemma4: doubled-brace JSON nested past the bound comes back as text", () => {
        const text = `<|tool_call>call:shell{${nestedCommand(20_000)}}<tool_call|>`;
        assert.deepEqual(readAnswer("gemma4", text), {answer: text, calls: []});
    });
});
