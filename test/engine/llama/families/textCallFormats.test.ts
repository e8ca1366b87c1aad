import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {TextCallReader} from "../../../../src/engine/llama/families/TextCallReader.js";
import {textCallFormats, type TextCallFormatName, type TextCallTools} from "../../../../src/engine/llama/families/textCallFormats.js";
import {templateFamilies} from "../../../helpers/templateFamilies.js";

const tools: TextCallTools = new Map([
    ["get_weather", {params: {type: "object", properties: {city: {type: "string"}, days: {type: "integer"}}}}],
    ["shell", {params: {type: "object", properties: {
        command: {type: "array"}, workdir: {type: "string"}, timeout_ms: {type: ["integer", "null"]}
    }}}],
    ["apply_patch", {params: {type: "object", properties: {input: {type: "string"}}}}],
    ["untyped", {}]
]);

/** The family whose native call texts (families.mjs) each format reads. */
const nativeOf: Record<TextCallFormatName, string[]> = {
    functionParameter: ["qwen3-coder", "qwen3.5", "nemotron-3-nano"],
    seedFunctionParameter: ["seed-oss"],
    argKeyValue: ["glm-4.6", "glm-4.7-flash"],
    invoke: ["minimax-m2"],
    gemma4: ["gemma-4"]
};

const patch = "*** Begin Patch\n*** Update File: a.ts\n@@\n-const a = 1;\n+const a = 2; // </parameter> in a file\n*** End Patch";

/** Hand-written model outputs per format (llama.cpp's test-chat.cpp style): text → the calls read from it. */
type Row = {format: TextCallFormatName, output: string, calls: {name: string, arguments: Record<string, unknown>}[] | undefined};
const table: Row[] = [
    {format: "functionParameter",
        calls: [{name: "shell", arguments: {command: ["bash", "-lc", "ls -la"], workdir: "/tmp", timeout_ms: 5000}}],
        output: "<tool_call>\n<function=shell>\n<parameter=command>\n[\"bash\", \"-lc\", \"ls -la\"]\n</parameter>\n" +
            "<parameter=workdir>\n/tmp\n</parameter>\n<parameter=timeout_ms>\n5000\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: [{name: "apply_patch", arguments: {input: patch}}],
        output: `<tool_call>\n<function=apply_patch>\n<parameter=input>\n${patch}\n</parameter>\n</function>\n</tool_call>`},
    {format: "functionParameter",
        calls: [{name: "get_weather", arguments: {city: "Paris"}}, {name: "get_weather", arguments: {city: "Rome", days: 3}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n" +
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nRome\n</parameter>\n<parameter=days>\n3\n</parameter>\n" +
            "</function>\n</tool_call>"},
    // A string parameter stays text even when it looks like a number; an untyped one is read as JSON where it is.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {city: "1984"}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=city>\n1984\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: [{name: "untyped", arguments: {n: 2, flag: true, word: "yes", list: [1]}}],
        output: "<tool_call>\n<function=untyped>\n<parameter=n>\n2\n</parameter>\n<parameter=flag>\ntrue\n</parameter>\n" +
            "<parameter=word>\nyes\n</parameter>\n<parameter=list>\n[1]\n</parameter>\n</function>\n</tool_call>"},
    // node-llama-cpp's Qwen 3.5 wrapper renders earlier calls as one `params` JSON blob; a model may copy it.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {city: "Paris"}}],
        output: "<tool_call>\n<function=get_weather>\n<parameter=params>\n{\"city\": \"Paris\"}\n</parameter>\n</function>\n</tool_call>"},
    // The turn ended right after the function closed (the section's closer was the stop text): still a call.
    {format: "functionParameter", calls: [{name: "get_weather", arguments: {}}],
        output: "<tool_call>\n<function=get_weather>\n</function>"},
    {format: "functionParameter", calls: undefined, output: "<tool_call>\n<function=get_weather>\n<parameter=city>\nPar"},
    {format: "functionParameter", calls: undefined, output: "<tool_call>\n<function="},
    {format: "functionParameter", calls: undefined,
        output: "<tool_call>\n<function=rm_rf>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>"},
    {format: "functionParameter", calls: undefined,
        output: "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>\nAnd then some prose after the call."},
    {format: "argKeyValue",
        calls: [{name: "shell", arguments: {command: ["ls"], timeout_ms: null}}, {name: "get_weather", arguments: {city: "Oslo"}}],
        output: "<tool_call>shell\n<arg_key>command</arg_key>\n<arg_value>[\"ls\"]</arg_value>\n<arg_key>timeout_ms</arg_key>\n" +
            "<arg_value>null</arg_value>\n</tool_call><tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value>" +
            "</tool_call>"},
    {format: "argKeyValue", calls: [{name: "apply_patch", arguments: {input: "line 1\n</arg_value> quoted\nline 3"}}],
        output: "<tool_call>apply_patch\n<arg_key>input</arg_key>\n<arg_value>line 1\n</arg_value> quoted\nline 3</arg_value>\n" +
            "</tool_call>"},
    {format: "argKeyValue", calls: undefined, output: "<tool_call>get_weather\n<arg_key>city</arg_key>"},
    {format: "invoke",
        calls: [{name: "get_weather", arguments: {city: "Paris", days: 2}}, {name: "shell", arguments: {command: ["pwd"]}}],
        output: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n" +
            "<parameter name=\"days\">2</parameter>\n</invoke>\n<invoke name=\"shell\">\n" +
            "<parameter name=\"command\">[\"pwd\"]</parameter>\n" +
            "</invoke>\n</minimax:tool_call>"},
    {format: "invoke", calls: undefined, output: "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris"},
    {format: "gemma4",
        calls: [{name: "shell", arguments: {command: ["bash", "-lc", "echo \"hi\", there"], workdir: "/tmp", timeout_ms: 5000}}],
        output: "<|tool_call>call:shell{command:[<|\"|>bash<|\"|>,<|\"|>-lc<|\"|>,<|\"|>echo \"hi\", there<|\"|>]," +
            "workdir:<|\"|>/tmp<|\"|>,timeout_ms:5000}<tool_call|>"},
    {format: "gemma4",
        calls: [
            {name: "untyped", arguments: {nested: {a: [1, 2.5, -3], b: null, c: true}, empty: {}}},
            {name: "get_weather", arguments: {city: "Paris"}}
        ],
        output: "<|tool_call>call:untyped{nested:{a:[1, 2.5, -3], b:null, c:true}, empty:{}}<tool_call|>" +
            "<|tool_call>call:get_weather{\"city\": \"Paris\"}<tool_call|>"},
    {format: "gemma4", calls: [{name: "apply_patch", arguments: {input: patch}}],
        output: `<|tool_call>call:apply_patch{input:<|"|>${patch}<|"|>}<tool_call|>`},
    {format: "gemma4", calls: [{name: "get_weather", arguments: {city: "{Paris}"}}],
        output: "<|tool_call>call:get_weather{{\"city\": \"{Paris}\"}}<tool_call|>"},
    {format: "gemma4", calls: undefined, output: "<|tool_call>call:get_weather{city:<|\"|>Par"},
    {format: "gemma4", calls: undefined, output: "<|tool_call>call:get_weather{city:Paris}<tool_call|>"},
    {format: "seedFunctionParameter", calls: [{name: "get_weather", arguments: {city: "Paris"}}],
        output: "<seed:tool_call>\n<function=get_weather>\n{\"city\": \"Paris\"}</function>\n</seed:tool_call>"},
    {format: "seedFunctionParameter", calls: [{name: "get_weather", arguments: {city: "Paris", days: 1}}],
        output: "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>1</parameter>\n" +
            "</function>\n</seed:tool_call>"}
];

