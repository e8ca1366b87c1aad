/** The toolkit's element names (registered by ./toolkit.ts); apart from it so views can be built without the toolkit (tests). */
export const tags = {
    button: "vscode-button",
    textField: "vscode-text-field",
    dropdown: "vscode-dropdown",
    option: "vscode-option",
    badge: "vscode-badge",
    divider: "vscode-divider",
    progressRing: "vscode-progress-ring",
    panels: "vscode-panels",
    panelTab: "vscode-panel-tab",
    panelView: "vscode-panel-view"
} as const;
