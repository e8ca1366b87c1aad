import * as vscode from "vscode";
import type {SidebarRow} from "./SidebarRow.js";
import {Throttle} from "../util/Throttle.js";

/**
 * One native tree view of the sidebar, flat rows built by a vscode-free function. It refreshes when told
 * (the face forwards the host's events), at most every `intervalMs`: some sources fire on every token.
 */
export class SidebarView implements vscode.TreeDataProvider<SidebarRow>, vscode.Disposable {
    private readonly changed = new vscode.EventEmitter<void>();
    public readonly onDidChangeTreeData = this.changed.event;
    public readonly view: vscode.TreeView<SidebarRow>;
    private readonly throttle: Throttle;
    private rows: SidebarRow[] = [];

    public constructor(id: string, private readonly build: () => SidebarRow[] | Promise<SidebarRow[]>,
        options: {intervalMs?: number, emptyMessage?: string} = {}) {
        this.view = vscode.window.createTreeView(id, {treeDataProvider: this, showCollapseAll: false});
        this.throttle = new Throttle(() => this.changed.fire(), options.intervalMs ?? 250);
        this.emptyMessage = options.emptyMessage;
    }

    private readonly emptyMessage: string | undefined;

    /** Rebuilds the rows soon (at most every interval). */
    public refresh(): void {
        this.throttle.schedule();
    }

    /** The row a command acts on: the one it was invoked on (menu, inline button), else the focused selection. */
    public targetOf(argument: unknown): SidebarRow | undefined {
        if (argument != null && typeof argument === "object" && "id" in argument)
            return argument as SidebarRow;
        return this.view.selection[0];
    }

    public async getChildren(element?: SidebarRow): Promise<SidebarRow[]> {
        if (element != null)
            return [];
        this.rows = await this.build();
        // viewsWelcome shows for an empty view; a message is the fallback for views that have none.
        this.view.message = this.rows.length === 0 ? this.emptyMessage : undefined;
        return this.rows;
    }

    public getTreeItem(row: SidebarRow): vscode.TreeItem {
        const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
        item.id = row.id;
        item.description = row.description;
        item.tooltip = row.tooltip;
        item.contextValue = row.contextValue;
        item.iconPath = row.icon != null ? new vscode.ThemeIcon(row.icon) : undefined;
        item.accessibilityInformation = {label: [row.label, row.description].filter(Boolean).join(", ")};
        if (row.command != null)
            item.command = {...row.command, arguments: [row]};
        return item;
    }

    public dispose(): void {
        this.throttle.dispose();
        this.view.dispose();
        this.changed.dispose();
    }
}
