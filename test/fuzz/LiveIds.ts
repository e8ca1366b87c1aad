/**
 * The fuzz key's objects that exist now, learnt from the server's answers: generated cases name them by slot
 * (`@@resp3@@`), so that chains, item references and conversation calls reach real objects and not only 404s.
 */
export class LiveIds {
    private readonly pools = {resp: [] as string[], item: [] as string[], conv: [] as string[]};

    public constructor(private readonly keep = 24) {}

    /** Replaces every slot placeholder in `text` with a live id (or a fresh-looking unknown one when the pool is empty). */
    public resolve(text: string): string {
        return text.replace(/@@(resp|item|conv)(\d+)@@/g, (_match, kind: keyof LiveIds["pools"], slot: string) => {
            const pool = this.pools[kind];
            return pool.length === 0 ? `${kind}_none_yet` : pool[(pool.length - 1 - Number(slot) % pool.length)]!;
        });
    }

    /** Learns ids from a JSON answer or an SSE event: responses, their items, conversations, listed items. */
    public observe(value: unknown): void {
        if (typeof value !== "object" || value == null)
            return;
        const object = value as Record<string, any>;
        if (object.object === "response" && typeof object.id === "string") {
            this.add("resp", object.id);
            for (const item of Array.isArray(object.output) ? object.output : [])
                this.addItem(item);
        } else if (object.object === "conversation" && typeof object.id === "string")
            this.add("conv", object.id);
        else if (object.object === "list" && Array.isArray(object.data))
            object.data.slice(0, 4).forEach((item: unknown) => this.addItem(item));
        if (typeof object.response === "object")
            this.observe(object.response);
    }

    private addItem(item: unknown): void {
        if (typeof item === "object" && item != null && typeof (item as {id?: unknown}).id === "string")
            this.add("item", (item as {id: string}).id);
    }

    private add(kind: keyof LiveIds["pools"], id: string): void {
        const pool = this.pools[kind];
        if (pool.includes(id))
            return;
        pool.push(id);
        if (pool.length > this.keep)
            pool.shift();
    }
}
