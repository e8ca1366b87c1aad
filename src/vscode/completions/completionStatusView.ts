import type {CompletionAvailability} from "./completionAvailability.js";
import type {SuggestionStats} from "./SuggestionStats.js";

/** The completions status bar item: on or off at a glance, the figures and the reason it is off in the tooltip. */
export function completionStatusView(availability: CompletionAvailability, stats: SuggestionStats["snapshot"]): {
    text: string, tooltip: string
} {
    const {counts, lastLatencyMs, medianLatencyMs} = stats;
    const asked = counts.shown + counts.empty + counts.cancelled + counts.failed;
    const text = availability.state === "on" ? "$(sparkle) Completions" : availability.state === "off"
        ? "$(circle-slash) Completions" : "$(warning) Completions";
    const lines = [
        availability.state === "on" ? `Code completion: on, from ${availability.label}` : availability.hint,
        `Suggestions: ${counts.shown} shown, ${counts.accepted} accepted${counts.shown > 0
            ? ` (${Math.round(counts.accepted / counts.shown * 100)}%)` : ""}`,
        `Asked: ${asked} (${counts.cancelled} cancelled by typing, ${counts.empty} empty, ${counts.failed} failed)`,
        `Latency: ${medianLatencyMs == null ? "none yet" : `median ${formatMs(medianLatencyMs)}, last ${formatMs(lastLatencyMs!)}`}`,
        "",
        availability.state === "off" ? "Click to turn code completion on" : "Click to turn code completion off"
    ];
    return {text, tooltip: lines.join("\n")};
}

function formatMs(ms: number): string {
    return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
