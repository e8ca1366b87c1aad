import fc from "fast-check";

/**
 * Request bodies shaped after the real ones (create, input_tokens, compact, conversations), so that generated
 * requests get past JSON parsing and the schema into the rules that need context: items, tools, schemas, text
 * formats. `mutated` then breaks a valid-looking body in one place, as a buggy or hostile client would.
 */

/** Ids a generated body may name: the fuzz owner's own objects, another key's, and made-up ones. */
export type IdPool = {responses: string[], items: string[], conversations: string[]};

export const shortText = fc.oneof(
    {arbitrary: fc.constantFrom("Hi", "Tell a story.", "Once upon a time", "", " "), weight: 3},
    {arbitrary: fc.string({maxLength: 40}), weight: 2},
    {arbitrary: fc.string({maxLength: 40, unit: "binary"}), weight: 1}
);
export const toolName = fc.oneof(fc.constantFrom("get_weather", "lookup", "f", "apply_patch"), fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
    fc.string({maxLength: 70}));
export const callId = fc.oneof(fc.constantFrom("call_1", "call_2"), fc.string({maxLength: 20}));

/** JSON schemas as clients send them: objects of typed properties, enums, arrays, anyOf, $ref, a few unsupported keywords. */
export const jsonSchema: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{schema: Record<string, unknown>}>((tie) => ({
    schema: fc.oneof(
        {depthSize: "small", withCrossShrink: true},
        fc.constantFrom({type: "string"}, {type: "integer", minimum: 0}, {type: "number"}, {type: "boolean"}, {type: "null"},
            {type: "string", enum: ["a", "b"]}, {type: "string", format: "date-time"}, {type: "string", pattern: "^[a-z]+$"}, {const: 3},
            {}),
        fc.record({type: fc.constant("array"), items: tie("schema"), minItems: fc.option(fc.nat(3), {nil: undefined})},
            {requiredKeys: ["type"]}),
        fc.record({
            type: fc.constant("object"),
            properties: fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), tie("schema"), {maxKeys: 4}),
            required: fc.array(fc.stringMatching(/^[a-z_]{1,8}$/), {maxLength: 3}),
            additionalProperties: fc.constantFrom(false, true, undefined)
        }, {requiredKeys: ["type", "properties"]}),
        fc.record({anyOf: fc.array(tie("schema"), {minLength: 1, maxLength: 3})}),
        fc.constantFrom({$ref: "#/$defs/x", $defs: {x: {type: "string"}}}, {$ref: "#/nowhere"},
            {type: "object", patternProperties: {"^a": {type: "string"}}}, {not: {type: "string"}}, {type: "tuple"})
    )
})).schema;

/** The JSON text of a schema nested `depth` levels deep (properties, items or anyOf), built as text: no recursion. */
export function deepSchemaText(depth: number, via: "properties" | "items" | "anyOf"): string {
    const [open, close] = via === "properties"
        ? ["{\"type\":\"object\",\"properties\":{\"a\":", "},\"required\":[\"a\"],\"additionalProperties\":false}"]
        : via === "items" ? ["{\"type\":\"array\",\"items\":", "}"] : ["{\"anyOf\":[", "]}"];
    return `${open.repeat(depth)}{"type":"string"}${close.repeat(depth)}`;
}

/** Present in `weight` tenths of the cases, absent (undefined, dropped) otherwise. */
export function sometimes<T>(arbitrary: fc.Arbitrary<T>, weight = 2): fc.Arbitrary<T | undefined> {
    return fc.oneof({arbitrary: fc.constant(undefined), weight: 10 - weight}, {arbitrary, weight});
}

/** Mostly `valid`, in `invalidWeight` tenths of the cases one of the invalid variants. */
export function mostly<T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>, invalidWeight = 1): fc.Arbitrary<T | U> {
    return fc.oneof({arbitrary: valid, weight: 10 - invalidWeight}, {arbitrary: invalid, weight: invalidWeight});
}

