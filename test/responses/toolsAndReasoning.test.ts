import assert from "node:assert/strict";
import {describe, it} from "node:test";
import type {GenerationResult} from "../../src/engine/types.js";
import {FreeformInputDecoder} from "../../src/responses/FreeformInputDecoder.js";
import {OutputValidator} from "../../src/responses/outputValidation/OutputValidator.js";
import {ReasoningEcho} from "../../src/responses/reasoning/ReasoningEcho.js";
import {ReasoningTokens} from "../../src/responses/reasoning/ReasoningTokens.js";
import {thoughtBudgetFor} from "../../src/responses/reasoning/reasoningEffort.js";
import {itemsToTurns} from "../../src/responses/transcript.js";
import type {Item, OutputItem} from "../../src/protocol/wire.js";

const user = (text: string): Item => ({
    type: "message", id: "msg_u", status: "completed", role: "user", content: [{type: "input_text", text}]
});
const answer = (text: string): OutputItem => ({
    type: "message", id: "msg_a", status: "completed", role: "assistant", content: [{type: "output_text", text, annotations: []}]
});
const thought = (text: string): OutputItem => ({type: "reasoning", id: "rs_1", summary: [], content: [{type: "reasoning_text", text}]});
const result = (partial: Partial<GenerationResult>): GenerationResult => ({
    stopReason: "stop", text: "", calls: [], timeToFirstTokenMs: 1,
    usage: {inputTokens: 1, cachedTokens: 0, outputTokens: 1, reasoningTokens: 0}, ...partial
});

describe("ReasoningTokens (HMAC-tagged, not encrypted)", () => {
    it("round-trips, and refuses altered tokens and other secrets", () => {
        const tokens = new ReasoningTokens("secret");
        const token = tokens.seal("I think, therefore…");
        assert.equal(tokens.open(token), "I think, therefore…");
        assert.equal(tokens.open(token.slice(0, -1) + (token.endsWith("A") ? "B" : "A")), undefined);
        assert.equal(new ReasoningTokens("other").open(token), undefined);
        assert.equal(new ReasoningTokens("secret").open(token), "I think, therefore…", "a configured secret survives a restart");
        assert.equal(tokens.open("gAAAAABopaque-openai-token"), undefined);
    });

    it("is read back by the transcript as the model's own thought", () => {
        const tokens = new ReasoningTokens();
        const items: Item[] = [
            user("hi"), {type: "reasoning", id: "rs_x", summary: [], content: null, encrypted_content: tokens.seal("hmm")}, answer("Hello")
        ];
        const turns = itemsToTurns(items, {readReasoningToken: (token) => tokens.open(token)});
        assert.deepEqual(turns[1], {role: "model", parts: [{type: "thought", text: "hmm"}, {type: "text", text: "Hello"}]});
    });
});

describe("ReasoningEcho", () => {
    it("puts back the reasoning of a reply replayed without it, and only of replies it produced", () => {
        const echo = new ReasoningEcho(1024);
        echo.remember("owner_a", [thought("plan"), answer("Hello")]);
        const restored = echo.restore("owner_a", [user("hi"), answer("Hello"), user("more")]);
        assert.deepEqual(restored.map((item) => item.type), ["message", "reasoning", "message", "message"]);
        assert.equal((restored[1] as any).content[0].text, "plan");
        assert.equal(echo.restore("owner_a", [user("hi"), answer("Other"), user("more")]).length, 3);
        const kept = [user("hi"), thought("client's own"), answer("Hello")];
        assert.deepEqual(echo.restore("owner_a", kept), kept, "a reply that carries reasoning is left alone");
    });

    it("matches calls by name and arguments, and is bounded by bytes (0 disables)", () => {
        const echo = new ReasoningEcho(120);
        const call: OutputItem = {
            type: "function_call", id: "fc_1", call_id: "call_1", name: "add", arguments: "{\"a\":1}", status: "completed"
        };
        echo.remember("owner_a", [thought("x".repeat(10)), call]);
        const restored = echo.restore("owner_a", [
            user("hi"), {...call, id: "fc_other"},
            {type: "function_call_output", id: "o", call_id: "call_1", output: "2", status: "completed"}
        ]);
        assert.equal(restored[1]!.type, "reasoning");
        echo.remember("owner_a", [thought("y".repeat(30)), answer("B")]);
        assert.equal(echo.size, 1, "the oldest entry left to stay under the byte bound");
        const off = new ReasoningEcho(0);
        off.remember("owner_a", [thought("z"), answer("C")]);
        assert.equal(off.size, 0);
    });
});

