import assert from "node:assert/strict";
import {describe, it} from "node:test";
import {ApiError} from "../../../src/protocol/errors.js";
import {parseMessagesRequest} from "../../../src/protocols/messages/messagesRequest.js";

const base = {model: "m", max_tokens: 32, messages: [{role: "user", content: "Hi"}]};
const tool = {name: "get_weather", description: "Weather", input_schema: {type: "object", properties: {city: {type: "string"}}}};

function refusal(body: unknown): ApiError {
    try {
        parseMessagesRequest(body);
    } catch (error) {
        assert.ok(error instanceof ApiError);
        return error;
    }
    assert.fail("accepted");
}

describe("parseMessagesRequest: a Messages body as a stateless Responses request", () => {
    it("maps system, blocks, tool calls, results and thoughts in order", () => {
        const {responsesBody} = parseMessagesRequest({
            ...base,
            system: [{type: "text", text: "A", cache_control: {type: "ephemeral"}}, {type: "text", text: "B"}],
            messages: [
                {role: "user", content: [{type: "text", text: "Weather?"}]},
                {
                    role: "assistant", content: [
                        {type: "thinking", thinking: "Use the tool.", signature: "s"},
                        {type: "tool_use", id: "t1", name: "get_weather", input: {city: "Oslo"}}
                    ]
                },
                {
                    role: "user",
                    content: [{type: "tool_result", tool_use_id: "t1", content: "down", is_error: true}, {type: "text", text: "And?"}]
                }
            ]
        });
        assert.equal(responsesBody.instructions, "A\n\nB");
        assert.equal(responsesBody.store, false);
        assert.equal(responsesBody.max_output_tokens, 32);
        assert.deepEqual(responsesBody.input, [
            {type: "message", role: "user", content: "Weather?"},
            {type: "reasoning", summary: [], content: [{type: "reasoning_text", text: "Use the tool."}], encrypted_content: "s"},
            {type: "function_call", call_id: "t1", name: "get_weather", arguments: "{\"city\":\"Oslo\"}"},
            {type: "function_call_output", call_id: "t1", output: "Error: down"},
            {type: "message", role: "user", content: "And?"}
        ]);
    });

    it("maps tool_choice and disable_parallel_tool_use", () => {
        const mapped = (choice: object) => parseMessagesRequest({...base, tools: [tool], tool_choice: choice}).responsesBody;
        assert.equal(mapped({type: "any"}).tool_choice, "required");
        const named = mapped({type: "tool", name: "get_weather", disable_parallel_tool_use: true});
        assert.deepEqual(named.tool_choice, {type: "function", name: "get_weather"});
        assert.equal(named.parallel_tool_calls, false);
        assert.equal(mapped({type: "none"}).tool_choice, "none");
        assert.deepEqual(parseMessagesRequest({...base, tools: [tool]}).responsesBody.tools, [
            {type: "function", name: "get_weather", description: "Weather", parameters: tool.input_schema, strict: false}
        ]);
    });

    it("maps thinking to a reasoning effort", () => {
        const effort = (extra: object) => (parseMessagesRequest({...base, ...extra}).responsesBody.reasoning as {effort: string}).effort;
        assert.equal(effort({}), "none");
        assert.equal(effort({thinking: {type: "disabled"}}), "none");
        assert.equal(effort({thinking: {type: "enabled", budget_tokens: 1024}}), "medium");
        assert.equal(effort({thinking: {type: "enabled", budget_tokens: 1025}}), "high");
        assert.equal(effort({thinking: {type: "adaptive"}}), "medium");
        assert.equal(effort({thinking: {type: "adaptive"}, output_config: {effort: "max"}}), "xhigh");
    });

    it("refuses what it cannot honour by name, and a missing max_tokens", () => {
        assert.match(refusal({model: "m", messages: []}).message, /max_tokens/);
        assert.equal(refusal({...base, tools: [{type: "web_search_20250305", name: "web_search"}]}).code, "unsupported_tool_type");
        assert.equal(refusal({...base, container: "c"}).code, "unsupported_parameter");
        assert.equal(refusal({...base, mcp_servers: []}).code, "unsupported_parameter");
        assert.equal(refusal({...base, messages: [{role: "user", content: [{type: "image", source: {}}]}]}).code,
            "unsupported_content_type");
        assert.equal(refusal({...base, tool_choice: {type: "any"}}).param, "tool_choice");
        assert.equal(refusal({...base, frequency_penalty: 1}).code, "unknown_parameter");
    });

    it("accepts what Claude Code sends by default, and count_tokens without max_tokens", () => {
        parseMessagesRequest({
            ...base, context_management: {edits: []}, output_config: {effort: "high"}, metadata: {user_id: "u"},
            thinking: {type: "adaptive", display: "omitted"}
        });
        // Claude Code 2.1.328's interactive "auto" permission mode asks for Anthropic's classifier of dangerous tool use;
        // refused, it sent every turn twice (the second without it).
        parseMessagesRequest({...base, safeguards: [{type: "dangerous_tool_use"}]});
        parseMessagesRequest({model: "m", messages: [{role: "user", content: "Hi"}]}, {countOnly: true});
    });
});
