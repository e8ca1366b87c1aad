import type {CreateParams} from "../createRequest.js";
import {ReasoningEcho} from "./ReasoningEcho.js";
import {ReasoningTokens} from "./ReasoningTokens.js";
import type {Item, OutputItem} from "../../protocol/wire.js";

export type ReasoningReplayOptions = {
    /** HMAC secret for `encrypted_content` tokens; a random per-process one when unset. */
    reasoningSecret?: string | null,
    /** Bytes of reasoning remembered for re-injection; 0 turns it off. Defaults to 16 MiB. */
    reasoningEchoMaxBytes?: number
};

export const defaultReasoningEchoMaxBytes = 16 * 1024 * 1024;

/**
 * Everything about feeding the model's earlier thinking back to it: reading `encrypted_content`
 * tokens this server issued, sealing new ones when the client asks to include them, and putting
 * back reasoning a client dropped from a reply this server produced.
 */
export class ReasoningReplay {
    private readonly tokens: ReasoningTokens;
    private readonly echo: ReasoningEcho;

    public constructor(options: ReasoningReplayOptions = {}) {
        this.tokens = new ReasoningTokens(options.reasoningSecret);
        this.echo = new ReasoningEcho(options.reasoningEchoMaxBytes ?? defaultReasoningEchoMaxBytes);
    }

    /** The history of `owner` as it should render: dropped reasoning restored where this server remembers it. */
    public restore(owner: string, history: readonly Item[]): readonly Item[] {
        return this.echo.restore(owner, history);
    }

    public readonly readToken = (token: string): string | undefined => this.tokens.open(token);

    /** The sealer for output reasoning items, when the client included `reasoning.encrypted_content`. */
    public sealerFor(params: CreateParams): ((text: string) => string) | undefined {
        return params.include.has("reasoning.encrypted_content") ? (text) => this.tokens.seal(text) : undefined;
    }

    public remember(owner: string, output: readonly OutputItem[]): void {
        this.echo.remember(owner, output);
    }
}
