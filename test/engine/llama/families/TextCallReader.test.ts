import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {performance} from "node:perf_hooks";
import {textCallFormats, type TextCallFormatName} from "../../../../src/engine/llama/families/textCallFormats.js";
import {nativeOf, patch, table, tools, type Row} from "../../../helpers/textCallTable.js";
import {templateFamilies} from "../../../helpers/templateFamilies.js";
import {chunksOf, readChunks, type Recorded} from "../../../helpers/textCallRecorder.js";

/** Outputs whose values test the stream's edges: surrogate pairs, CRLF, text that starts like JSON, several calls. */
const edgeRows: Row[] = [
    {format: "functionParameter", calls: [{name: "untyped", arguments: {word: "true story", n: -2, note: "Zürich 😀\r\nok\n"}}],
        output: "<tool_call>\n<function=untyped>\n<parameter=word>\ntrue story\n</parameter>\n<parameter=n>\n-2\n</parameter>\n" +
            "<parameter=note>\r\nZürich 😀\r\nok\n\r\n</parameter>\n</function>\n</tool_call>"},
    {format: "seedFunctionParameter", calls: [{name: "shell", arguments: {workdir: "/a </parameter> b", command: ["x"]}}],
        output: "<seed:tool_call>\n<function=shell>\n<parameter=workdir>/a </parameter> b</parameter>\n" +
            "<parameter=command>[\"x\"]</parameter>\n</function>\n</seed:tool_call>"},
    {format: "invoke",
        calls: [{name: "apply_patch", arguments: {input: patch}}, {name: "get_weather", arguments: {city: "Oslo 😀", days: 2}}],
        output: `<minimax:tool_call>\n<invoke name="apply_patch">\n<parameter name="input">${patch}</parameter>\n</invoke>\n` +
            "<invoke name=\"get_weather\">\n<parameter name=\"city\">Oslo 😀</parameter>\n" +
            "<parameter name=\"days\">2</parameter>\n</invoke>\n</minimax:tool_call>"},
    {format: "argKeyValue",
        calls: [{name: "apply_patch", arguments: {input: patch}}, {name: "get_weather", arguments: {city: "Rome", days: 4}}],
        output: `<tool_call>apply_patch\n<arg_key>input</arg_key>\n<arg_value>${patch}</arg_value>\n</tool_call>\n` +
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome</arg_value>\n" +
            "<arg_key>days</arg_key>\n<arg_value>4</arg_value>\n</tool_call>"},
    {format: "gemma4", calls: [{name: "shell", arguments: {workdir: "😀 <|\" not a quote", timeout_ms: 10, command: ["a"]}}],
        output: "<|tool_call>call:shell{workdir:<|\"|>😀 <|\" not a quote<|\"|>, timeout_ms:10," +
            "command:[<|\"|>a<|\"|>]}<tool_call|>"}
];

/** Checks what the sink heard against the calls read: each one's deltas add up to its arguments' JSON, exactly. */
function assertDeltasAddUp(recorded: Recorded, label: string): void {
    for (const call of recorded.calls) {
        const heard = recorded.heard[call.index];
        assert.ok(heard != null, `${label}: call ${call.index} was heard`);
        assert.equal(heard.name, call.name, label);
        assert.equal(heard.ended, "completed", label);
        assert.equal(heard.json, JSON.stringify(call.arguments), label);
        assert.deepEqual(JSON.parse(heard.json), call.arguments, label);
    }
    assert.equal(recorded.heard.filter((call) => call.ended === "completed").length, recorded.calls.length, label);
}

/** Every way to cut `text` in two, and in chunks of a few sizes. */
function splits(text: string): string[][] {
    const cuts = Array.from({length: text.length + 1}, (_, at) => [text.slice(0, at), text.slice(at)].filter((part) => part !== ""));
    return [...cuts, ...[1, 2, 3, 5, 8].map((size) => chunksOf(text, size))];
}

