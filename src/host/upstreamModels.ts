import {Upstream} from "../engine/upstream/Upstream.js";
import {causeText} from "../engine/upstream/upstreamErrors.js";
import {listModels} from "../engine/upstream/upstreamProbes.js";
import type {UpstreamSettings} from "./config.js";

/** What one configured upstream answered to `GET /v1/models`: its models, or why it did not answer. */
export type UpstreamModelListing = {url: string, models: string[], error: string | null};

/**
 * Asks every configured upstream for its models at once, with the upstream key, and says for each what it lists
 * or why it did not answer (refused, 401, timeout…). Used by the editor's Load Model… and Models view, which must
 * not talk to the upstreams themselves. Nothing here changes the running engine.
 */
export function listUpstreamModels(settings: Pick<UpstreamSettings, "urls" | "apiKey">): Promise<UpstreamModelListing[]> {
    return Promise.all(settings.urls.map(async (url): Promise<UpstreamModelListing> => {
        let upstream: Upstream;
        try {
            upstream = new Upstream(url, settings.apiKey);
        } catch (error) {
            return {url, models: [], error: causeText(error)};
        }
        try {
            return {url: upstream.label, models: await listModels(upstream), error: null};
        } catch (error) {
            return {url: upstream.label, models: [], error: causeText(error)};
        } finally {
            upstream.agent.destroy();
        }
    }));
}
