/** What the soak's clients do, in turn. */
export const soakKinds = [
    "stream", "background", "chain", "conversation", "cancel", "disconnect", "websocket", "chat", "logprobs", "slowReader"
] as const;
export type SoakKind = typeof soakKinds[number];

/** Counts per kind; unexpected errors keep their first messages. */
export class SoakStats {
    public readonly requests = new Map<SoakKind, number>(soakKinds.map((kind) => [kind, 0]));
    public readonly expected = new Map<string, number>();
    public unexpected = 0;
    public readonly unexpectedMessages = new Map<string, number>();

    public request(kind: SoakKind): void {
        this.requests.set(kind, this.requests.get(kind)! + 1);
    }

    public refusal(reason: string): void {
        this.expected.set(reason, (this.expected.get(reason) ?? 0) + 1);
    }

    public fail(kind: SoakKind | "chaos", message: string): void {
        this.unexpected++;
        const key = `${kind}: ${message.replace(/\b(resp|conv|msg)_[A-Za-z0-9]+/g, "$1_…").slice(0, 200)}`;
        this.unexpectedMessages.set(key, (this.unexpectedMessages.get(key) ?? 0) + 1);
    }

    public get total(): number {
        return [...this.requests.values()].reduce((sum, count) => sum + count, 0);
    }
}
