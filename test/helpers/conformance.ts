import fs from "node:fs";
import assert from "node:assert/strict";
import {Ajv2020} from "ajv/dist/2020.js";
import {openApiPath} from "./paths.js";

/**
 * Validates emitted objects and events against the Open Responses OpenAPI schemas.
 * Where OpenAI's names differ from the spec (reasoning_text events, custom tool items), the
 * documented differences are checked by `openAiExtensions` instead.
 */
const spec = JSON.parse(fs.readFileSync(openApiPath, "utf8"));
const ajv = new Ajv2020({strict: false, allErrors: true, validateFormats: false, discriminator: false});
ajv.addSchema({$id: "openresponses", components: spec.components});
const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

function validatorFor(name: string) {
    let validate = compiled.get(name);
    if (validate == null) {
        validate = ajv.compile({$ref: `openresponses#/components/schemas/${name}`});
        compiled.set(name, validate);
    }
    return validate;
}

const eventSchemas: Record<string, string> = {
    "response.created": "ResponseCreatedStreamingEvent",
    "response.queued": "ResponseQueuedStreamingEvent",
    "response.in_progress": "ResponseInProgressStreamingEvent",
    "response.completed": "ResponseCompletedStreamingEvent",
    "response.failed": "ResponseFailedStreamingEvent",
    "response.incomplete": "ResponseIncompleteStreamingEvent",
    "response.output_item.added": "ResponseOutputItemAddedStreamingEvent",
    "response.output_item.done": "ResponseOutputItemDoneStreamingEvent",
    "response.content_part.added": "ResponseContentPartAddedStreamingEvent",
    "response.content_part.done": "ResponseContentPartDoneStreamingEvent",
    "response.output_text.delta": "ResponseOutputTextDeltaStreamingEvent",
    "response.output_text.done": "ResponseOutputTextDoneStreamingEvent",
    "response.function_call_arguments.delta": "ResponseFunctionCallArgumentsDeltaStreamingEvent",
    "response.function_call_arguments.done": "ResponseFunctionCallArgumentsDoneStreamingEvent",
    "response.refusal.delta": "ResponseRefusalDeltaStreamingEvent",
    "response.refusal.done": "ResponseRefusalDoneStreamingEvent",
    // OpenAI's names for the spec's response.reasoning.delta/done: same fields.
    "response.reasoning_text.delta": "ResponseReasoningDeltaStreamingEvent",
    "response.reasoning_text.done": "ResponseReasoningDoneStreamingEvent",
    "error": "ErrorStreamingEvent"
};

/** Events with no Open Responses schema (OpenAI's own, or this server's documented extensions). */
export const extensionEvents = new Set([
    "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
    "response.compaction.started", "response.compaction.completed",
    // OpenAI's own transport keep-alive (its SDK's ResponseKeepAliveEvent); the Open Responses spec has none.
    "keepalive"
]);

/** Output item types OpenAI emits that the spec's ItemField does not list. */
const extensionItems = new Set(["custom_tool_call", "compaction", "tool_search_call"]);

/** Tool types OpenAI echoes that the spec's Tool does not list (Codex's `namespace` groups and client tool search). */
const extensionTools = new Set(["namespace", "tool_search"]);

export function assertValidResponse(response: unknown): void {
    const value = withoutExtensionItems(response);
    const validate = validatorFor("ResponseResource");
    assert.ok(validate(value), `response does not match ResponseResource: ${ajv.errorsText(validate.errors)}`);
}

export function assertValidEvent(event: {type: string}): void {
    const schema = eventSchemas[event.type];
    if (schema == null) {
        assert.ok(extensionEvents.has(event.type), `unknown event type '${event.type}'`);
        return;
    }
    const validate = validatorFor(schema);
    const value = event.type === "error" ? toSpecError(event) : withoutExtensionItems(event);
    // OpenAI's reasoning_text events carry the spec's reasoning event fields under another type name.
    if (event.type.startsWith("response.reasoning_text."))
        value.type = event.type.replace("reasoning_text", "reasoning");
    assert.ok(validate(value), `${event.type} does not match ${schema}: ${ajv.errorsText(validate.errors)}`);
}

/** Checks a whole stream: every event valid, sequence numbers strictly increasing from 0, one terminal event last. */
export function assertValidStream(events: Array<{type: string, sequence_number: number}>): void {
    assert.ok(events.length > 0, "empty stream");
    events.forEach((event, index) => {
        assertValidEvent(event);
        if (index > 0)
            assert.ok(event.sequence_number > events[index - 1]!.sequence_number, `sequence_number not increasing at ${index}`);
    });
    const terminal = events.filter(
        (event) => ["response.completed", "response.incomplete", "response.failed", "error"].includes(event.type)
    );
    assert.equal(terminal.length, 1, `expected exactly one terminal event, got ${terminal.map((event) => event.type).join(", ")}`);
    assert.equal(terminal[0], events.at(-1), "the terminal event must be last");
}

function withoutExtensionItems(value: any): any {
    if (value == null || typeof value !== "object")
        return value;
    const copy = structuredClone(value);
    const strip = (response: any) => {
        if (Array.isArray(response?.output))
            response.output = response.output.filter((item: any) => !extensionItems.has(item.type));
        if (Array.isArray(response?.tools))
            response.tools = response.tools.filter((tool: any) => !extensionTools.has(tool.type));
    };
    strip(copy);
    strip(copy.response);
    echoedSchemaAsSpec(copy);
    echoedSchemaAsSpec(copy.response);
    if (copy.item != null && extensionItems.has(copy.item.type))
        copy.item = {type: "message", id: copy.item.id, status: "completed", role: "assistant", content: []};
    return copy;
}

/** OpenAI echoes a json_schema format's `schema` in the response object; the spec's `JsonSchemaResponseFormat` wants null there. */
function echoedSchemaAsSpec(response: any): void {
    if (response?.object === "response" && response.text?.format?.type === "json_schema")
        response.text.format.schema = null;
}

/** The spec nests the payload under `error`; OpenAI's SDK reads `code`/`message` at the top level too: both are sent. */
function toSpecError(event: any): any {
    return {type: event.type, sequence_number: event.sequence_number, error: event.error};
}

/** A Responses WebSocket-mode `error` message (`WebSocketErrorEvent`): `status` plus OpenAI's error payload. */
export function assertValidSocketError(message: unknown): void {
    const validate = validatorFor("WebSocketErrorEvent");
    assert.ok(validate(message), `WebSocket error does not match WebSocketErrorEvent: ${ajv.errorsText(validate.errors)}`);
}

/**
 * One WebSocket turn: either a single `WebSocketErrorEvent` (refused before generation), or the same
 * events an SSE stream carries, each checked as a streaming event, with its response objects.
 */
export function assertValidSocketTurn(messages: Array<{type: string, [key: string]: any}>): void {
    assert.ok(messages.length > 0, "empty turn");
    if (messages.length === 1 && messages[0]!.type === "error" && "status" in messages[0]!) {
        assertValidSocketError(messages[0]);
        return;
    }
    assertValidStream(messages as Array<{type: string, sequence_number: number}>);
    for (const message of messages)
        if (message.response != null)
            assertValidResponse(message.response);
}
