/** The part of the extension's global state (`vscode.Memento`) this reads and writes: declared here so tests need no editor. */
export type KeptState = {
    get<T>(key: string, fallback: T): T,
    update(key: string, value: unknown): PromiseLike<void>
};
