/** Why a slot was refused: the limit in total or the owner's own, and how many were held. */
export type SlotRefusal = {limit: "total" | "owner", held: number};

/**
 * Counted slots in total and per API key owner, each held until its release function is called (idempotent): the
 * bookkeeping behind the admission of background stream readers and of WebSocket connections.
 */
export class OwnerSlots {
    private readonly perOwner = new Map<string, number>();
    private total = 0;

    public constructor(public readonly maxTotal: number, public readonly maxPerOwner: number) {}

    public get held(): number {
        return this.total;
    }

    /** Takes a slot and returns its release, or why none was free. */
    public acquire(owner: string): (() => void) | SlotRefusal {
        const mine = this.perOwner.get(owner) ?? 0;
        if (this.total >= this.maxTotal)
            return {limit: "total", held: this.total};
        if (mine >= this.maxPerOwner)
            return {limit: "owner", held: mine};
        this.total++;
        this.perOwner.set(owner, mine + 1);
        let released = false;
        return () => {
            if (released)
                return;
            released = true;
            this.total--;
            const left = (this.perOwner.get(owner) ?? 1) - 1;
            if (left <= 0)
                this.perOwner.delete(owner);
            else
                this.perOwner.set(owner, left);
        };
    }
}
