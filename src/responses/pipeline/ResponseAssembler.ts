import type {GenerationEvent, GenerationResult, GenerationUsage, TokenLogprob} from "../../engine/types.js";
import {FreeformInputDecoder} from "../FreeformInputDecoder.js";
import {newId, nowSeconds} from "../../protocol/ids.js";
import type {PublicationBuffer} from "../publication/PublicationBuffer.js";
import {customInput, publishedCall, type OpenCall} from "../publication/publishedCall.js";
import {toUsage, toWireLogprob} from "../wireShapes.js";
import type {
    CompactionCompletedEvent, CompactionStartedEvent, FunctionCallItem, Logprob, OutputItem, OutputMessageItem, OutputReasoningItem,
    ResponseObject, UnnumberedEvent
} from "../../protocol/wire.js";

/** The compaction extension events, as a caller gives them (the assembler adds the response id and number). */
type ExtensionEvent =
    | Omit<CompactionStartedEvent, "sequence_number" | "response_id">
    | Omit<CompactionCompletedEvent, "sequence_number" | "response_id">;

/** What of a result cut by the token limit was never validated, so may not be published. */
export type UnvalidatedCut = {
    /** The cut text (structured output: a JSON prefix). */
    text: boolean,
    /** Whether the arguments of a cut call of this tool would have been validated (a strict tool's), so are withdrawn. */
    callArguments: (name: string) => boolean
};

/** What an automatic compaction did, as the stream reports it (declared here, not imported: the compactor's imports reach this module). */
export type CompactionNotice = {tokensBefore: number, tokensAfter: number, usage: GenerationUsage, item: OutputItem};

export type AssemblerOptions = {
    /** Names of tools the model calls as freeform `custom` tools: their calls become `custom_tool_call` items. */
    customTools?: ReadonlySet<string>,
    /** Offered names of functions inside `namespace` tools: their calls carry the namespace and the function's own name. */
    namespacedTools?: ReadonlyMap<string, {namespace: string, name: string}>,
    /** The offered name of a client-executed tool search: its calls become `tool_search_call` items. */
    toolSearch?: string | null,
    /** Seals a reasoning text into an opaque `encrypted_content` token (when the client asked to include it). */
    sealReasoning?: (text: string) => string
};

/** `logprobs` are attached after generation, before the message closes (deltas carry none). */
type OpenMessage = {kind: "message", item: OutputMessageItem, index: number, text: string, logprobs?: Logprob[]};
type OpenReasoning = {kind: "reasoning", item: OutputReasoningItem, index: number, text: string};
/**
 * The item state machine of one response: turns engine events into Response output items and the stream events
 * that describe them, and closes the response (completed, incomplete, failed). Its events go to a
 * `PublicationBuffer`, which numbers them and holds content back while output awaits validation. The same
 * assembler serves streaming and non-streaming requests (the latter simply discard the events), so both paths
 * build identical objects.
 */
export class ResponseAssembler {
    private open: OpenMessage | OpenReasoning | undefined;
    private readonly calls = new Map<number, OpenCall>();

    public constructor(
        private readonly response: ResponseObject,
        private readonly publication: PublicationBuffer,
        private readonly options: AssemblerOptions = {}
    ) {}

    /** Opens the stream: created (unless announced while the request waited), in progress, then a compaction's events. */
    public begin(options: {announced: boolean, compaction?: CompactionNotice}): void {
        if (!options.announced)
            this.created();
        this.inProgress();
        const {compaction} = options;
        if (compaction == null)
            return;
        this.custom({type: "response.compaction.started", input_tokens: compaction.tokensBefore});
        // The summary's own usage, so a client can tell it apart from the answer's within the response's `usage`.
        this.custom({
            type: "response.compaction.completed", input_tokens_before: compaction.tokensBefore, input_tokens_after: compaction.tokensAfter,
            usage: toUsage(compaction.usage)
        });
        this.addCompleteItem(compaction.item);
    }

