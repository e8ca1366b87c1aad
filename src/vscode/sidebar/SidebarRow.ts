/**
 * One row of a sidebar tree view, vscode-free so each view's content is unit-tested: the face turns it into a
 * `vscode.TreeItem` and nothing else.
 */
export type SidebarRow = {
    /** Stable across refreshes, so selection and focus stay on the same row. */
    id: string,
    label: string,
    description?: string,
    tooltip?: string,
    /** A codicon id (`check`, `trash`, …). */
    icon?: string,
    /** What the row is, for `view/item/context` menus (`when: viewItem == …`). */
    contextValue?: string,
    /** The default action (click, Enter). */
    command?: {command: string, title: string},
    /** What the row's commands act on: a model path, a response id, a job id. */
    target?: string
};