const inputPart = mostly(
    fc.record({type: fc.constant("input_text"), text: shortText}),
    fc.oneof(
        fc.record({type: fc.constantFrom("input_image", "input_file", "input_audio"), image_url: fc.constant("data:,")}),
        fc.record({type: fc.string({maxLength: 12}), text: shortText}),
        fc.record({type: fc.constant("refusal"), refusal: shortText})
    )
);
const outputPart = mostly(
    fc.record({type: fc.constant("output_text"), text: shortText, annotations: fc.constant([])}),
    fc.record({type: fc.constantFrom("output_text", "refusal"), text: fc.oneof(shortText, fc.integer()),
        annotations: fc.constantFrom("x", undefined)}, {requiredKeys: ["type"]})
);

const validMessage = fc.oneof(
    fc.record({
        role: fc.constantFrom("user", "system", "developer"),
        content: fc.oneof(shortText, fc.array(inputPart, {minLength: 1, maxLength: 2}))
    }),
    fc.record({
        type: fc.constant("message"), role: fc.constant("assistant"),
        content: fc.oneof(shortText, fc.array(outputPart, {minLength: 1, maxLength: 2})), status: fc.constantFrom("completed", "incomplete")
    })
);
const invalidMessage = fc.record({
    type: fc.constantFrom("message", undefined),
    role: fc.constantFrom("tool", "wizard", "", undefined),
    content: fc.oneof(shortText, fc.integer(), fc.constant(null)),
    id: fc.oneof(fc.constant(""), fc.integer(), fc.string({maxLength: 300})),
    status: fc.constantFrom("done", 3)
}, {requiredKeys: []});

/** One input item: mostly a valid one of each kind, sometimes one broken in a way only the item rules catch. */
function inputItem(ids: IdPool): fc.Arbitrary<Record<string, unknown> | Array<Record<string, unknown>>> {
    const call = fc.record({
        type: fc.constant("function_call"), call_id: callId, name: toolName,
        arguments: fc.constantFrom("{}", "{\"city\":\"Paris\"}", "not json", "")
    });
    const callWithOutput = fc.tuple(call, shortText)
        .map(([made, output]) => [made, {type: "function_call_output", call_id: made.call_id, output}]);
    return fc.oneof(
        {arbitrary: mostly(validMessage, invalidMessage), weight: 8},
        {arbitrary: mostly(callWithOutput, call), weight: 2},
        {
            arbitrary: fc.record({type: fc.constant("function_call_output"), call_id: callId,
                output: mostly(shortText, fc.array(inputPart, {maxLength: 2}))}), weight: 1
        },
        {arbitrary: fc.record({type: fc.constant("custom_tool_call"), call_id: callId, name: toolName, input: shortText}), weight: 1},
        {arbitrary: fc.record({type: fc.constant("custom_tool_call_output"), call_id: callId, output: shortText}), weight: 1},
        {arbitrary: fc.record({
            type: fc.constant("reasoning"),
            summary: fc.array(mostly(fc.record({type: fc.constant("summary_text"), text: shortText}),
                fc.record({type: fc.constant("text"), text: shortText})), {maxLength: 2}),
            content: sometimes(fc.array(fc.record({type: fc.constant("reasoning_text"), text: shortText}), {maxLength: 2})),
            encrypted_content: sometimes(fc.oneof(fc.string({maxLength: 60}), fc.base64String({maxLength: 80})))
        }).map(dropUndefined), weight: 1},
        {
            arbitrary: fc.record({type: fc.constant("compaction"),
                encrypted_content: fc.oneof(fc.string({maxLength: 60}), fc.base64String({maxLength: 120}))}), weight: 1
        },
        {
            arbitrary: fc.record({type: fc.constant("item_reference"),
                id: fc.oneof(fc.constantFrom(...ids.items, ...ids.responses), fc.string({maxLength: 20}))}), weight: 1
        },
        {arbitrary: fc.record({type: fc.constantFrom("telepathy", "input_text", "web_search_call")}), weight: 1}
    );
}

export function inputArbitrary(ids: IdPool): fc.Arbitrary<unknown> {
    return fc.oneof(
        {arbitrary: shortText, weight: 4},
        {arbitrary: inputItems(ids, 1), weight: 4}
    );
}

