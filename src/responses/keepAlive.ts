import {invalidRequest} from "../protocol/errors.js";

/** Go's duration units (`time.ParseDuration`) in milliseconds; `ms` before `m` and `s`, so the pattern reads it whole. */
const unitMs: Record<string, number> = {ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000};
const unit = `(${Object.keys(unitMs).join("|")})`;

/** A decimal number, as Go writes a duration's parts: `5`, `1.5`, `.5`, `5.`. */
const decimal = String.raw`(\d+(?:\.\d*)?|\.\d+)`;
const goDuration = new RegExp(`^[-+]?(?:${decimal}${unit})+$`);
const plainNumber = new RegExp(`^[-+]?${decimal}$`);
const durationPart = new RegExp(`${decimal}${unit}`, "g");

const rule = "'keep_alive' must be a number of seconds or a duration such as \"30s\", \"5m\" or \"1h30m\" (negative: keep the model "
    + "loaded; 0: unload it when the request ends).";

/**
 * Ollama's `keep_alive`, taken as a courtesy by every protocol: how long the model library keeps the request's model
 * loaded after it ends, in milliseconds. A number is seconds; a string is a Go duration (`"30s"`, `"5m"`, `"1h30m"`)
 * or a plain number of seconds (`"300"`, as Ollama's `OLLAMA_KEEP_ALIVE` takes). Negative: loaded indefinitely
 * (Infinity); 0: unloaded as soon as nothing else holds it. Absent or null: null, the operator's `--idle-unload-secs`.
 * Anything else is a 400 naming `keep_alive`, before any generation.
 */
export function parseKeepAlive(value: number | string | null | undefined): number | null {
    if (value == null)
        return null;
    const ms = typeof value === "number" ? value * 1000 : durationMs(value);
    if (ms == null || Number.isNaN(ms))
        throw invalidRequest(rule, "keep_alive", "invalid_value");
    return ms < 0 ? Infinity : Math.max(ms, 0);
}

/** A duration string in milliseconds (signed), or null when it is neither a Go duration nor a number. */
function durationMs(text: string): number | null {
    if (plainNumber.test(text))
        return Number(text) * 1000;
    if (!goDuration.test(text))
        return null;
    let total = 0;
    for (const [, amount, name] of text.matchAll(durationPart))
        total += Number(amount) * unitMs[name!]!;
    return text.startsWith("-") ? -total : total;
}
