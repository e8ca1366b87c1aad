import {createHmac, randomBytes, timingSafeEqual} from "node:crypto";

const version = "lr1";

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
    private readonly key: Buffer;

    public constructor(secret?: string | null) {
        this.key = secret != null && secret !== "" ? Buffer.from(secret, "utf8") : randomBytes(32);
    }

    public seal(text: string): string {
        const payload = Buffer.from(JSON.stringify({t: text}), "utf8").toString("base64url");
        return `${version}.${payload}.${this.tag(payload)}`;
    }

    /** The thought text, or undefined when the token is not one this server issued (or was altered). */
    public open(token: string): string | undefined {
        const [prefix, payload, tag, ...rest] = token.split(".");
        if (prefix !== version || payload == null || tag == null || rest.length > 0)
            return undefined;
        const expected = Buffer.from(this.tag(payload));
        const given = Buffer.from(tag);
        if (given.length !== expected.length || !timingSafeEqual(given, expected))
            return undefined;
        try {
            const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as {t?: unknown};
            return typeof parsed.t === "string" ? parsed.t : undefined;
        } catch {
            return undefined;
        }
    }

    private tag(payload: string): string {
        return createHmac("sha256", this.key).update(`${version}.${payload}`).digest("base64url");
    }
}
