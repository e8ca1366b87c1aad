import type {ChatCompletionsBody, ChatMessage} from "./upstreamChatRequest.js";
import type {Upstream} from "./Upstream.js";

type Style = "messages" | "template" | "none";

const timeoutMs = 10_000;

/**
 * Counts a prompt's tokens as the upstream will see them, for `input_tokens` and compaction thresholds:
 * vLLM and SGLang take `POST /tokenize {model, messages, tools}` and answer `{count}`; llama-server renders with
 * `POST /apply-template` and counts with `POST /tokenize {content}`. Which one an upstream speaks is found on
 * first use and remembered; `null` means neither (Ollama) and the caller estimates.
 */
export class UpstreamTokenCounter {
    private readonly styles = new Map<Upstream, Style>();

    public async count(upstream: Upstream, model: string, messages: ChatMessage[],
        tools: ChatCompletionsBody["tools"]): Promise<number | null> {
        const known = this.styles.get(upstream);
        for (const style of known != null ? [known] : ["messages", "template"] as const) {
            const count = await this.countAs(style, upstream, model, messages, tools).catch(() => null);
            if (count != null) {
                this.styles.set(upstream, style);
                return count;
            }
        }
        if (known == null)
            this.styles.set(upstream, "none");
        return null;
    }

    private async countAs(style: Style, upstream: Upstream, model: string, messages: ChatMessage[],
        tools: ChatCompletionsBody["tools"]): Promise<number | null> {
        const withTools = tools == null || tools.length === 0 ? {} : {tools};
        if (style === "messages") {
            const answer = await post(upstream, "/tokenize", {model, messages, add_generation_prompt: true, ...withTools}) as {
                count?: unknown
            };
            return typeof answer?.count === "number" ? answer.count : null;
        }
        if (style === "template") {
            const rendered = await post(upstream, "/apply-template", {messages, ...withTools}) as {prompt?: unknown};
            if (typeof rendered?.prompt !== "string")
                return null;
            const tokens = await post(upstream, "/tokenize", {content: rendered.prompt, add_special: true}) as {tokens?: unknown};
            return Array.isArray(tokens?.tokens) ? tokens.tokens.length : null;
        }
        return null;
    }
}

async function post(upstream: Upstream, path: string, body: unknown): Promise<unknown> {
    const response = await fetch(upstream.url(path),
        {method: "POST", headers: upstream.headers(true), body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs)});
    const text = await response.text();
    return response.ok ? JSON.parse(text) : null;
}
