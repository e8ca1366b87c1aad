/**
 * Wire shapes of the Responses API, as they travel in JSON.
 * Kept apart from the engine's and the store's own types: these are the contract with clients.
 */

export type TopLogprob = {token: string, logprob: number, bytes: number[]};
export type Logprob = TopLogprob & {top_logprobs: TopLogprob[]};
export type OutputTextPart = {type: "output_text", text: string, annotations: unknown[], logprobs?: Logprob[]};
/** Text the model wrote here: a local model cites nothing, so `annotations` is always empty. */
export type GeneratedTextPart = {type: "output_text", text: string, annotations: never[], logprobs?: Logprob[]};
export type InputTextPart = {type: "input_text", text: string};
export type RefusalPart = {type: "refusal", refusal: string};
export type ReasoningTextPart = {type: "reasoning_text", text: string};
export type SummaryTextPart = {type: "summary_text", text: string};
export type MessageContentPart = InputTextPart | OutputTextPart | RefusalPart;

export type MessageRole = "user" | "assistant" | "system" | "developer";
export type ItemStatus = "in_progress" | "completed" | "incomplete";
/** Which part of its turn an assistant message was (Codex resends it): kept on stored items, never rendered. */
export type MessagePhase = "commentary" | "final_answer";

type MessageOf<Role extends MessageRole, Part> = {
    type: "message",
    id: string,
    status: ItemStatus,
    role: Role,
    content: Part[],
    phase?: MessagePhase | null
};

export type MessageItem = MessageOf<MessageRole, MessageContentPart>;
/** A message the model wrote: what `output` holds. */
export type OutputMessageItem = MessageOf<"assistant", GeneratedTextPart | RefusalPart>;

export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh";
export type ReasoningSummary = "auto" | "concise" | "detailed";

export type FunctionCallItem = {
    type: "function_call",
    id: string,
    call_id: string,
    /** The function's own name; with `namespace`, its name inside that `namespace` tool. */
    name: string,
    namespace?: string,
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
    namespace?: string,
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

/** A call of a client-executed `tool_search` tool: the client searches and answers with a `tool_search_output`. */
export type ToolSearchCallItem = {
    type: "tool_search_call",
    id: string,
    call_id: string | null,
    execution: "client" | "server",
    arguments: unknown,
    status: ItemStatus
};

/** The tools a search loaded: offered to the model from the next turn on. */
export type ToolSearchOutputItem = {
    type: "tool_search_output",
    id: string,
    call_id: string | null,
    execution: "client" | "server",
    tools: unknown[],
    status: ItemStatus
};

export type CompactionItem = {
    type: "compaction",
    id: string,
    encrypted_content: string
};

/** Every item this server keeps in a history, after input normalisation. */
/** The Conversations API object. */
export type ConversationObject = {id: string, object: "conversation", created_at: number, metadata: Record<string, string>};

export type Item =
    | MessageItem
    | FunctionCallItem
    | FunctionCallOutputItem
    | CustomToolCallItem
    | CustomToolCallOutputItem
    | ReasoningItem
    | ToolSearchCallItem
    | ToolSearchOutputItem
    | CompactionItem;

/** Reasoning the model produced here: its text is always present (`encrypted_content` only when asked for). */
export type OutputReasoningItem = Omit<ReasoningItem, "content" | "encrypted_content"> & {
    content: ReasoningTextPart[], encrypted_content?: string
};

export type OutputItem =
    OutputMessageItem | FunctionCallItem | CustomToolCallItem | OutputReasoningItem | ToolSearchCallItem | CompactionItem;

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
    strict: boolean,
    /** Left out of the offered tools until a `tool_search_output` loads it. */
    defer_loading?: boolean
};

/** A `namespace` tool echoed as sent: its functions are offered to the model as `<namespace>__<name>`. */
export type NamespaceToolWire = {
    type: "namespace",
    name: string,
    description: string,
    tools: FunctionToolWire[]
};

/** A client-executed `tool_search` tool: offered to the model as a function of that name. */
export type ToolSearchToolWire = {type: "tool_search", execution: "client", description: string | null, parameters: unknown};

export type ToolWire = FunctionToolWire | NamespaceToolWire | ToolSearchToolWire;

export type ToolChoiceWire =
    | "auto" | "none" | "required"
    | {type: "function", name: string, namespace?: string}
    | {type: "allowed_tools", mode: "auto" | "required", tools: {type: "function", name: string, namespace?: string}[]};

