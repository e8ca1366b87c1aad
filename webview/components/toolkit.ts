/**
 * The only file that imports @vscode/webview-ui-toolkit (archived upstream). Moving to
 * @vscode-elements/elements means changing this registration and the tag names in ./tags.ts, nothing else.
 */
import {
    provideVSCodeDesignSystem, vsCodeBadge, vsCodeButton, vsCodeDivider, vsCodeDropdown, vsCodeOption, vsCodePanels, vsCodePanelTab,
    vsCodePanelView, vsCodeProgressRing, vsCodeTextField
} from "@vscode/webview-ui-toolkit";


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
