import {randomBytes} from "node:crypto";

export type InspectorHtmlOptions = {
    /** `webview.cspSource`: the origin the webview serves local resources from. */
    cspSource: string,
    scriptUri: string,
    /** The page's stylesheets, in order (the chart library's, then the inspector's own). */
    styleUris: string[],
    nonce?: string
};

export function newNonce(): string {
    return randomBytes(18).toString("base64url");
}

/**
 * The inspector's page: nothing inline but the one nonce'd script tag, and a Content-Security-Policy that
 * allows only the bundle's own script and styles (no network, no eval, no inline handlers). The toolkit's
 * components style themselves through constructable stylesheets, which CSP does not govern.
 */
export function inspectorHtml(options: InspectorHtmlOptions): string {
    const nonce = options.nonce ?? newNonce();
    const csp = [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src ${options.cspSource}`,
        `font-src ${options.cspSource}`,
        `img-src ${options.cspSource} data:`
    ].join("; ");
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${options.styleUris.map((uri) => `<link rel="stylesheet" href="${escapeAttribute(uri)}">`).join("\n")}
<title>Local Responses Inspector</title>
</head>
<body>
<div id="app" data-state="loading">Loading…</div>
<script nonce="${nonce}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>`;
}

function escapeAttribute(value: string): string {
    return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
