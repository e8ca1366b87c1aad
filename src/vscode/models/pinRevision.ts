/** A revision that pins a download: a full 40-digit commit hash, which, unlike a branch or tag, cannot move. */
export const commitHash = /^[0-9a-f]{40}$/i;

/**
 * A catalog URI pinned to a commit, so that a catalog entry always downloads the same bytes: Hugging Face file URIs
 * (`hf:<user>/<repo>/<file>.gguf`, which node-llama-cpp resolves at `#<revision>`) and `huggingface.co/…/resolve/<ref>/…`
 * URLs. Null for a URI no revision applies to: `hf:<user>/<repo>:<quant>` (node-llama-cpp resolves it on main) and other
 * hosts (pin those with a URL that names one version, and a SHA-256).
 */
export function pinRevision(uri: string, revision: string): string | null {
    if (/^hf:[^/\s#]+\/[^/\s#:]+\/[^\s#]+\.gguf$/i.test(uri))
        return `${uri}#${revision}`;
    let url: URL;
    try {
        url = new URL(uri);
    } catch {
        return null;
    }
    const parts = url.pathname.split("/");
    // ["", user, repo, "resolve", ref, ...file]
    if (url.protocol !== "https:" || url.hostname !== "huggingface.co" || parts[3] !== "resolve" || parts.length < 6)
        return null;
    parts[4] = revision;
    url.pathname = parts.join("/");
    return url.toString();
}
