import type {UpstreamModelListing} from "../../host/upstreamModels.js";
import {upstreamModelChoices} from "../models/upstreamModelChoices.js";
import type {SidebarRow} from "./SidebarRow.js";

export type UpstreamModelsFacts = {
    listings: readonly UpstreamModelListing[],
    /** The model the engine is connected to; null while disconnected. */
    connected: string | null,
    /** `localResponses.upstream.model`: marked while disconnected. */
    configured: string | null
};

/**
 * The Models view with the upstream engine: no model files (they are not used), the models the upstreams list
 * instead, the connected one first (its Load connects to it through Load Model…'s path), then each upstream that
 * did not answer, with why.
 */
export function upstreamModelRows(facts: UpstreamModelsFacts): SidebarRow[] {
    const marked = facts.connected ?? facts.configured;
    const models = upstreamModelChoices(facts.listings, marked).map((choice): SidebarRow => {
        const state = !choice.current ? null : facts.connected != null ? "connected" : "configured, not connected";
        return {
            id: `upstreamModel:${choice.model}`,
            label: choice.model,
            description: [state, `upstream ${choice.upstreams.join(", ")}`].filter((part) => part != null).join(" · "),
            tooltip: `${choice.model}, served by ${choice.upstreams.join(", ")} (localResponses.engine: upstream; `
                + `model files are not used)`,
            icon: choice.current && facts.connected != null ? "pass-filled" : "cloud",
            contextValue: choice.current && facts.connected != null ? "upstreamModel.connected" : "upstreamModel",
            target: choice.model
        };
    });
    const silent = facts.listings.filter((listing) => listing.error != null || listing.models.length === 0).map((listing): SidebarRow => ({
        id: `upstream:${listing.url}`,
        label: listing.url,
        description: listing.error != null ? `did not answer: ${listing.error}` : "lists no model",
        tooltip: `GET ${listing.url}/v1/models: ${listing.error ?? "an empty list"}`,
        icon: "warning"
    }));
    return [...models, ...silent];
}
