/** Whether the served model is in the editor's own chat: registered, turned off by the setting, or an editor without the API. */
export type VscodeChatState = "on" | "off" | "unsupported";

/** The Server view's "VS Code chat" line. */
export function describeVscodeChat(state: VscodeChatState): string {
    switch (state) {
        case "on": return "on (model picker: Local Responses)";
        case "off": return "off (localResponses.chatProvider.enabled)";
        case "unsupported": return "off (needs VS Code 1.104 or later)";
    }
}