    /**
     * Ends a validated result. Held content is published only once valid: a cut result's unfinished part (`cut`, when
     * content was held) is never validated, so it is withdrawn; what it finished is published, a cut call incomplete.
     */
    public finish(result: GenerationResult, usage: GenerationUsage, cut: UnvalidatedCut | null): ResponseObject {
        if (result.stopReason === "length" && cut != null)
            this.withdrawCut(cut);
        if (result.logprobs != null)
            this.attachLogprobs(result.logprobs);
        return result.stopReason === "length"
            ? this.complete("incomplete", usage, "max_output_tokens")
            : this.complete("completed", usage);
    }

    /** `response.created` (and `response.queued` for a job) with the object as it stands. */
    public created(): void {
        this.lifecycle({type: "response.created", response: snapshot(this.response)});
        if (this.response.status === "queued")
            this.lifecycle({type: "response.queued", response: snapshot(this.response)});
    }

    public inProgress(): void {
        this.response.status = "in_progress";
        this.lifecycle({type: "response.in_progress", response: snapshot(this.response)});
    }

    /** Emits one of this server's extension events (compaction progress) in sequence. */
    public custom(event: ExtensionEvent): void {
        this.lifecycle({...event, response_id: this.response.id});
    }

    /** Adds a finished item (such as a compaction item) to the output, with its added/done events. */
    public addCompleteItem(item: OutputItem): void {
        this.closeOpen("completed");
        const index = this.response.output.push(item) - 1;
        this.content({type: "response.output_item.added", output_index: index, item: structuredClone(item)});
        this.content({type: "response.output_item.done", output_index: index, item: structuredClone(item)});
    }

    public onEngineEvent(event: GenerationEvent): void {
        switch (event.type) {
            case "thought": this.appendReasoning(event.text); break;
            case "thought.end": if (this.open?.kind === "reasoning") this.closeOpen("completed"); break;
            case "text": this.appendText(event.text); break;
            case "call.start": this.startCall(event.index, event.name); break;
            case "call.delta": this.appendCallArguments(event.index, event.delta); break;
            case "call.end": this.endCall(event.index, event.incomplete === true ? "incomplete" : "completed"); break;
        }
    }

    /**
     * Before held content of a result cut by the token limit is published: withdraws its unvalidated, unfinished
     * part. Cut text leaves the output; a cut call stays (it ends incomplete) without its arguments. Items that
     * were finished (calls already validated, reasoning, compaction) are published as they are.
     */
    public withdrawCut(cut: UnvalidatedCut): void {
        const open = this.open;
        if (open?.kind === "message" && cut.text) {
            this.open = undefined;
            this.publication.withdrawItem(open.index);
            // The open item is always the last one: anything that starts closes it.
            this.response.output.splice(open.index, 1);
        }
        for (const call of this.calls.values()) {
            if (call.form !== "function" || !cut.callArguments(call.toolName))
                continue;
            this.publication.withdrawItem(call.index, "response.output_item.added");
            call.args = "";
            call.item.arguments = "";
        }
    }

    /**
     * Attaches the answer's token logprobs (computed after generation) to its message, or messages in order by text
     * length. The open message closes with them, so its `output_text.done` and `output_item.done` events carry them;
     * a message that closed earlier (text before a tool call) has them only in the final object.
     */
    public attachLogprobs(tokens: readonly TokenLogprob[]): void {
        const logprobs = tokens.map(toWireLogprob);
        const messages = this.response.output.filter((item): item is OutputMessageItem => item.type === "message");
        let next = 0;
        messages.forEach((item, position) => {
            const open = this.open?.kind === "message" && this.open.item === item ? this.open : undefined;
            const part = item.content[0];
            const length = open?.text.length ?? (part?.type === "output_text" ? part.text.length : 0);
            const taken: Logprob[] = [];
            let covered = 0;
            while (next < logprobs.length && (covered < length || position === messages.length - 1)) {
                covered += logprobs[next]!.token.length;
                taken.push(logprobs[next++]!);
            }
            if (open != null)
                open.logprobs = taken;
            else if (part?.type === "output_text")
                part.logprobs = taken;
        });
    }

