import type {ModelFit} from "../../engine/modelFit.js";
import {isDownloadableModelUri} from "../../engine/downloadModel.js";
import {formatBytes} from "./formatBytes.js";

export type CatalogEntry = {
    id: string,
    label: string,
    uri: string,
    quantization: string | null,
    /** Approximate download size as listed; null when unknown (an entry from settings). */
    sizeBytes: number | null,
    description: string
};

/**
 * Reads the curated list (media/models.json) and the entries a person adds in settings
 * (`localResponses.model.catalog`); an entry without a label or with a URI the downloader would refuse is dropped
 * and reported, so a typo cannot offer a download that fails.
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
            problems.push(`${source}: entry ${index + 1} needs a label and an hf: URI or http(s) URL (got ${JSON.stringify(uri)}).`);
            return;
        }
        entries.push({
            id: typeof entry.id === "string" ? entry.id : uri,
            label,
            uri,
            quantization: typeof entry.quantization === "string" ? entry.quantization : null,
            sizeBytes: typeof entry.sizeBytes === "number" && entry.sizeBytes > 0 ? entry.sizeBytes : null,
            description: typeof entry.description === "string" ? entry.description : ""
        });
    });
    return {entries, problems};
}

/** The quick pick's description of an entry: quantization and size. */
export function describeEntry(entry: CatalogEntry): string {
    return [entry.quantization, entry.sizeBytes != null ? `~${formatBytes(entry.sizeBytes)}` : null].filter(Boolean).join(" · ");
}

/** What the fit estimate says, in one line with its codicon: what it needs at this context, of what is available. */
export function describeFit(fit: ModelFit): string {
    const needs = `needs ${formatBytes(fit.requiredBytes)} (weights ${formatBytes(fit.modelRamBytes)} + context ${formatBytes(fit.contextRamBytes)} for ${fit.contextSize} tokens × ${fit.sequences})`;
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