describe("ReasoningEcho across keys", () => {
    it("never puts one key's hidden reasoning into another key's prompt, even for an identical visible reply", () => {
        const echo = new ReasoningEcho(1024);
        const call: OutputItem = {
            type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: "{\"cmd\":\"ls\"}", status: "completed"
        };
        echo.remember("owner_a", [thought("A's private plan"), call]);
        const history = [
            user("hi"), {...call, id: "fc_b"},
            {type: "function_call_output", id: "o", call_id: "call_1", output: "x", status: "completed"} as const
        ];
        const forB = echo.restore("owner_b", history);
        assert.deepEqual(forB, history, "key B's replay is rendered as sent");
        assert.ok(!JSON.stringify(forB).includes("private plan"));
        assert.equal(echo.restore("owner_a", history)[1]!.type, "reasoning", "key A still gets its own back");
    });
});

describe("FreeformInputDecoder", () => {
    it("decodes the input string out of streamed arguments, with escapes split across chunks", () => {
        const args = JSON.stringify({input: "*** Begin Patch\n\"quoted\" \\ tab\t é \u2603 end"});
        for (const size of [1, 2, 3, 7, args.length]) {
            const decoder = new FreeformInputDecoder();
            let out = "";
            for (let index = 0; index < args.length; index += size)
                out += decoder.push(args.slice(index, index + size));
            assert.equal(out, JSON.parse(args).input, `chunk size ${size}`);
        }
    });
});

describe("OutputValidator", () => {
    const schema = {type: "object", properties: {n: {type: "integer"}}, required: ["n"], additionalProperties: false};

    it("holds content only when something must be validated", () => {
        assert.equal(new OutputValidator({type: "text"}, new Map()).holds, false);
        assert.equal(new OutputValidator({type: "json_object"}, new Map()).holds, true);
        assert.equal(new OutputValidator({type: "text"}, new Map([["f", schema]])).holds, true);
    });

    it("rejects output or strict arguments that do not match, and never judges a cut result", () => {
        const format = {type: "json_schema" as const, name: "s", schema, strict: true, description: null};
        const validator = new OutputValidator(format, new Map([["f", schema]]));
        assert.equal(validator.check(result({text: "{\"n\": 1}"})), null);
        assert.equal(validator.check(result({text: "{\"n\": 1.5}"}))?.code, "invalid_output");
        assert.equal(validator.check(result({text: "{\"n\":"}))?.code, "invalid_output");
        assert.equal(validator.check(result({text: "{\"n\":", stopReason: "length"})), null);
        assert.equal(validator.check(result({calls: [{name: "f", arguments: "{\"n\": \"x\"}"}], stopReason: "tool_calls"}))?.code,
            "invalid_tool_arguments");
        assert.equal(validator.check(result({calls: [{name: "g", arguments: "not json"}], stopReason: "tool_calls"})), null,
            "non-strict tools are not validated");
        assert.equal(new OutputValidator({type: "json_object"}, new Map()).check(result({text: "[1]"}))?.code, "invalid_output");
    });
});

describe("reasoning effort → thought budget", () => {
    it("maps efforts to the documented budgets, capped at half of max_output_tokens", () => {
        assert.deepEqual(["none", "minimal", "low", "medium", "high", "xhigh"].map((effort) => thoughtBudgetFor(effort as any, null)),
            [0, 64, 256, 1024, 4096, 8192]);
        assert.equal(thoughtBudgetFor(null, null), 1024);
        assert.equal(thoughtBudgetFor("high", 100), 50);
        assert.equal(thoughtBudgetFor("none", 100), 0);
    });
});

describe("call/output pairing (transcript)", () => {
    const call = (id: string): Item => ({
        type: "function_call", id: `fc_${id}`, call_id: id, name: "f", arguments: "{}", status: "completed"
    });
    const output = (id: string,
        text: string): Item => ({type: "function_call_output", id: `o_${id}`, call_id: id, output: text, status: "completed"});

    it("pairs results with their calls in any order", () => {
        const turns = itemsToTurns([user("go"), call("a"), call("b"), output("b", "B"), output("a", "A")]);
        assert.deepEqual(turns[1], {role: "model", parts: [
            {type: "call", name: "f", arguments: "{}", result: "A"},
            {type: "call", name: "f", arguments: "{}", result: "B"}
        ]});
    });

    it("refuses a call without output and an output without call", () => {
        assert.throws(() => itemsToTurns([user("go"), call("a")]), {code: "missing_tool_output"});
        assert.throws(() => itemsToTurns([user("go"), output("z", "Z")]), {code: "missing_tool_call"});
    });
});
