// docs/models.md's families table, made from docs/models-results.json (written by the family table test,
// test/model/engine/llama/families/familyChatWrapper.test.ts, with LOCAL_RESPONSES_WRITE_RESULTS=1).
export const tableStart = "<!-- families:start -->";
export const tableEnd = "<!-- families:end -->";

const calls = {
    native: "✓ native",
    text: "✓ native, per-argument (read from the text)",
    opener: "call detected; arguments as one JSON blob, not its per-argument format",
    none: "no tool syntax"
};
const mark = (value) => (value === true ? "✓" : value === false ? "✗" : "–");
/** Thinking on: the model opens its thought; off (effort none): the prompt closes it, else only the thought budget ends it. */
const reasoning = (value) => value == null ? "–" : `${value.on ? "on ✓" : "on ✗"}, off ${value.off ? "in the prompt" : "by budget"}`;

/** The markdown table of the results, one row per family. */
export function modelsTable(results) {
    const rows = results.map((result) => [
        result.family,
        `${result.format.wrapper}${result.format.toolCallsUnderstood ? "" : " (tool calls not understood)"}`,
        calls[result.call] ?? result.call,
        mark(result.parallel),
        mark(result.forced),
        mark(result.resultAsText),
        mark(result.thought),
        reasoning(result.thought === true ? result.reasoning : undefined)
    ]);
    return [
        "| Family (template model) | Wrapper | Native call, `tool_choice: auto` | Parallel calls | Forced call "
            + "| Tool result as text | Thoughts read | Reasoning (default on; effort `none`) |",
        "|---|---|---|---|---|---|---|---|",
        ...rows.map((row) => `| ${row.join(" | ")} |`)
    ].join("\n");
}

/** `markdown` with the table between its markers replaced by the one made from `results`. */
export function withModelsTable(markdown, results) {
    const pattern = new RegExp(`${tableStart}[\\s\\S]*?${tableEnd}`);
    if (!pattern.test(markdown))
        throw new Error(`docs/models.md has no ${tableStart} … ${tableEnd} markers`);
    return markdown.replace(pattern, `${tableStart}\n${modelsTable(results)}\n${tableEnd}`);
}
