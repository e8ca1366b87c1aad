import * as vscode from "vscode";
import {commandIds} from "../manifest/commandIds.js";
import type {ContextChunks} from "./ContextChunks.js";
import {cursorWindow, type DocumentLines} from "./cursorWindow.js";
import type {EditorCompletions} from "./EditorCompletions.js";

/** The file a document is, as exclusion and context chunks name it: workspace-relative where it is in one. */
export function documentName(document: vscode.TextDocument): string {
    return vscode.workspace.asRelativePath(document.uri, false);
}

/** A document's lines as the window and the context chunks read them. */
export function documentLines(document: vscode.TextDocument): DocumentLines {
    return {lineCount: document.lineCount, lineAt: (line) => document.lineAt(line).text};
}

/**
 * Ghost text as you type: after `debounceMs` of quiet, one suggestion from `EditorCompletions`, in process. The editor
 * cancels the token on the next keystroke; that aborts the engine's request, so generation stops at once and no stale
 * text is shown. Excluded and big files (`skip`) are asked nothing.
 */
export class InlineSuggestions implements vscode.InlineCompletionItemProvider {
    public constructor(
        private readonly completions: EditorCompletions,
        private readonly chunks: ContextChunks,
        private readonly skip: (document: vscode.TextDocument) => string | null,
        private readonly log: (line: string) => void
    ) {}

    public async provideInlineCompletionItems(document: vscode.TextDocument, position: vscode.Position,
        _context: vscode.InlineCompletionContext, token: vscode.CancellationToken): Promise<vscode.InlineCompletionItem[] | undefined> {
        if (this.completions.availability.state !== "on" || this.skip(document) != null)
            return undefined;
        if (!await quiet(this.completions.limits.debounceMs, token))
            return undefined;
        const abort = new AbortController();
        const cancellation = token.onCancellationRequested(() => abort.abort(new Error("the next keystroke cancelled the suggestion")));
        try {
            const lines = documentLines(document);
            const window = cursorWindow(lines, position, this.completions.limits);
            const text = await this.completions.suggest({
                document: lines,
                cursor: position,
                extra: this.chunks.for(documentName(document), window)
            }, abort.signal);
            if (text == null || token.isCancellationRequested)
                return undefined;
            // The item rewrites the line from its start: accepted on a line of indentation alone (the Enter after a
            // header), an insertion at the cursor would lose that indentation, which the editor trims as auto-inserted.
            const lineStart = new vscode.Position(position.line, 0);
            return [new vscode.InlineCompletionItem(window.linePrefix + text, new vscode.Range(lineStart, position), {
                command: commandIds.completionAccepted, title: "Suggestion accepted"
            })];
        } catch (error) {
            this.log(`completion: ${(error as Error).message}`);
            return undefined;
        } finally {
            cancellation.dispose();
        }
    }
}

/** Waits `ms` unless the token is cancelled first; whether the wait ended quiet. */
function quiet(ms: number, token: vscode.CancellationToken): Promise<boolean> {
    if (token.isCancellationRequested)
        return Promise.resolve(false);
    if (ms <= 0)
        return Promise.resolve(true);
    return new Promise((resolve) => {
        const timer = setTimeout(() => {
            cancelled.dispose();
            resolve(true);
        }, ms);
        const cancelled = token.onCancellationRequested(() => {
            clearTimeout(timer);
            cancelled.dispose();
            resolve(false);
        });
    });
}
