import {createHash} from "node:crypto";
import type {ChatTurn} from "../types.js";

/**
 * Without an explicit key, requests that start alike go to the same upstream: the key is the hash of the
 * leading system turns and the first other turn, which every later turn of a `previous_response_id` chain, a
 * conversation or a client that resends its history (Codex) starts with.
 */
export function prefixKey(turns: readonly ChatTurn[]): string {
    const head: ChatTurn[] = [];
    for (const turn of turns) {
        head.push(turn);
        if (turn.role !== "system")
            break;
    }
    return `prefix:${createHash("sha256").update(JSON.stringify(head)).digest("base64url").slice(0, 22)}`;
}
