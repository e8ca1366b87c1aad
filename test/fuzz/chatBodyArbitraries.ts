import fc from "fast-check";
import {callId, dropUndefined, jsonSchema, mostly, shortText, simpleSchema, sometimes, toolName} from "./bodyArbitraries.js";

/**
 * `POST /v1/chat/completions` bodies shaped after the real ones: valid most of the time (each extra field present now
 * and then, and then mostly valid), so that most requests generate a few tokens; `mutated` breaks them further.
 */

const textPart = mostly(
    fc.record({type: fc.constant("text"), text: shortText}),
    fc.oneof(fc.record({type: fc.constantFrom("image_url", "input_audio", "file"), image_url: fc.constant({url: "data:,"})}),
        fc.record({type: fc.string({maxLength: 12}), text: shortText}))
);
const content = fc.oneof(shortText, fc.array(textPart, {minLength: 1, maxLength: 2}));

const message = fc.oneof(
    {arbitrary: fc.record({role: fc.constantFrom("system", "developer", "user"), content}), weight: 6},
    {
        arbitrary: fc.record({role: fc.constant("assistant"), content: fc.oneof(shortText, fc.constant(null)),
            reasoning_content: sometimes(shortText)}).map(dropUndefined), weight: 2
    },
    {arbitrary: fc.record({
        role: fc.constantFrom("tool", "function", "wizard", undefined),
        content: fc.oneof(shortText, fc.integer(), fc.constant(null)),
        tool_call_id: fc.constantFrom("call_1", "", undefined)
    }, {requiredKeys: []}).map(dropUndefined), weight: 1}
);
/** An assistant turn's call and the tool message answering it (sometimes answering another call). */
const callTurn = fc.tuple(callId, toolName, fc.constantFrom("{}", "{\"city\":\"Paris\"}", "not json"), shortText,
    fc.boolean()).map(([id, name, args, output, answered]) => [
    {role: "assistant", content: null, tool_calls: [{id, type: "function", function: {name, arguments: args}}]},
    {role: "tool", tool_call_id: answered ? id : "call_other", content: output}
]);
const messages = fc.array(fc.oneof({arbitrary: message.map((one) => [one]), weight: 8}, {arbitrary: callTurn, weight: 2}),
    {minLength: 1, maxLength: 4}).map((turns) => turns.flat());

const functionTool = fc.record({
    type: fc.constant("function"),
    function: fc.record({
        name: mostly(fc.constantFrom("get_weather", "lookup", "f"), fc.string({maxLength: 70})),
        description: sometimes(shortText, 5),
        parameters: mostly(simpleSchema, jsonSchema, 4),
        strict: mostly(fc.constantFrom(true, false, undefined), fc.constant("yes"))
    }).map(dropUndefined)
});
const tools = mostly(
    fc.uniqueArray(functionTool, {minLength: 1, maxLength: 3, selector: (tool) => tool.function.name}),
    fc.array(fc.oneof(functionTool, fc.constantFrom({type: "custom", custom: {name: "x"}}, {type: "function"}, {type: "web_search"})),
        {maxLength: 3}),
    3
);
const toolChoice = mostly(
    fc.constantFrom("auto", "none", "required"),
    fc.constantFrom({type: "function", function: {name: "get_weather"}}, {type: "function", function: {name: "nope"}}, "sometimes",
        {type: "allowed_tools"}),
    3
);
const responseFormat = mostly(
    fc.oneof(
        fc.constantFrom({type: "text"}, {type: "json_object"}),
        fc.record({
            type: fc.constant("json_schema"),
            json_schema: fc.record({name: fc.constantFrom("answer", "out"), schema: simpleSchema, strict: fc.boolean()})
        })
    ),
    fc.oneof(
        fc.constantFrom({type: "yaml"}, {type: "json_schema"}),
        fc.record({
            type: fc.constant("json_schema"), json_schema: fc.record({
                name: fc.oneof(fc.constant("answer"), fc.string({maxLength: 70})), schema: jsonSchema,
                strict: fc.constantFrom(true, false, 1)
            })
        })
    ),
    4
);

export function chatBody(): fc.Arbitrary<Record<string, unknown>> {
    return fc.record({
        model: mostly(fc.constantFrom("stories260K", "gpt-4o", "m"), fc.constantFrom("", "x".repeat(300))),
        messages: mostly(messages, fc.constantFrom([], "Hi", [null], null)),
        max_tokens: fc.integer({min: 1, max: 6}),
        max_completion_tokens: sometimes(mostly(fc.integer({min: 1, max: 6}), fc.constantFrom(0, -1, "six")), 1),
        temperature: sometimes(mostly(fc.double({min: 0, max: 2, noNaN: true}), fc.constantFrom(-1, 3, "hot"))),
        top_p: sometimes(fc.double({min: 0, max: 1, noNaN: true}), 1),
        stream: sometimes(fc.boolean(), 4),
        stream_options: sometimes(mostly(fc.constant({include_usage: true}), fc.constantFrom({include_usage: "yes"}, {continuous: true})),
            2),
        n: sometimes(mostly(fc.constant(1), fc.constantFrom(2, 0)), 1),
        stop: sometimes(fc.constantFrom(null, [], ["."], "."), 1),
        seed: sometimes(fc.integer(), 1),
        tools: sometimes(tools, 2),
        tool_choice: sometimes(toolChoice, 1),
        parallel_tool_calls: sometimes(fc.boolean(), 1),
        response_format: sometimes(responseFormat, 2),
        logprobs: sometimes(fc.boolean(), 1),
        top_logprobs: sometimes(mostly(fc.integer({min: 0, max: 5}), fc.constantFrom(21, -1)), 1),
        reasoning_effort: sometimes(mostly(fc.constantFrom("none", "low", "high"), fc.constant("extreme")), 1),
        store: sometimes(fc.boolean(), 1),
        metadata: sometimes(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({maxLength: 10}), {maxKeys: 3}), 1),
        logit_bias: sometimes(fc.constantFrom({}, {"50256": -100}), 1)
    }).map(dropUndefined);
}
