import type {UpstreamModelListing} from "../../host/upstreamModels.js";

/** One model the upstreams serve, once however many of them list it. */
export type UpstreamModelChoice = {
    model: string,
    /** The upstreams (URL labels) that list it. */
    upstreams: string[],
    /** The model the engine is connected to now. */
    current: boolean
};

/**
 * The models Load Model… offers with the upstream engine: every model any upstream lists, in the order they list
 * them, each once with the upstreams that serve it; the connected one first and marked.
 */
export function upstreamModelChoices(listings: readonly UpstreamModelListing[], current: string | null): UpstreamModelChoice[] {
    const byModel = new Map<string, string[]>();
    for (const listing of listings)
        for (const model of listing.models) {
            const where = byModel.get(model) ?? [];
            if (!where.includes(listing.url))
                where.push(listing.url);
            byModel.set(model, where);
        }
    const choices = [...byModel].map(([model, upstreams]) => ({model, upstreams, current: model === current}));
    return [...choices.filter((choice) => choice.current), ...choices.filter((choice) => !choice.current)];
}

/**
 * A choice's quick-pick description: `current · on http://gpu-a:8000, http://gpu-b:8000`; while disconnected the
 * marked model is the configured one (`configured, not connected · on …`).
 */
export function describeUpstreamChoice(choice: UpstreamModelChoice, connected: boolean): string {
    const mark = !choice.current ? "" : connected ? "current · " : "configured, not connected · ";
    return `${mark}on ${choice.upstreams.join(", ")}`;
}

/**
 * Why there is nothing to pick, naming each upstream and what it said, or null when some upstream lists a model.
 * An upstream that answered with an empty list is named too: an Ollama with nothing pulled says so this way.
 */
export function noUpstreamModelReason(listings: readonly UpstreamModelListing[]): string | null {
    if (listings.some((listing) => listing.models.length > 0))
        return null;
    if (listings.length === 0)
        return "No upstream is configured (localResponses.upstream.urls is empty).";
    const each = listings.map((listing) => `${listing.url}: ${listing.error ?? "lists no model"}`).join("; ");
    return listings.every((listing) => listing.error != null)
        ? `No upstream answered GET /v1/models. ${each}.`
        : `No upstream lists a model. ${each}.`;
}