    public complete(status: "completed" | "incomplete", usage: GenerationUsage, incompleteReason?: "max_output_tokens"): ResponseObject {
        const itemStatus = status === "completed" ? "completed" : "incomplete";
        this.closeOpen(itemStatus);
        for (const index of [...this.calls.keys()])
            this.endCall(index, itemStatus);
        this.publication.release();
        this.response.status = status;
        this.response.usage = toUsage(usage);
        this.response.completed_at = status === "completed" ? nowSeconds() : null;
        this.response.incomplete_details = status === "incomplete" ? {reason: incompleteReason ?? "max_output_tokens"} : null;
        this.lifecycle({type: status === "completed" ? "response.completed" : "response.incomplete", response: snapshot(this.response)});
        return this.response;
    }

    /** Fails the response: nothing held is published (it may be invalid) and the output is emptied. */
    public fail(code: string, message: string, usage?: GenerationUsage): ResponseObject {
        this.publication.discard();
        this.response.output = [];
        this.open = undefined;
        this.calls.clear();
        this.response.status = "failed";
        this.response.error = {code, message};
        this.response.usage = usage == null ? null : toUsage(usage);
        this.lifecycle({type: "response.failed", response: snapshot(this.response)});
        return this.response;
    }

    private appendReasoning(text: string): void {
        if (this.open?.kind !== "reasoning") {
            this.closeOpen("completed");
            const item: OutputReasoningItem = {type: "reasoning", id: newId("rs"), summary: [], content: [], status: "in_progress"};
            const index = this.response.output.push(item) - 1;
            this.open = {kind: "reasoning", item, index, text: ""};
            this.content({type: "response.output_item.added", output_index: index, item: structuredClone(item)});
            this.content({
                type: "response.content_part.added", item_id: item.id, output_index: index, content_index: 0,
                part: {type: "reasoning_text", text: ""}
            });
        }
        const open = this.open;
        open.text += text;
        this.content({
            type: "response.reasoning_text.delta", item_id: open.item.id, output_index: open.index, content_index: 0, delta: text
        });
    }

    private appendText(text: string): void {
        if (this.open?.kind !== "message") {
            this.closeOpen("completed");
            const item: OutputMessageItem = {type: "message", id: newId("msg"), status: "in_progress", role: "assistant", content: []};
            const index = this.response.output.push(item) - 1;
            this.open = {kind: "message", item, index, text: ""};
            this.content({type: "response.output_item.added", output_index: index, item: structuredClone(item)});
            this.content({
                type: "response.content_part.added", item_id: item.id, output_index: index, content_index: 0,
                part: {type: "output_text", text: "", annotations: [], logprobs: []}
            });
        }
        const open = this.open;
        open.text += text;
        this.content({
            type: "response.output_text.delta", item_id: open.item.id, output_index: open.index, content_index: 0, delta: text, logprobs: []
        });
    }

    private closeOpen(status: "completed" | "incomplete"): void {
        const open = this.open;
        if (open == null)
            return;
        this.open = undefined;
        if (open.kind === "message") {
            const logprobs = open.logprobs ?? [];
            const part = {type: "output_text" as const, text: open.text, annotations: [], logprobs};
            open.item.content = [part];
            open.item.status = status;
            this.content({
                type: "response.output_text.done", item_id: open.item.id, output_index: open.index, content_index: 0, text: open.text,
                logprobs: structuredClone(logprobs)
            });
            this.content({
                type: "response.content_part.done", item_id: open.item.id, output_index: open.index, content_index: 0,
                part: structuredClone(part)
            });
        } else {
            const part = {type: "reasoning_text" as const, text: open.text};
            open.item.content = [part];
            open.item.status = status;
            if (this.options.sealReasoning != null)
                open.item.encrypted_content = this.options.sealReasoning(open.text);
            this.content({
                type: "response.reasoning_text.done", item_id: open.item.id, output_index: open.index, content_index: 0, text: open.text
            });
            this.content({
                type: "response.content_part.done", item_id: open.item.id, output_index: open.index, content_index: 0,
                part: structuredClone(part)
            });
        }
        this.content({type: "response.output_item.done", output_index: open.index, item: structuredClone(open.item)});
    }