function inputItems(ids: IdPool, minLength: number): fc.Arbitrary<Array<Record<string, unknown>>> {
    return fc.array(inputItem(ids), {minLength, maxLength: 4}).map((items) => items.flat());
}

export const simpleSchema = fc.constantFrom(
    {type: "object", properties: {city: {type: "string"}}, required: ["city"], additionalProperties: false},
    {type: "object", properties: {n: {type: "integer"}, ok: {type: "boolean"}}, required: ["n", "ok"], additionalProperties: false},
    {type: "object", properties: {}, additionalProperties: false}
);
const functionTool = fc.record({
    type: fc.constant("function"),
    name: mostly(fc.constantFrom("get_weather", "lookup", "f", "apply_patch"), fc.string({maxLength: 70})),
    description: sometimes(shortText, 5),
    parameters: mostly(simpleSchema, jsonSchema, 4),
    strict: mostly(fc.constantFrom(true, false, undefined), fc.constant("yes"))
}).map(dropUndefined);
const tools = mostly(
    fc.uniqueArray(functionTool, {minLength: 1, maxLength: 3, selector: (tool) => tool.name}),
    fc.array(fc.oneof(
        functionTool,
        fc.record({type: fc.constant("custom"), name: toolName, format: fc.constantFrom(undefined, {type: "text"},
            {type: "grammar", syntax: "lark", definition: "start: \"a\""})}).map(dropUndefined),
        fc.constantFrom({type: "web_search"}, {type: "file_search", vector_store_ids: []}, {type: "mcp", server_label: "x"},
            {type: "teleport"}, {type: "function"})
    ), {maxLength: 3}),
    3
);
const toolChoice = mostly(
    fc.constantFrom("auto", "none", "required"),
    fc.oneof(
        fc.constantFrom("sometimes", {type: "web_search"}, {type: "nope"}, {type: "function", name: "get_weather"},
            {type: "function", name: "lookup"}),
        fc.record({
            type: fc.constant("allowed_tools"), mode: fc.constantFrom("auto", "required", "maybe"),
            tools: fc.array(fc.record({type: fc.constant("function"), name: toolName}), {maxLength: 2})
        })
    ),
    2
);
const textFormat = mostly(
    fc.oneof(
        fc.constantFrom({type: "text"}, {type: "json_object"}),
        fc.record({type: fc.constant("json_schema"), name: fc.constantFrom("answer", "out"), schema: simpleSchema, strict: fc.boolean()})
    ),
    fc.oneof(
        fc.constantFrom({type: "yaml"}),
        fc.record({type: fc.constant("json_schema"), name: fc.oneof(fc.constantFrom("answer"), fc.string({maxLength: 70})),
            schema: jsonSchema, strict: fc.constantFrom(true, false, undefined, 1), description: sometimes(shortText)}).map(dropUndefined)
    ),
    4
);

/**
 * A `POST /v1/responses` body that is valid most of the time (each extra field present now and then, and
 * then mostly valid), so that most requests generate; generation stays short (a few tokens).
 */