/** Feeds `text` to a reader in chunks of `size` characters, as the tokens come. */
function readInChunks(format: TextCallFormatName, text: string, size: number) {
    const reader = new TextCallReader(textCallFormats[format], tools);
    let answer = "";
    for (let at = 0; at < text.length; at += size)
        answer += reader.push(text.slice(at, at + size));
    const {calls, text: rest} = reader.finish();
    return {answer: answer + rest, calls};
}

describe("text call formats: native model outputs → calls (no model)", () => {
    it("reads each family's native call text from ../shared (families.mjs)", async () => {
        const {nativeCalls} = await templateFamilies();
        for (const [format, families] of Object.entries(nativeOf) as [TextCallFormatName, string[]][])
            for (const family of families) {
                const native = nativeCalls[family];
                assert.ok(native != null, `${family} has a native call text`);
                assert.deepEqual(textCallFormats[format].parse(native, tools), [{name: "get_weather", arguments: {city: "Paris"}}], family);
            }
    });

    for (const [index, {format, output, calls}] of table.entries())
        it(`${format} #${index}: ${calls == null ? "not a call: stays text" : calls.map((call) => call.name).join(", ")}`, () => {
            assert.deepEqual(textCallFormats[format].parse(output, tools), calls);
        });

    it("streams: the text before a call is passed on, the call is read, at every chunk size", () => {
        for (const {format, output, calls} of table)
            for (const size of [1, 2, 3, 5, 7, 11, 64, 4096]) {
                const prose = "Let me check that.\n\n";
                const {answer, calls: read} = readInChunks(format, prose + output, size);
                assert.equal(answer, calls == null ? prose + output : prose, `${format}, chunks of ${size}`);
                assert.deepEqual(read, calls ?? [], `${format}, chunks of ${size}`);
            }
    });

    it("holds back only what could open a call, and gives it back when it does not", () => {
        const reader = new TextCallReader(textCallFormats.functionParameter, tools);
        assert.equal(reader.push("a < b and <tool"), "a < b and ");
        assert.equal(reader.push("_box> is not a call"), "<tool_box> is not a call");
        assert.equal(reader.push(" <tool_ca"), " ");
        assert.equal(reader.inCall, false);
        assert.deepEqual(reader.finish(), {calls: [], text: "<tool_ca"});
    });

    it("keeps at most maxCalls calls (parallel_tool_calls: false)", () => {
        const reader = new TextCallReader(textCallFormats.functionParameter, tools, 1);
        reader.push(table[2]!.output);
        assert.deepEqual(reader.finish().calls.map((call) => call.arguments), [{city: "Paris"}]);
    });
});
