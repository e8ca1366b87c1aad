import type {FunctionCallItem, ResponseObject} from "./wire.js";

/**
 * A call the model began and left unfinished in a turn that still completed (it ended inside the call, not at the token
 * limit): its text follows it in a message, and it is no call to run, so the whole answers of Chat Completions and
 * Messages leave it out (their streams had sent it as it came). A call cut by the token limit stays, as OpenAI gives it,
 * with the answer's `length` / `max_tokens`.
 */
export function abandonedCall(item: Pick<FunctionCallItem, "status">, response: Pick<ResponseObject, "status">): boolean {
    return item.status === "incomplete" && response.status === "completed";
}
