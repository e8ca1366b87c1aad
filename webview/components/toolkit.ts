/**
 * The only file that imports @vscode/webview-ui-toolkit (archived upstream). Moving to
 * @vscode-elements/elements means changing this registration and the tag names in ./ui.ts, nothing else.
 */
import {
    provideVSCodeDesignSystem, vsCodeBadge, vsCodeButton, vsCodeDivider, vsCodeDropdown, vsCodeOption, vsCodePanels, vsCodePanelTab,
    vsCodePanelView, vsCodeProgressRing, vsCodeTextField
} from "@vscode/webview-ui-toolkit";

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

let registered = false;

export function registerToolkit(): void {
    if (registered)
        return;
    registered = true;
    provideVSCodeDesignSystem().register(
        vsCodeButton(), vsCodeTextField(), vsCodeDropdown(), vsCodeOption(), vsCodeBadge(), vsCodeDivider(), vsCodeProgressRing(),
        vsCodePanels(), vsCodePanelTab(), vsCodePanelView()
    );
}
