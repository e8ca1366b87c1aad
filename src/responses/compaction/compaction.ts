import {invalidRequest} from "../../protocol/errors.js";
import {newId} from "../../protocol/ids.js";
import {SealedJson} from "../outputValidation/SealedJson.js";
import {isToolOutput, messageText} from "../transcript.js";
import type {CompactionItem, Item, MessageItem} from "../../protocol/wire.js";

/** What a compaction item carries: the summary, the ids of the items it replaced, and the items kept verbatim. */
export type CompactionPayload = {
    v: 1,
    summary: string,
    replaced: string[],
    retained: Item[]
};

/** No prefix; the MAC is domain-separated from reasoning tokens: the format compaction items already stored carry. */
const format = {prefix: "", macContext: "local-responses-compaction\0"};

/**
 * Seals compaction payloads as `base64url(JSON).base64url(HMAC-SHA256)`. This is integrity, not secrecy:
 * anyone can read the JSON; only this server (holding the key) can make a token it will accept.
 */
export class CompactionCodec {
    private readonly sealed: SealedJson;

    /** Without a key, a random one: tokens then stay valid only while this process runs. */
    public constructor(key?: string | Buffer | null) {
        this.sealed = new SealedJson(key, format);
    }

    public seal(payload: CompactionPayload): string {
        return this.sealed.seal(payload);
    }

    /** The payload of a token this server sealed, or undefined (altered, foreign or malformed). */
    public open(token: string): CompactionPayload | undefined {
        const payload = this.sealed.open(token) as Partial<CompactionPayload> | null | undefined;
        return payload?.v === 1 && typeof payload.summary === "string" && Array.isArray(payload.replaced) && Array.isArray(payload.retained)
            ? payload as CompactionPayload
            : undefined;
    }
}

/** Summary messages made by expansion: a later compaction summarizes them again instead of keeping them as system text. */
const summaries = new WeakSet<Item>();

export function isCompactionSummary(item: Item): boolean {
    return summaries.has(item);
}

/** The text a compaction summary is replayed as, in place of the turns it replaced. */
export function summaryMessage(id: string, summary: string): MessageItem {
    const message: MessageItem = {
        type: "message",
        id: `${id}_summary`,
        status: "completed",
        role: "system",
        content: [{type: "input_text", text: `Summary of the earlier conversation:\n${summary}`}]
    };
    summaries.add(message);
    return message;
}

/**
 * Replaces compaction items by what they stand for, so the history renders: the items a compaction replaced
 * are dropped wherever they still appear, its summary goes right before the first of its retained items that
 * the history still holds (else where the compaction item is, followed by the retained items themselves).
 * A token this server did not seal is a 400.
 */
export function expandCompactions(items: readonly Item[], codec: CompactionCodec): Item[] {
    if (!items.some((item) => item.type === "compaction"))
        return [...items];
    const payloads = new Map<string, CompactionPayload>();
    items.forEach((item, index) => {
        if (item.type !== "compaction")
            return;
        const payload = codec.open(item.encrypted_content);
        if (payload == null)
            throw invalidRequest(
                `input[${index}] is a compaction item this server did not produce or that was altered.`,
                `input[${index}].encrypted_content`,
                "invalid_encrypted_content"
            );
        payloads.set(item.id, payload);
    });
    // A later compaction may have replaced an earlier one (and what it anchored to): drop first, then place.
    const dropped = new Set([...payloads.values()].flatMap((payload) => payload.replaced));
    const ids = new Set(items.filter((item) => !dropped.has(item.id)).map((item) => item.id));
    const before = new Map<string, Item[]>();
    const inPlace = new Map<string, Item[]>();
    items.forEach((item) => {
        const payload = item.type === "compaction" && !dropped.has(item.id) ? payloads.get(item.id) : undefined;
        if (payload == null)
            return;
        const summary = summaryMessage(item.id, payload.summary);
        const anchor = payload.retained.find((retained) => ids.has(retained.id));
        if (anchor != null)
            before.set(anchor.id, [...(before.get(anchor.id) ?? []), summary]);
        else
            inPlace.set(item.id, [summary, ...payload.retained]);
    });
    return items.flatMap((item): Item[] => {
        if (dropped.has(item.id))
            return [];
        if (item.type === "compaction")
            return inPlace.get(item.id) ?? [];
        return [...(before.get(item.id) ?? []), item];
    });
}

