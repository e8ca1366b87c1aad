import type {ModelFit} from "../../engine/models/modelFit.js";
import {isDownloadableModelUri, singleFileUrl} from "../../engine/models/downloadModel.js";
import {formatBytes} from "./formatBytes.js";
import {commitHash, pinRevision} from "./pinRevision.js";

export type CatalogEntry = {
    id: string,
    label: string,
    uri: string,
    quantization: string | null,
    /** Approximate download size as listed; null when unknown (an entry from settings). */
    sizeBytes: number | null,
    description: string,
    /** The commit the entry is pinned to (already applied to `uri`); null when it follows the repository's main. */
    revision: string | null,
    /** The file's SHA-256 (lowercase hex), checked while it downloads; null when the entry gives none. */
    sha256: string | null
};

/**
 * Reads the curated list (media/models.json) and the entries a person adds in settings
 * (`localResponses.model.catalog`); an entry without a label or with a URI the downloader would refuse is dropped
 * and reported, so a typo cannot offer a download that fails. So is an entry whose `revision` (a commit hash, applied
 * to its URI) or `sha256` cannot be honoured: a pin or checksum silently ignored would promise a check that never runs.
 */
export function parseCatalog(raw: unknown, source: string): {entries: CatalogEntry[], problems: string[]} {
    const list = Array.isArray(raw) ? raw : (raw as {models?: unknown} | null)?.models;
    if (!Array.isArray(list))
        return {entries: [], problems: [`${source}: expected a list of models.`]};
    const entries: CatalogEntry[] = [];
    const problems: string[] = [];
    list.forEach((value: unknown, index) => {
        const entry = (value ?? {}) as Record<string, unknown>;
        const label = typeof entry.label === "string" ? entry.label.trim() : "";
        const uri = typeof entry.uri === "string" ? entry.uri.trim() : "";
        if (label === "" || !isDownloadableModelUri(uri)) {
            problems.push(`${source}: entry ${index + 1} needs a label and an hf: URI or https URL (got ${JSON.stringify(uri)}).`);
            return;
        }
        const pinned = checkPins(entry, uri);
        if (typeof pinned === "string") {
            problems.push(`${source}: entry ${index + 1} (${label}): ${pinned}`);
            return;
        }
        entries.push({
            id: typeof entry.id === "string" ? entry.id : uri,
            label,
            uri: pinned.uri,
            quantization: typeof entry.quantization === "string" ? entry.quantization : null,
            sizeBytes: typeof entry.sizeBytes === "number" && entry.sizeBytes > 0 ? entry.sizeBytes : null,
            description: typeof entry.description === "string" ? entry.description : "",
            revision: pinned.revision,
            sha256: pinned.sha256
        });
    });
    return {entries, problems};
}

/** The entry's revision and checksum, checked: the pinned URI, or why they cannot be honoured. */
function checkPins(entry: Record<string, unknown>, uri: string): {uri: string, revision: string | null, sha256: string | null} | string {
    const revision = entry.revision == null ? null : String(entry.revision).trim();
    const sha256 = entry.sha256 == null ? null : String(entry.sha256).trim().toLowerCase();
    if (sha256 != null && !/^[0-9a-f]{64}$/.test(sha256))
        return `sha256 must be 64 hex digits (got ${JSON.stringify(entry.sha256)}).`;
    if (revision != null && !commitHash.test(revision))
        return `revision must be a 40-digit commit hash (got ${JSON.stringify(entry.revision)}).`;
    const pinnedUri = revision != null ? pinRevision(uri, revision) : uri;
    if (pinnedUri == null)
        return "a revision applies to hf:<user>/<repo>/<file>.gguf URIs and huggingface.co …/resolve/<ref>/… URLs only.";
    if (sha256 != null && singleFileUrl(pinnedUri) == null)
        return "a sha256 checks one file: give an https URL or hf:<user>/<repo>/<file>.gguf URI of a single .gguf file.";
    return {uri: pinnedUri, revision, sha256};
}

/** The quick pick's description of an entry: quantization, size, and whether its bytes are pinned and checked. */
export function describeEntry(entry: CatalogEntry): string {
    return [
        entry.quantization,
        entry.sizeBytes != null ? `~${formatBytes(entry.sizeBytes)}` : null,
        entry.revision != null ? `pinned ${entry.revision.slice(0, 7)}` : null,
        entry.sha256 != null ? "SHA-256 checked" : null
    ].filter(Boolean).join(" · ");
}

/** What the fit estimate says, in one line with its codicon: what it needs at this context, of what is available. */
export function describeFit(fit: ModelFit): string {
    const needs = `needs ${formatBytes(fit.requiredBytes)} (weights ${formatBytes(fit.modelRamBytes)} + `
        + `context ${formatBytes(fit.contextRamBytes)} for ${fit.contextSize} tokens × ${fit.sequences})`;
    const available = `${formatBytes(fit.availableBytes)} available`;
    switch (fit.verdict) {
        case "fits":
            return `$(pass) Fits: ${needs} of ${available}`;
        case "tight":
            return `$(warning) Tight: ${needs} of ${available}; close other programs or lower the context size`;
        case "no":
            return `$(error) Too large: ${needs}, ${available}; lower localResponses.contextSize or pick a smaller model`;
    }
}
