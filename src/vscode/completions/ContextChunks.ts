import type {ContextChunk} from "../../engine/completionTypes.js";
import type {DocumentLines} from "./cursorWindow.js";

export type ContextChunksOptions = {
    /** Lines per chunk (llama.vscode's `ring_chunk_size`: 64). */
    chunkLines: number,
    /** Chunks kept, oldest dropped first (llama.vscode's `ring_n_chunks`: 16). */
    maxChunks: number,
    /** Characters of all chunks together (~2.5k tokens by default): what the prompt's context may take beside the file. */
    maxChars: number
};

export const defaultContextChunks: ContextChunksOptions = {chunkLines: 64, maxChunks: 16, maxChars: 8000};

type Chunk = ContextChunk & {firstLine: number, lastLine: number};

/**
 * The other files' text a suggestion is given (the engine's `extra`, llama.cpp's `input_extra`), as llama.vscode keeps
 * it: chunks of lines around where the person worked in recently edited and opened files, oldest first. A new chunk is
 * appended and one of the same file that it overlaps is dropped, so while the person types in one file the chunks do
 * not change, and the prompt's head (the chunks, then the file's prefix) is read from the prompt cache.
 */
export class ContextChunks {
    private chunks: Chunk[] = [];

    public constructor(private readonly options: ContextChunksOptions = defaultContextChunks) {}

    /** Keeps the lines of `document` around `line` (where it was edited, or the top of a file just opened). */
    public remember(filename: string, document: DocumentLines, line: number): void {
        const {chunkLines} = this.options;
        const firstLine = Math.max(0, Math.min(line - Math.floor(chunkLines / 2), document.lineCount - chunkLines));
        const lastLine = Math.min(document.lineCount - 1, firstLine + chunkLines - 1);
        const lines: string[] = [];
        for (let index = firstLine; index <= lastLine; index++)
            lines.push(document.lineAt(index));
        const text = `${lines.join("\n")}\n`;
        if (text.trim() === "")
            return;
        // The same lines again leave the order as it is: a moved chunk would change the prompt's head.
        if (this.chunks.some((chunk) => chunk.filename === filename && chunk.text === text))
            return;
        const kept = this.chunks.filter((chunk) => chunk.filename !== filename || !overlaps(chunk, {firstLine, lastLine}));
        kept.push({filename, text, firstLine, lastLine});
        while (kept.length > this.options.maxChunks)
            kept.shift();
        this.chunks = kept;
    }

    /** Forgets a file's chunks (it was deleted, or is now excluded). */
    public forget(filename: string): void {
        this.chunks = this.chunks.filter((chunk) => chunk.filename !== filename);
    }

    /**
     * The chunks a suggestion in `filename` gets, oldest first, within the character budget (the newest kept): none of
     * the lines its own window already shows.
     */
    public for(filename: string, window: {firstLine: number, lastLine: number}): ContextChunk[] {
        const chosen: ContextChunk[] = [];
        let chars = 0;
        for (const chunk of [...this.chunks].reverse()) {
            if (chunk.filename === filename && overlaps(chunk, window))
                continue;
            chars += chunk.text.length;
            if (chars > this.options.maxChars)
                break;
            chosen.unshift({filename: chunk.filename, text: chunk.text});
        }
        return chosen;
    }

    public get size(): number {
        return this.chunks.length;
    }
}

function overlaps(a: {firstLine: number, lastLine: number}, b: {firstLine: number, lastLine: number}): boolean {
    return a.firstLine <= b.lastLine && b.firstLine <= a.lastLine;
}
