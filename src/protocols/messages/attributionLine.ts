import type {MessagesRequestBody} from "./messagesRequestSchema.js";

/**
 * Claude Code's attribution line, `x-anthropic-billing-header: cc_version=2.1.328.b7f; cc_entrypoint=cli;`, first in
 * `system`: metadata for Anthropic's billing, not an instruction to the model. Its fields change per session (the
 * `cc_version` suffix), per subagent (`cc_is_subagent=true;`) and, in 2.1.36–2.1.177, per request (`cch=<5 hex>;`).
 * Rendered first, it would make every session, subagent and turn re-evaluate the whole 15–30k-token prompt behind
 * it; left out, they all share that prefix in the prompt cache. Claude Code recognises the line by this prefix too.
 */
const attributionPrefix = "x-anthropic-billing-header:";

/**
 * `system` without the attribution line: the first line of a string `system`, or of its first text block (a block
 * left empty is dropped), when that line opens with the prefix; none at all when nothing else is left (no empty
 * system turn is rendered for it). Anything else stays as sent.
 */
export function withoutAttributionLine(system: MessagesRequestBody["system"]): MessagesRequestBody["system"] {
    if (system == null)
        return system;
    if (typeof system === "string")
        return system.startsWith(attributionPrefix) ? withoutFirstLine(system) || undefined : system;
    const [first, ...rest] = system;
    if (first == null || !first.text.startsWith(attributionPrefix))
        return system;
    const remainder = withoutFirstLine(first.text);
    const kept = remainder === "" ? rest : [{...first, text: remainder}, ...rest];
    return kept.length === 0 ? undefined : kept;
}

/** The text after its first line and the blank lines that follow it. */
function withoutFirstLine(text: string): string {
    const lineEnd = text.indexOf("\n");
    return lineEnd === -1 ? "" : text.slice(lineEnd + 1).replace(/^(?:[ \t]*\r?\n)+/, "");
}
