/** The listeners of one kind of event. `on` returns the function that removes its listener. */
export class Emitter<Event> {
    private readonly listeners = new Set<(event: Event) => void>();

    public on(listener: (event: Event) => void): () => void {
        this.listeners.add(listener);
        return () => {
            this.listeners.delete(listener);
        };
    }

    public get listening(): boolean {
        return this.listeners.size > 0;
    }

    /** Drops every listener (on dispose: nothing is told of changes after it). */
    public clear(): void {
        this.listeners.clear();
    }

    public emit(event: Event): void {
        for (const listener of this.listeners)
            listener(event);
    }
}
