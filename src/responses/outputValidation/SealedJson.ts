import {createHmac, randomBytes, timingSafeEqual} from "node:crypto";

/** How one kind of token is framed, so that a token of one kind never verifies as another. */
export type SealFormat = {
    /** Written before the base64url JSON (for example `lr1.`); a token that does not start with it is refused. */
    prefix: string,
    /** What the HMAC covers before the base64url JSON (its domain separation). */
    macContext: string
};

/**
 * Seals JSON values as `<prefix><base64url(JSON)>.<base64url(HMAC-SHA256(key, macContext + base64url(JSON)))>`,
 * the one codec behind reasoning `encrypted_content` and compaction items.
 *
 * It is integrity, not secrecy: anyone holding a token can read its JSON; only a holder of the key can make a
 * token this server accepts. The key is the configured or persisted sealing secret (see `src/host/dataFolder.ts`);
 * without one, a random key, so tokens stay valid only while this process runs.
 */
export class SealedJson {
    private readonly key: Buffer;

    public constructor(secret: string | Buffer | null | undefined, private readonly format: SealFormat) {
        this.key = secret == null || secret.length === 0 ? randomBytes(32) : Buffer.from(secret);
    }

    public seal(value: unknown): string {
        const body = Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
        return `${this.format.prefix}${body}.${this.mac(body)}`;
    }

    /** The JSON value of a token sealed with this key and format, or undefined (altered, foreign or malformed). */
    public open(token: string): unknown {
        if (!token.startsWith(this.format.prefix))
            return undefined;
        const sealed = token.slice(this.format.prefix.length);
        const dot = sealed.indexOf(".");
        if (dot <= 0)
            return undefined;
        const body = sealed.slice(0, dot);
        const expected = Buffer.from(this.mac(body));
        const given = Buffer.from(sealed.slice(dot + 1));
        if (given.length !== expected.length || !timingSafeEqual(given, expected))
            return undefined;
        try {
            return JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as unknown;
        } catch {
            return undefined;
        }
    }

    private mac(body: string): string {
        return createHmac("sha256", this.key).update(this.format.macContext).update(body).digest("base64url");
    }
}