describe("text call reader: calls streamed as they are written (no model)", () => {
    it("each family's native call and every table row: at every split point, the deltas add up to the call read", async () => {
        const {nativeCalls} = await templateFamilies();
        const native = (Object.entries(nativeOf) as [TextCallFormatName, string[]][])
            .flatMap(([format, families]) => families.map((family) => ({format, output: nativeCalls[family]!})));
        for (const {format, output} of [...native, ...table, ...edgeRows]) {
            const whole = readChunks(format, tools, [output]);
            for (const chunks of splits(`Sure.\n${output}`)) {
                const label = `${format}: ${JSON.stringify(chunks.slice(0, 3))}…`;
                const recorded = readChunks(format, tools, chunks);
                assertDeltasAddUp(recorded, label);
                assert.deepEqual(recorded.calls, whole.calls, label);
                assert.equal(recorded.answer, `Sure.\n${whole.answer}`, label);
            }
        }
    });

    it("the edge rows read as their table says", () => {
        for (const {format, output, calls} of edgeRows) {
            assert.deepEqual(textCallFormats[format].parse(output, tools), calls, format);
            const read = readChunks(format, tools, chunksOf(output, 1)).calls;
            assert.deepEqual(read.map(({name, arguments: args}) => ({name, arguments: args})), calls, format);
        }
    });

    /** Per format, an apply_patch call: the text up to the patch's end, and the rest. */
    const patchCalls: Record<TextCallFormatName, [string, string]> = {
        functionParameter: [`<tool_call>\n<function=apply_patch>\n<parameter=input>\n${patch}`,
            "\n</parameter>\n</function>\n</tool_call>"],
        seedFunctionParameter: [`<seed:tool_call>\n<function=apply_patch>\n<parameter=input>${patch}`,
            "</parameter>\n</function>\n</seed:tool_call>"],
        argKeyValue: [`<tool_call>apply_patch\n<arg_key>input</arg_key>\n<arg_value>${patch}`, "</arg_value>\n</tool_call>"],
        invoke: [`<minimax:tool_call>\n<invoke name="apply_patch">\n<parameter name="input">${patch}`,
            "</parameter>\n</invoke>\n</minimax:tool_call>"],
        gemma4: [`<|tool_call>call:apply_patch{input:<|"|>${patch}`, "<|\"|>}<tool_call|>"]
    };

    for (const [format, [written, rest]] of Object.entries(patchCalls) as [TextCallFormatName, [string, string]][]) {
        it(`${format}: the name once it is written, a string argument as it is written`, () => {
            const nameEnd = written.indexOf("apply_patch") + "apply_patch".length + 2;
            const early = readChunks(format, tools, chunksOf(written.slice(0, nameEnd), 1), {cut: true});
            assert.deepEqual(early.heard.map((call) => call.name), ["apply_patch"], "the name is heard once its tag closes");
            const {heard} = readChunks(format, tools, chunksOf(written, 3), {cut: true});
            assert.equal(heard[0]?.json, `{"input":${JSON.stringify(patch).slice(0, -1)}`, "the patch streamed before its closing tag");
            assert.ok(heard[0].deltas > patch.length / 4, `${heard[0].deltas} deltas`);
            const whole = readChunks(format, tools, [...chunksOf(written, 3), ...chunksOf(rest, 1)]);
            assertDeltasAddUp(whole, format);
            assert.deepEqual(whole.calls.map((call) => call.arguments), [{input: patch}]);
        });

        it(`${format}: a call cut by the token limit stays open, its text not given back; ended otherwise, the text given back`, () => {
            const cutAt = written.length - 10;
            const cut = readChunks(format, tools, chunksOf(written.slice(0, cutAt), 4), {cut: true});
            assert.deepEqual({answer: cut.answer, calls: cut.calls, ended: cut.heard.map((call) => call.ended)},
                {answer: "", calls: [], ended: [undefined]});
            const ended = readChunks(format, tools, chunksOf(written.slice(0, cutAt), 4));
            assert.deepEqual({answer: ended.answer, calls: ended.calls, ended: ended.heard.map((call) => call.ended)},
                {answer: written.slice(0, cutAt), calls: [], ended: ["incomplete"]});
        });
    }

    it("a value JSON types is said once it ends, whole", () => {
        const output = "<tool_call>\n<function=shell>\n<parameter=command>\n[\"ls\",\n \"-la\"]\n</parameter>\n<parameter=workdir>\n/tmp";
        const {heard} = readChunks("functionParameter", tools, chunksOf(output, 1), {cut: true});
        assert.equal(heard[0]?.json, "{\"command\":[\"ls\",\"-la\"],\"workdir\":\"/tmp");
    });

    it("streams a long call in time linear in its length (4-character chunks)", () => {
        const cost = (size: number) => {
            const [written, rest] = patchCalls.functionParameter;
            const long = written.replace(patch, "x </parameter> y\n".repeat(size / 17)) + rest;
            const chunks = chunksOf(long, 4);
            let least = Number.POSITIVE_INFINITY;
            for (let round = 0; round < 3; round++) {
                const start = performance.now();
                readChunks("functionParameter", tools, chunks);
                least = Math.min(least, performance.now() - start);
            }
            return least;
        };
        cost(4096);
        // Four times the text costs about 4× read in one pass, 16× read again per chunk.
        const [at64K, at256K] = [cost(65_536), cost(262_144)];
        assert.ok(at256K < 8 * at64K + 10, `64K ${at64K.toFixed(1)} ms, 256K ${at256K.toFixed(1)} ms`);
    });
});