export function createBody(ids: IdPool): fc.Arbitrary<Record<string, unknown>> {
    return fc.record({
        model: mostly(fc.constantFrom("stories260K", "gpt-4o", "m"), fc.constantFrom("", "x".repeat(300))),
        input: inputArbitrary(ids),
        max_output_tokens: fc.integer({min: 1, max: 6}),
        instructions: sometimes(shortText),
        temperature: sometimes(mostly(fc.double({min: 0, max: 2, noNaN: true}), fc.constantFrom(-1, 3, "hot"))),
        top_p: sometimes(fc.double({min: 0, max: 1, noNaN: true}), 1),
        store: sometimes(fc.boolean(), 3),
        stream: sometimes(fc.boolean(), 4),
        metadata: sometimes(mostly(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({maxLength: 10}), {maxKeys: 3}),
            fc.dictionary(fc.string({maxLength: 70}), fc.jsonValue({maxDepth: 1}), {maxKeys: 20})), 1),
        previous_response_id: sometimes(mostly(fc.constantFrom(...ids.responses), fc.string({maxLength: 20}))),
        conversation: sometimes(mostly(fc.oneof(fc.constantFrom(...ids.conversations),
            fc.record({id: fc.constantFrom(...ids.conversations)})), fc.constantFrom("", {}, {id: ""}, "conv_nope")), 1),
        tools: sometimes(tools, 2),
        tool_choice: sometimes(toolChoice, 1),
        parallel_tool_calls: sometimes(fc.boolean(), 1),
        max_tool_calls: sometimes(fc.integer({min: 1, max: 3}), 1),
        text: sometimes(fc.record({format: textFormat, verbosity: fc.constantFrom("low", "high", undefined)}).map(dropUndefined), 2),
        reasoning: sometimes(mostly(fc.record({effort: fc.constantFrom("none", "low", "high"),
            summary: fc.constantFrom("auto", "detailed")}), fc.constantFrom({effort: "extreme"}, {summary: 1})), 1),
        include: sometimes(mostly(fc.constantFrom(["reasoning.encrypted_content"], ["message.output_text.logprobs"], []),
            fc.constantFrom(["telemetry"], "all")), 1),
        top_logprobs: sometimes(mostly(fc.integer({min: 0, max: 5}), fc.constantFrom(21, -1)), 1),
        truncation: sometimes(mostly(fc.constant("disabled"), fc.constant("auto")), 1),
        service_tier: sometimes(mostly(fc.constantFrom("auto", "default"), fc.constant("flex")), 1),
        context_management: sometimes(mostly(fc.constant([{type: "compaction", compact_threshold: 1000}]),
            fc.constantFrom([{type: "prune"}], [{type: "compaction", compact_threshold: 0}])), 1),
        seed: sometimes(fc.integer(), 1),
        prompt_cache_key: sometimes(fc.string({maxLength: 20}), 1),
        stream_options: sometimes(mostly(fc.constant({include_obfuscation: false}), fc.constant({include_obfuscation: "no"})), 1)
    }).map(dropUndefined);
}

export function compactBody(ids: IdPool): fc.Arbitrary<Record<string, unknown>> {
    return fc.record({
        model: fc.constantFrom("stories260K", "m"),
        input: inputArbitrary(ids),
        instructions: sometimes(shortText),
        max_output_tokens: fc.integer({min: 1, max: 6}),
        keep_tokens: sometimes(fc.integer({min: 0, max: 64})),
        stream: sometimes(fc.boolean(), 1)
    }).map(dropUndefined);
}

export function conversationBody(ids: IdPool): fc.Arbitrary<Record<string, unknown>> {
    return fc.record({
        items: sometimes(inputItems(ids, 0), 6),
        metadata: sometimes(mostly(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({maxLength: 20}), {maxKeys: 3}),
            fc.oneof(fc.dictionary(fc.string({maxLength: 70}), fc.string({maxLength: 20}), {maxKeys: 3}), fc.constant("meta"))), 4)
    }).map(dropUndefined);
}

/** Which fields the endpoint validates (and must refuse when mutated out of range); others ignore them. */
export type MutationChecks = {numbers: boolean, metadata: boolean};

/** What one mutation does to a body, with what the server must answer when the oracle is sure. */
export type MutatedBody = {text: string, note?: string, expect4xx?: string};

/**
 * Breaks a valid-looking body in one place: a field removed, replaced with any JSON, an unknown field, a
 * numeric field made huge or fractional (in the JSON text itself, where 1e309 survives), a schema nested
 * thousands deep, the text cut short, or wrapped in other JSON.
 */
