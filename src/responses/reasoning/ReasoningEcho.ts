import {createHash} from "node:crypto";
import {newId} from "../../protocol/ids.js";
import type {Item, OutputItem, ReasoningItem} from "../../protocol/wire.js";

type Entry = {text: string, bytes: number};

/**
 * Keeps the prompt cache hitting when clients drop reasoning. The server remembers the thought of
 * each reply it produced, keyed by its owner (the API key) and the reply's visible items (messages, calls);
 * when a later request of the same owner replays that reply without its reasoning item, the thought is put
 * back before rendering (another key replaying the same visible reply never gets it: the thought is hidden),
 * so the turn renders as it was generated and the sequence's KV prefix still matches.
 * Bounded by bytes (least recently used first out); 0 turns it off.
 */
export class ReasoningEcho {
    private readonly entries = new Map<string, Entry>();
    private bytes = 0;

    public constructor(private readonly maxBytes: number) {}

    public get size(): number {
        return this.entries.size;
    }

    /** Records the reasoning of a finished reply of `owner`. */
    public remember(owner: string, output: readonly OutputItem[]): void {
        if (this.maxBytes <= 0)
            return;
        const text = output.filter(isReasoning).map(reasoningText).join("");
        const key = replyKey(owner, output);
        if (text === "" || key == null)
            return;
        const bytes = Buffer.byteLength(text) + key.length;
        if (bytes > this.maxBytes)
            return;
        this.delete(key);
        this.entries.set(key, {text, bytes});
        this.bytes += bytes;
        for (const [oldest] of this.entries) {
            if (this.bytes <= this.maxBytes)
                break;
            this.delete(oldest);
        }
    }

    /**
     * The history with remembered reasoning put back into replies that lack it. The client's items
     * are not changed (nor stored changed): this is only what gets rendered.
     */
    public restore(owner: string, history: readonly Item[]): readonly Item[] {
        if (this.entries.size === 0)
            return history;
        const out: Item[] = [];
        let run: Item[] = [];
        const flush = () => {
            if (run.length > 0 && !run.some(isReasoning)) {
                const key = replyKey(owner, run);
                const entry = key == null ? undefined : this.entries.get(key);
                if (entry != null) {
                    this.entries.delete(key!);
                    this.entries.set(key!, entry);
                    out.push(echoItem(entry.text));
                }
            }
            out.push(...run);
            run = [];
        };
        for (const item of history) {
            if (isReplyItem(item))
                run.push(item);
            else {
                flush();
                out.push(item);
            }
        }
        flush();
        return out;
    }

    private delete(key: string): void {
        const entry = this.entries.get(key);
        if (entry == null)
            return;
        this.entries.delete(key);
        this.bytes -= entry.bytes;
    }
}

/** Items a model reply consists of; a reply is a run of them between user turns and tool results. */
function isReplyItem(item: Item): boolean {
    return item.type === "reasoning" || item.type === "function_call" || item.type === "custom_tool_call"
        || (item.type === "message" && item.role === "assistant");
}

function isReasoning<T extends Item>(item: T): item is Extract<T, {type: "reasoning"}> {
    return item.type === "reasoning";
}

function reasoningText(item: Pick<ReasoningItem, "content">): string {
    return (item.content ?? []).map((part) => part.text).join("");
}

/** Whose reply, and its visible content as it renders: message text and calls (ids are not rendered). */
function replyKey(owner: string, items: readonly Item[]): string | undefined {
    const parts: unknown[] = [];
    for (const item of items) {
        if (item.type === "message" && item.role === "assistant")
            parts.push(["m", item.content.map((part) => (part.type === "refusal" ? part.refusal : part.text)).join("")]);
        else if (item.type === "function_call")
            parts.push(["f", item.name, item.arguments]);
        else if (item.type === "custom_tool_call")
            parts.push(["c", item.name, item.input]);
    }
    if (parts.length === 0)
        return undefined;
    return createHash("sha256").update(JSON.stringify([owner, parts])).digest("base64url");
}

function echoItem(text: string): ReasoningItem {
    return {type: "reasoning", id: newId("rs"), summary: [], content: [{type: "reasoning_text", text}], encrypted_content: null};
}