export type CompactionPlan = {
    /** System and developer messages: always kept, in order. */
    kept: Item[],
    /** The older items the summary replaces. */
    summarized: Item[],
    /** The newest whole turns, kept verbatim. */
    retained: Item[]
};

/**
 * Splits a history for compaction. The retained part is the largest suffix that fits `keepTokens` and starts
 * at an allowed split (before a user message, or right after a complete tool group), and it always holds the
 * latest user turn, so the next answer still sees the question. Returns null when nothing older is left to summarize.
 */
export async function planCompaction(
    items: readonly Item[],
    keepTokens: number,
    countTokens: (items: readonly Item[]) => Promise<number>
): Promise<CompactionPlan | null> {
    const isKept = (item: Item) => item.type === "message" && (item.role === "system" || item.role === "developer")
        && !isCompactionSummary(item);
    const kept = items.filter(isKept);
    const rest = items.filter((item) => !isKept(item));

    const lastUser = findLastIndex(rest, (item) => item.type === "message" && item.role === "user");
    const splits = allowedSplits(rest).filter((index) => index > 0 && (lastUser < 0 || index <= lastUser));
    if (splits.length === 0)
        return null;
    // Newest split first: a longer suffix only grows, so the scan stops at the first one that no longer fits.
    let split = splits.at(-1)!;
    for (const index of [...splits].reverse()) {
        if (await countTokens(rest.slice(index)) > keepTokens)
            break;
        split = index;
    }
    return {kept, summarized: rest.slice(0, split), retained: rest.slice(split)};
}

/** Indexes where a history may be cut: before a user message, or after a tool group whose calls all have results. */
export function allowedSplits(items: readonly Item[]): number[] {
    const open = new Set<string>();
    const splits: number[] = [];
    items.forEach((item, index) => {
        const previous = items[index - 1];
        const afterToolGroup = previous != null && isToolOutput(previous);
        const isUser = item.type === "message" && item.role === "user";
        if (open.size === 0 && (isUser || afterToolGroup) && !isToolOutput(item))
            splits.push(index);
        if ((item.type === "function_call" || item.type === "custom_tool_call" || item.type === "tool_search_call") && item.call_id != null)
            open.add(item.call_id);
        if (isToolOutput(item) && item.call_id != null)
            open.delete(item.call_id);
    });
    if (open.size === 0 && items.length > 0)
        splits.push(items.length);
    return splits;
}

/** A plain-text transcript of items, for the summarizer's prompt and for token estimates. */
export function transcriptText(items: readonly Item[]): string {
    return items.map((item) => {
        switch (item.type) {
            case "message": return `${item.role}: ${messageText(item)}`;
            case "function_call": return `assistant called ${item.name}(${item.arguments})`;
            case "custom_tool_call": return `assistant called ${item.name}(${item.input})`;
            case "function_call_output":
            case "custom_tool_call_output":
                return `tool result: ${typeof item.output === "string" ? item.output : JSON.stringify(item.output)}`;
            case "tool_search_call": return `assistant searched tools for ${JSON.stringify(item.arguments)}`;
            case "tool_search_output": return `tools loaded: ${JSON.stringify(item.tools)}`;
            case "reasoning": return `assistant thought: ${(item.content ?? []).map((part) => part.text).join("")}`;
            case "compaction": return "";
        }
    }).filter((line) => line !== "").join("\n");
}

export function newCompactionItem(codec: CompactionCodec, payload: Omit<CompactionPayload, "v">): CompactionItem {
    return {type: "compaction", id: newId("cmp"), encrypted_content: codec.seal({v: 1, ...payload})};
}

function findLastIndex<T>(values: readonly T[], predicate: (value: T) => boolean): number {
    for (let index = values.length - 1; index >= 0; index--)
        if (predicate(values[index]!))
            return index;
    return -1;
}