    private startCall(callIndex: number, name: string): void {
        if (this.calls.has(callIndex))
            return;
        this.closeOpen("completed");
        const form = name === this.options.toolSearch ? "search" : this.options.customTools?.has(name) ? "custom" : "function";
        const wireName = this.options.namespacedTools?.get(name) ?? {name};
        const item: FunctionCallItem = {
            type: "function_call", id: newId(form === "search" ? "tsc" : "fc"), call_id: newId("call"), ...wireName,
            arguments: "", status: "in_progress"
        };
        const index = this.response.output.push(item) - 1;
        const input = form === "custom" ? new FreeformInputDecoder() : undefined;
        const call: OpenCall = {kind: "call", item, index, form, toolName: name, args: "", input, streamedInput: ""};
        this.calls.set(callIndex, call);
        this.content({type: "response.output_item.added", output_index: index, item: publishedCall(call, "")});
    }

    private appendCallArguments(callIndex: number, delta: string): void {
        const call = this.calls.get(callIndex);
        if (call == null || delta === "")
            return;
        call.args += delta;
        call.item.arguments = call.args;
        // A search's arguments are an object in its item, published whole when it ends.
        if (call.form === "search")
            return;
        if (call.input == null) {
            this.content({type: "response.function_call_arguments.delta", item_id: call.item.id, output_index: call.index, delta});
            return;
        }
        // A freeform tool's input is a JSON string inside the arguments: its decoded text is what streams.
        const text = call.input.push(delta);
        if (text !== "") {
            call.streamedInput += text;
            this.content({type: "response.custom_tool_call_input.delta", item_id: call.item.id, output_index: call.index, delta: text});
        }
    }

    private endCall(callIndex: number, status: "completed" | "incomplete"): void {
        const call = this.calls.get(callIndex);
        if (call == null)
            return;
        this.calls.delete(callIndex);
        call.item.status = status;
        if (call.form === "search") {
            const item = publishedCall(call, "");
            this.response.output[call.index] = item;
            this.content({type: "response.output_item.done", output_index: call.index, item: structuredClone(item)});
            return;
        }
        if (call.form === "custom") {
            // A cut call has no parsable arguments: its input is what was decoded so far.
            const input = status === "completed" ? customInput(call.args) : call.streamedInput;
            const item = publishedCall(call, input);
            this.response.output[call.index] = item;
            if (status === "completed") {
                const rest = input.startsWith(call.streamedInput) ? input.slice(call.streamedInput.length) : "";
                if (rest !== "")
                    this.content({type: "response.custom_tool_call_input.delta", item_id: item.id, output_index: call.index, delta: rest});
                this.content({type: "response.custom_tool_call_input.done", item_id: item.id, output_index: call.index, input});
            }
            this.content({type: "response.output_item.done", output_index: call.index, item: structuredClone(item)});
            return;
        }
        if (status === "completed")
            this.content({
                type: "response.function_call_arguments.done", item_id: call.item.id, output_index: call.index, name: call.item.name,
                arguments: call.args
            });
        this.content({type: "response.output_item.done", output_index: call.index, item: structuredClone(call.item)});
    }

    private lifecycle(event: UnnumberedEvent): void {
        this.publication.lifecycle(event);
    }

    private content(event: UnnumberedEvent): void {
        this.publication.content(event);
    }
}

function snapshot(response: ResponseObject): ResponseObject {
    return structuredClone(response);
}