/** The response object, with every field of the Open Responses `ResponseResource` present. */
export type ResponseObject = {
    id: string,
    object: "response",
    created_at: number,
    completed_at: number | null,
    status: ResponseStatus,
    /** A local model stops short only at its token limit. */
    incomplete_details: {reason: "max_output_tokens"} | null,
    model: string,
    previous_response_id: string | null,
    instructions: string | null,
    output: OutputItem[],
    error: {code: string, message: string} | null,
    tools: ToolWire[],
    tool_choice: ToolChoiceWire,
    truncation: "disabled" | "auto",
    parallel_tool_calls: boolean,
    text: {format: TextFormat, verbosity?: "low" | "medium" | "high"},
    top_p: number,
    presence_penalty: number,
    frequency_penalty: number,
    top_logprobs: number,
    temperature: number,
    reasoning: {effort: ReasoningEffort | null, summary: ReasoningSummary | null} | null,
    usage: Usage | null,
    max_output_tokens: number | null,
    max_tool_calls: number | null,
    store: boolean,
    background: boolean,
    /** Always `default`: one local tier (`auto` and `default` are accepted, others refused). */
    service_tier: "default",
    metadata: Record<string, string>,
    safety_identifier: string | null,
    prompt_cache_key: string | null,
    user?: string | null,
    conversation?: {id: string} | null
};

type Numbered = {sequence_number: number};
type InItem = {item_id: string, output_index: number};
type InPart = InItem & {content_index: number};

/** Events carrying the response object as it stands. */
export type ResponseLifecycleEvent = Numbered & {
    type: "response.created" | "response.queued" | "response.in_progress" | "response.completed" | "response.incomplete"
        | "response.failed",
    response: ResponseObject
};
export type OutputItemEvent = Numbered & {
    type: "response.output_item.added" | "response.output_item.done", output_index: number, item: OutputItem
};
export type ContentPartEvent = Numbered & InPart & {
    type: "response.content_part.added" | "response.content_part.done",
    part: GeneratedTextPart | ReasoningTextPart
};
export type OutputTextDeltaEvent = Numbered & InPart & {type: "response.output_text.delta", delta: string, logprobs: Logprob[]};
export type OutputTextDoneEvent = Numbered & InPart & {type: "response.output_text.done", text: string, logprobs: Logprob[]};
export type ReasoningTextDeltaEvent = Numbered & InPart & {type: "response.reasoning_text.delta", delta: string};
export type ReasoningTextDoneEvent = Numbered & InPart & {type: "response.reasoning_text.done", text: string};
export type FunctionCallArgumentsDeltaEvent = Numbered & InItem & {type: "response.function_call_arguments.delta", delta: string};
export type FunctionCallArgumentsDoneEvent = Numbered & InItem & {
    type: "response.function_call_arguments.done", name: string, arguments: string
};
export type CustomToolCallInputDeltaEvent = Numbered & InItem & {type: "response.custom_tool_call_input.delta", delta: string};
export type CustomToolCallInputDoneEvent = Numbered & InItem & {type: "response.custom_tool_call_input.done", input: string};
/** The stream's `error` event: the Open Responses spec nests the payload, OpenAI's SDK reads `code`/`message` at the top. */
export type ErrorEvent = Numbered & {
    type: "error",
    code: string,
    message: string,
    param: string | null,
    error: {type: string, code: string | null, message: string, param: string | null}
};
/** Sent by the SSE stream during a long silence (see src/server/sse.ts). */
export type KeepAliveEvent = Numbered & {type: "keepalive"};
/** This server's extension events around automatic compaction (OpenAI's clients ignore unknown types). */
export type CompactionStartedEvent = Numbered & {type: "response.compaction.started", response_id: string, input_tokens: number};
export type CompactionCompletedEvent = Numbered & {
    type: "response.compaction.completed",
    response_id: string,
    input_tokens_before: number,
    input_tokens_after: number,
    usage: Usage
};

/** Every event this server streams; `sequence_number` is assigned by the emitter. */
export type StreamEvent =
    | ResponseLifecycleEvent
    | OutputItemEvent
    | ContentPartEvent
    | OutputTextDeltaEvent
    | OutputTextDoneEvent
    | ReasoningTextDeltaEvent
    | ReasoningTextDoneEvent
    | FunctionCallArgumentsDeltaEvent
    | FunctionCallArgumentsDoneEvent
    | CustomToolCallInputDeltaEvent
    | CustomToolCallInputDoneEvent
    | ErrorEvent
    | KeepAliveEvent
    | CompactionStartedEvent
    | CompactionCompletedEvent;

/**
 * What storage and relays need of an event (a job's event log keeps and replays them without reading them): any
 * `StreamEvent` is one.
 */
export type LoggedEvent = {type: string, sequence_number: number, [field: string]: unknown};
/** A logged event before the log numbers it. */
export type UnloggedEvent = {type: string, [field: string]: unknown};

/** An event before its emitter numbers it. */
export type UnnumberedEvent = StreamEvent extends infer Event ? Event extends StreamEvent ? Omit<Event, "sequence_number"> : never : never;
