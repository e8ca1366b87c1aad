/**
 * Wire shapes of the Responses API, as they travel in JSON.
 * Kept apart from the engine's and the store's own types: these are the contract with clients.
 */

export type TopLogprob = {token: string, logprob: number, bytes: number[]};
export type Logprob = TopLogprob & {top_logprobs: TopLogprob[]};
export type OutputTextPart = {type: "output_text", text: string, annotations: unknown[], logprobs?: Logprob[]};
export type InputTextPart = {type: "input_text", text: string};
export type RefusalPart = {type: "refusal", refusal: string};
export type ReasoningTextPart = {type: "reasoning_text", text: string};
export type SummaryTextPart = {type: "summary_text", text: string};
export type MessageContentPart = InputTextPart | OutputTextPart | RefusalPart;

export type MessageRole = "user" | "assistant" | "system" | "developer";
export type ItemStatus = "in_progress" | "completed" | "incomplete";

export type MessageItem = {
    type: "message",
    id: string,
    status: ItemStatus,
    role: MessageRole,
    content: MessageContentPart[]
};

export type FunctionCallItem = {
    type: "function_call",
    id: string,
    call_id: string,
    name: string,
    arguments: string,
    status: ItemStatus
};

export type FunctionCallOutputItem = {
    type: "function_call_output",
    id: string,
    call_id: string,
    output: string | unknown[],
    status: ItemStatus
};

export type CustomToolCallItem = {
    type: "custom_tool_call",
    id: string,
    call_id: string,
    name: string,
    input: string,
    status?: ItemStatus
};

export type CustomToolCallOutputItem = {
    type: "custom_tool_call_output",
    id: string,
    call_id: string,
    output: string | unknown[],
    status?: ItemStatus
};

export type ReasoningItem = {
    type: "reasoning",
    id: string,
    summary: SummaryTextPart[],
    content?: ReasoningTextPart[] | null,
    encrypted_content?: string | null,
    status?: ItemStatus
};

export type CompactionItem = {
    type: "compaction",
    id: string,
    encrypted_content: string
};

/** Every item this server keeps in a history, after input normalisation. */
export type Item =
    | MessageItem
    | FunctionCallItem
    | FunctionCallOutputItem
    | CustomToolCallItem
    | CustomToolCallOutputItem
    | ReasoningItem
    | CompactionItem;

export type OutputItem = MessageItem | FunctionCallItem | CustomToolCallItem | ReasoningItem | CompactionItem;

export type ResponseStatus = "queued" | "in_progress" | "completed" | "incomplete" | "failed" | "cancelled";

export type Usage = {
    input_tokens: number,
    input_tokens_details: {cached_tokens: number},
    output_tokens: number,
    output_tokens_details: {reasoning_tokens: number},
    total_tokens: number
};

export type TextFormat =
    | {type: "text"}
    | {type: "json_object"}
    | {type: "json_schema", name: string, schema: Record<string, unknown>, strict: boolean, description: string | null};

export type FunctionToolWire = {
    type: "function",
    name: string,
    description: string | null,
    parameters: Record<string, unknown> | null,
    strict: boolean
};

export type ToolChoiceWire =
    | "auto" | "none" | "required"
    | {type: "function", name: string}
    | {type: "allowed_tools", mode: "auto" | "required", tools: {type: "function", name: string}[]};

/** The response object, with every field of the Open Responses `ResponseResource` present. */
export type ResponseObject = {
    id: string,
    object: "response",
    created_at: number,
    completed_at: number | null,
    status: ResponseStatus,
    incomplete_details: {reason: string} | null,
    model: string,
    previous_response_id: string | null,
    instructions: string | null,
    output: OutputItem[],
    error: {code: string, message: string} | null,
    tools: FunctionToolWire[],
    tool_choice: ToolChoiceWire,
    truncation: "disabled" | "auto",
    parallel_tool_calls: boolean,
    text: {format: TextFormat, verbosity?: "low" | "medium" | "high"},
    top_p: number,
    presence_penalty: number,
    frequency_penalty: number,
    top_logprobs: number,
    temperature: number,
    reasoning: {effort: string | null, summary: string | null} | null,
    usage: Usage | null,
    max_output_tokens: number | null,
    max_tool_calls: number | null,
    store: boolean,
    background: boolean,
    service_tier: string,
    metadata: Record<string, string>,
    safety_identifier: string | null,
    prompt_cache_key: string | null,
    user?: string | null,
    conversation?: {id: string} | null
};

/** A streaming event; `sequence_number` is assigned by the emitter. */
export type StreamEvent = {type: string, sequence_number: number, [key: string]: unknown};
