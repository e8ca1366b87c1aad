import {isObject} from "../../protocol/isObject.js";
import {SealedJson} from "../outputValidation/SealedJson.js";

/** `lr1.<payload>.<tag>`, the tag covering `lr1.<payload>`: the format tokens already stored by clients carry. */
const format = {prefix: "lr1.", macContext: "lr1."};

/**
 * The `encrypted_content` of reasoning items (`include: ["reasoning.encrypted_content"]`): the
 * thought text with an HMAC-SHA256 tag, so that this server can read it back when a stateless
 * client (Codex with `store: false`) replays the item, and can tell a token it did not issue.
 *
 * It is NOT encryption: the text is base64url-encoded and anyone holding the token can read it.
 * The secret (per process unless configured) only makes the token tamper-evident; with a
 * per-process secret, tokens from before a restart are not recognised (the item is then skipped).
 */
export class ReasoningTokens {
    private readonly sealed: SealedJson;

    public constructor(secret?: string | null) {
        this.sealed = new SealedJson(secret, format);
    }

    public seal(text: string): string {
        return this.sealed.seal({t: text});
    }

    /** The thought text, or undefined when the token is not one this server issued (or was altered). */
    public open(token: string): string | undefined {
        const payload = this.sealed.open(token);
        return isObject(payload) && typeof payload.t === "string" ? payload.t : undefined;
    }
}
