import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {TextCallReader} from "../../../../src/engine/llama/families/TextCallReader.js";
import {textCallFormats, type TextCallFormatName} from "../../../../src/engine/llama/families/textCallFormats.js";
import {nativeOf, table, tools} from "../../../helpers/textCallTable.js";
import {chunksOf, readChunks} from "../../../helpers/textCallRecorder.js";
import {templateFamilies} from "../../../helpers/templateFamilies.js";

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
        for (const {format, output, calls, read} of table)
            for (const size of [1, 2, 3, 5, 7, 11, 64, 4096]) {
                const prose = "Let me check that.\n\n";
                const {answer, calls: readCalls} = readChunks(format, tools, chunksOf(prose + output, size));
                const expected = read ?? {calls: calls ?? [], after: calls == null ? output : ""};
                assert.equal(answer, prose + expected.after, `${format}, chunks of ${size}`);
                assert.deepEqual(readCalls.map(({name, arguments: args}) => ({name, arguments: args})), expected.calls,
                    `${format}, chunks of ${size}`);
            }
    });

    it("holds back only what could open a call, and gives it back when it does not", () => {
        let answer = "";
        const reader = new TextCallReader(textCallFormats.functionParameter, tools, {
            text: (text) => answer += text, start: assert.fail, delta: assert.fail, end: assert.fail
        });
        const said = ["a < b and <tool", "_box> is not a call", " <tool_ca"].map((chunk) => {
            reader.push(chunk);
            return answer;
        });
        assert.deepEqual(said, ["a < b and ", "a < b and <tool_box> is not a call", "a < b and <tool_box> is not a call "]);
        assert.equal(reader.inCall, false);
        assert.deepEqual(reader.finish(), []);
        assert.equal(answer, "a < b and <tool_box> is not a call <tool_ca");
    });

    it("keeps at most maxCalls calls (parallel_tool_calls: false)", () => {
        const {calls, heard} = readChunks("functionParameter", tools, [table[2]!.output], {maxCalls: 1});
        assert.deepEqual(calls.map((call) => call.arguments), [{city: "Paris"}]);
        assert.deepEqual(heard.map((call) => call.name), ["get_weather"]);
    });
});
