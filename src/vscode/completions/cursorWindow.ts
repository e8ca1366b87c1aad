/** A document as the window reads it: its lines by number (the editor's `TextDocument.lineAt(n).text`). */
export type DocumentLines = {lineCount: number, lineAt(line: number): string};

/** What the model sees of the file around the cursor, and the cursor's own line cut in two. */
export type CursorWindow = {
    /** `prefixLines` lines before the cursor's, then the cursor's line up to the cursor. */
    prefix: string,
    /** The cursor's line after the cursor, then `suffixLines` lines after it. */
    suffix: string,
    /** The cursor's line up to the cursor. */
    linePrefix: string,
    /** The cursor's line after the cursor. */
    lineSuffix: string,
    /** The first and last line the window holds (0-based, inclusive): context chunks of the same lines are left out. */
    firstLine: number,
    lastLine: number
};

/**
 * The prefix and suffix windows around the cursor, as llama.vscode cuts them: whole lines before and after, so the
 * prefix's head moves only a line at a time and the prompt cache keeps the lines already read.
 */
export function cursorWindow(document: DocumentLines, cursor: {line: number, character: number},
    size: {prefixLines: number, suffixLines: number}): CursorWindow {
    const current = document.lineAt(cursor.line);
    const linePrefix = current.slice(0, cursor.character);
    const lineSuffix = current.slice(cursor.character);
    const firstLine = Math.max(0, cursor.line - size.prefixLines);
    const lastLine = Math.min(document.lineCount - 1, cursor.line + size.suffixLines);
    const before: string[] = [];
    for (let line = firstLine; line < cursor.line; line++)
        before.push(document.lineAt(line), "\n");
    const after: string[] = [];
    for (let line = cursor.line + 1; line <= lastLine; line++)
        after.push("\n", document.lineAt(line));
    return {
        prefix: before.join("") + linePrefix,
        suffix: lineSuffix + after.join("") + (lastLine < document.lineCount - 1 ? "\n" : ""),
        linePrefix,
        lineSuffix,
        firstLine,
        lastLine
    };
}

/** The document's lines from a text (for tests and for callers holding the text): `\r\n` and `\n` both end a line. */
export function linesOf(text: string): DocumentLines {
    const lines = text.split(/\r?\n/);
    return {lineCount: lines.length, lineAt: (line) => lines[line]!};
}