export function mutated(body: fc.Arbitrary<Record<string, unknown>>,
    checks: MutationChecks = {numbers: true, metadata: true}): fc.Arbitrary<MutatedBody> {
    const plain = body.map((value) => ({text: JSON.stringify(value)}));
    return fc.oneof(
        {arbitrary: plain, weight: 16},
        {arbitrary: fc.tuple(body, fc.nat(), fc.jsonValue({maxDepth: 3})).map(([value, index, junk]) => {
            const keys = Object.keys(value);
            const key = keys[index % keys.length]!;
            return {text: JSON.stringify({...value, [key]: junk}), note: `${key} replaced`};
        }), weight: 3},
        {arbitrary: fc.tuple(body, fc.nat()).map(([value, index]) => {
            const keys = Object.keys(value);
            const {[keys[index % keys.length]!]: _dropped, ...rest} = value;
            return {text: JSON.stringify(rest)};
        }), weight: 2},
        {
            arbitrary: fc.tuple(body, fc.constantFrom("frobnicate", "__proto__", "constructor", "Input", "max_tokens"))
                .map(([value, key]) => ({text: JSON.stringify(value).replace(/^\{/, `{"${key}":{"polluted":true},`)})), weight: 1
        },
        {arbitrary: fc.tuple(body, fc.constantFrom("max_output_tokens", "max_tool_calls", "top_logprobs"),
            fc.constantFrom("1e309", "-1e309", "1e29", "9007199254740993", "1.5", "0", "-1", "1e2")).map(([value, field, number]) => {
            const text = JSON.stringify({...value, [field]: 7}).replace(`"${field}":7`, `"${field}":${number}`);
            // 1e2 (= 100) is a valid integer; the others are outside any sane bound or not integers.
            const refused = checks.numbers && number !== "1e2";
            return {text, note: `${field}=${number}`, ...(refused ? {expect4xx: `${field}=${number} must be refused`} : {})};
        }), weight: 1},
        {arbitrary: fc.tuple(body, fc.constantFrom(500, 6500, 20_000),
            fc.constantFrom("properties", "items", "anyOf") as fc.Arbitrary<"properties" | "items" | "anyOf">,
            fc.constantFrom("tool", "format")).map(([value, depth, via, where]) => {
            const patch = where === "tool"
                ? {tools: [{type: "function", name: "deep", parameters: "@@schema@@"}]}
                : {text: {format: {type: "json_schema", name: "deep", schema: "@@schema@@"}}};
            return {
                text: JSON.stringify({...value, ...patch}).replace("\"@@schema@@\"", deepSchemaText(depth, via)),
                note: `${where} schema ${depth} deep via ${via}`
            };
        }), weight: 1},
        {arbitrary: fc.tuple(body, fc.constantFrom(1000, 20_000, 100_000)).map(([value, depth]) => ({
            text: JSON.stringify({...value, metadata: null})
                .replace(/"metadata":null/, `"metadata":${"[".repeat(depth)}${"]".repeat(depth)}`),
            note: `metadata nested ${depth} deep`,
            ...(checks.metadata ? {expect4xx: "a deeply nested value is not valid metadata"} : {})
        })), weight: 1},
        {
            arbitrary: fc.tuple(plain, fc.double({min: 0, max: 1, noNaN: true}))
                .map(([value, cut]) => ({text: value.text.slice(0, Math.floor(value.text.length * cut)), note: "cut short"})), weight: 1
        },
        {arbitrary: plain.map((value) => ({text: `\uFEFF${value.text}`, note: "byte order mark"})), weight: 1},
        {
            arbitrary: fc.tuple(plain, fc.constantFrom("[%s]", "{\"body\":%s}", "%s%s", "%s garbage", "\"%s\""))
                .map(([value, wrap]) => ({text: wrap.replaceAll("%s", value.text)})), weight: 1
        }
    );
}

/** Bytes that are not a request body at all. */
export const junkBody: fc.Arbitrary<string> = fc.oneof(
    fc.constantFrom("", "null", "true", "0", "[]", "\"\"", "{", "}", "{}", "{\"a\":}", "NaN", "[1,2,3]", "{\"input\":\"x\"}"),
    fc.string({maxLength: 200}),
    fc.string({maxLength: 200, unit: "binary"}),
    fc.jsonValue({maxDepth: 4}).map((value) => JSON.stringify(value) ?? "null")
);

export function dropUndefined<T extends Record<string, unknown>>(value: T): T {
    return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
