import * as vscode from "vscode";

/** Context keys (menus' and walkthrough steps' `when`), set only when their value changes: state changes fire often. */
export class ContextKeys {
    private readonly values = new Map<string, unknown>();

    public set(entries: Record<string, unknown>): void {
        for (const [key, value] of Object.entries(entries)) {
            if (this.values.has(key) && this.values.get(key) === value)
                continue;
            this.values.set(key, value);
            void vscode.commands.executeCommand("setContext", key, value);
        }
    }

    /** Sets these keys now and forgets them, so the next `set` applies them again even if unchanged. */
    public async reset(entries: Record<string, unknown>): Promise<void> {
        await Promise.all(Object.entries(entries).map(([key, value]) => vscode.commands.executeCommand("setContext", key, value)));
        for (const key of Object.keys(entries))
            this.values.delete(key);
    }
}
