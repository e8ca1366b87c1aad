/** What follows the cursor on its line that still lets a block body be written before it: closers and separators. */
const closersOnly = /^[\s)\]};,]*$/;
/** A line that opens a block when it ends the line: `{`, `(`, `[`, Python's `:`, an arrow, Ruby/Lua/shell `do`/`then`. */
const blockHeaderEnd = /(?:[{([]|(?<!:):|=>|->|\bdo|\bthen)\s*$/;

/** Where the cursor sits, as the decision about one or several lines and the trimming read it. */
export type SuggestionPlace = {
    linePrefix: string,
    lineSuffix: string,
    /** The nearest non-blank line above the cursor's (empty when none). */
    previousLine: string,
    /** Everything after the cursor that the model was shown (the window's suffix). */
    suffix: string
};

/**
 * Whether a suggestion may run over several lines: the cursor ends a block header (`if (x) {|`), or sits on a blank line
 * right after one (the Enter after the header), with nothing but closers after it. Anywhere else a suggestion ends at
 * the line's end, as the person is in the middle of a statement.
 */
export function wantsMultiline(place: Pick<SuggestionPlace, "linePrefix" | "lineSuffix" | "previousLine">): boolean {
    if (!closersOnly.test(place.lineSuffix))
        return false;
    if (place.linePrefix.trim() !== "")
        return blockHeaderEnd.test(place.linePrefix);
    return blockHeaderEnd.test(place.previousLine);
}

/** The text a stop sequence should end a one-line suggestion at (so generation stops there, not only the text). */
export const lineEnd = "\n";

/**
 * The model's text as the ghost text to show, or null when nothing is left worth showing: one line unless `multiline`;
 * a multi-line body cut where it leaves the block it was written for; what already follows the cursor not repeated
 * (the rest of the line, or the next line, that the model wrote again).
 */
export function shapeSuggestion(text: string, place: SuggestionPlace, multiline: boolean): string | null {
    let shaped = multiline ? withinBlock(text.trimEnd(), indentOf(headerLine(place))) : text.split(lineEnd, 1)[0]!.trimEnd();
    shaped = withoutRepeatedLines(shaped, place);
    shaped = withoutRepeatedLineEnd(shaped, place.lineSuffix);
    if (shaped.trim() === "")
        return null;
    if (!shaped.includes(lineEnd) && place.linePrefix.trim() === "" && shaped.trim() === nextLine(place.suffix).trim())
        return null;
    return shaped;
}

/** The line whose indentation a block body is measured against: the cursor's, or the header above a blank one. */
function headerLine(place: SuggestionPlace): string {
    return place.linePrefix.trim() === "" ? place.previousLine : place.linePrefix;
}

function indentOf(line: string): number {
    return /^[ \t]*/.exec(line)![0].length;
}

/** A line that only closes a block: `}`, `})`, `];`, Ruby's and Lua's `end`. */
const blockCloser = /^(?:[)\]}]+[)\]};,]*|end)$/;

/**
 * The suggestion's lines up to where the block ends: the first line back at the header's indentation (or less) is
 * kept when it only closes the block (`}`), else the model went on past it and the text is cut before that line.
 */
function withinBlock(text: string, headerIndent: number): string {
    const lines = text.split(lineEnd);
    const end = lines.findIndex((line, index) => index > 0 && line.trim() !== "" && indentOf(line) <= headerIndent);
    if (end < 0)
        return text;
    const closes = indentOf(lines[end]!) === headerIndent && blockCloser.test(lines[end]!.trim());
    return lines.slice(0, closes ? end + 1 : end).join(lineEnd).trimEnd();
}

/** The first line after the cursor's that is not blank (empty when none). */
function nextLine(suffix: string): string {
    return suffix.split(lineEnd).slice(1).find((line) => line.trim() !== "") ?? "";
}

/**
 * A multi-line suggestion cut before the line that is already there: the rest of the cursor's line (its closers) or,
 * without one, the next non-blank line, written again by the model as it closes the block.
 */
function withoutRepeatedLines(text: string, place: SuggestionPlace): string {
    const lines = text.split(lineEnd);
    if (lines.length < 2)
        return text;
    // The rest of the line would move down to the header's indentation; the next line keeps its own.
    const [existing, indent] = place.lineSuffix.trim() !== "" ? [place.lineSuffix.trim(), indentOf(headerLine(place))]
        : [nextLine(place.suffix).trim(), indentOf(nextLine(place.suffix))];
    if (existing === "")
        return text;
    const repeated = lines.findIndex((line, index) => index > 0 && line.trim() === existing && indentOf(line) === indent);
    return repeated < 0 ? text : lines.slice(0, repeated).join(lineEnd).trimEnd();
}

/**
 * A suggestion's last line without the rest of the cursor's line it ends with: all of that rest (`foo(|, b)` → `a, b)`
 * shows `a`), or its closers (`print(|))` → `"hi")` shows `"hi"`). Only a one-line suggestion ends on the cursor's line.
 */
function withoutRepeatedLineEnd(text: string, lineSuffix: string): string {
    const rest = lineSuffix.trimEnd();
    if (rest === "" || text.includes(lineEnd))
        return text;
    for (let length = Math.min(rest.length, text.length); length > 0; length--) {
        const overlap = rest.slice(0, length);
        if (text.endsWith(overlap) && (length === rest.length || closersOnly.test(overlap)))
            return text.slice(0, text.length - length);
    }
    return text;
}
