import {randomBytes} from "node:crypto";

/** OpenAI-style ids: a type prefix and 48 hex characters (sortable enough, unguessable). */
export function newId(prefix: "resp" | "msg" | "fc" | "call" | "rs" | "ctc" | "cmp" | "conv" | "item"): string {
    return `${prefix}_${randomBytes(24).toString("hex")}`;
}

export function nowSeconds(): number {
    return Math.floor(Date.now() / 1000);
}
