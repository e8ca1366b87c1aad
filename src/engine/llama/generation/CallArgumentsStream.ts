import type {GenerationEvent} from "../../types.js";

/**
 * Turns node-llama-cpp's function-call parameter chunks into `call.start` / `call.delta` / `call.end`
 * events. Whitespace the wrapper's syntax puts between the arguments and the call suffix (Qwen
 * writes a newline before `</parameter>`) is held back and dropped at the end, so the streamed
 * deltas add up exactly to the final `arguments` text. A call cut by the token limit never gets
 * `done`: it is left open, and the Responses layer ends it as incomplete.
 */
export class CallArgumentsStream {
    private readonly started = new Set<number>();
    private readonly pendingWhitespace = new Map<number, string>();
    private readonly completed = new Map<number, string>();
    private readonly text = new Map<number, string>();

    public constructor(private readonly emit: (event: GenerationEvent) => void) {}

    public push(index: number, name: string, chunk: string, done: boolean): void {
        if (!this.started.has(index)) {
            this.started.add(index);
            this.emit({type: "call.start", index, name});
        }
        const text = (this.pendingWhitespace.get(index) ?? "") + chunk;
        const trimmed = text.trimEnd();
        this.pendingWhitespace.set(index, text.slice(trimmed.length));
        if (trimmed !== "") {
            this.text.set(index, (this.text.get(index) ?? "") + trimmed);
            this.emit({type: "call.delta", index, delta: trimmed});
        }
        if (done) {
            this.pendingWhitespace.delete(index);
            this.completed.set(index, this.text.get(index) ?? "");
            this.emit({type: "call.end", index});
        }
    }

    /** Ends a started call that did not read to its end (a call written as text that was not one after all). */
    public abandon(index: number): void {
        if (!this.started.has(index))
            return;
        this.pendingWhitespace.delete(index);
        this.emit({type: "call.end", index, incomplete: true});
    }

    /** The arguments text streamed for a completed call. */
    public argumentsOf(index: number): string | undefined {
        return this.completed.get(index);
    }
}
