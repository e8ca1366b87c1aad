import uPlot from "uplot";
import type {TimingSample} from "../../src/vscode/inspector/shared/inspectorProtocol.js";
import {chartData, describeTimingSamples} from "../../src/vscode/inspector/shared/timingSummary.js";
import {el} from "../dom.js";

const windowMinutes = 10;
const height = 160;

/** A theme color from the editor's CSS variables (the chart draws on a canvas, which cannot read them itself). */
function themeColor(name: string, fallback: string): string {
    return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/**
 * The live chart of tokens/s, time to first token and the prompt's cached share of each finished generation over the
 * last minutes (uPlot, bundled: no network, no inline styles). A sentence beside it says the same in words.
 */
export class TimingChart {
    public readonly element: HTMLElement;
    private readonly summary = el("p", {className: "chart-summary", "data-testid": "chart-summary", "aria-live": "polite"});
    private readonly canvasHolder = el("div", {className: "chart", role: "img", "data-testid": "timing-chart"});
    private plot: uPlot | undefined;
    private samples: TimingSample[] = [];
    private readonly resizeObserver = new ResizeObserver(() => this.resize());

    public constructor() {
        this.element = el("section", {className: "block performance", "aria-labelledby": "performance-heading"},
            el("h3", {id: "performance-heading"}, `Performance, last ${windowMinutes} minutes`), this.summary, this.canvasHolder);
        this.resizeObserver.observe(this.canvasHolder);
    }

    public update(samples: TimingSample[]): void {
        this.samples = samples;
        const words = describeTimingSamples(samples, windowMinutes);
        this.summary.textContent = words;
        this.canvasHolder.setAttribute("aria-label", `Chart: ${words}`);
        const width = this.canvasHolder.clientWidth;
        if (width === 0)
            return;
        if (this.plot == null)
            this.plot = this.create(width);
        const now = Date.now() / 1000;
        this.plot.batch(() => {
            this.plot!.setData(chartData(samples), false);
            this.plot!.setScale("x", {min: now - windowMinutes * 60, max: now});
        });
    }

    private resize(): void {
        const width = this.canvasHolder.clientWidth;
        if (width === 0)
            return;
        if (this.plot == null)
            this.update(this.samples);
        else
            this.plot.setSize({width, height});
    }

    private create(width: number): uPlot {
        const foreground = themeColor("--vscode-descriptionForeground", "#888");
        const grid = themeColor("--vscode-panel-border", "rgba(128,128,128,0.3)");
        const rateColor = themeColor("--vscode-charts-blue", "#3794ff");
        const ttftColor = themeColor("--vscode-charts-orange", "#d18616");
        const shareColor = themeColor("--vscode-charts-green", "#89d185");
        const axis = {stroke: foreground, grid: {stroke: grid, width: 1}, ticks: {stroke: grid, width: 1}};
        return new uPlot({
            width,
            height,
            scales: {
                x: {time: true}, rate: {auto: true, range: (_u, _min, max) => [0, Math.max(1, max * 1.1)]},
                ms: {auto: true, range: (_u, _min, max) => [0, Math.max(1, max * 1.1)]},
                share: {auto: false, range: [0, 100]}
            },
            series: [
                {},
                {label: "tokens/s", scale: "rate", stroke: rateColor, width: 2, points: {show: true, size: 6}, spanGaps: false},
                {
                    label: "time to first token (ms)", scale: "ms", stroke: ttftColor, width: 2, dash: [6, 4],
                    points: {show: true, size: 6}, spanGaps: false
                },
                // Points only: each request's share stands alone (a new session's 0 % next to a next turn's 99 %).
                {label: "cached share of the prompt (%)", scale: "share", stroke: shareColor, width: 0, points: {show: true, size: 7}}
            ],
            axes: [
                axis,
                {...axis, scale: "rate", label: "tokens/s", size: 50},
                {...axis, scale: "ms", side: 1, label: "TTFT ms", size: 60, grid: {show: false}},
                {...axis, scale: "share", side: 1, label: "cached %", size: 50, grid: {show: false}}
            ],
            legend: {show: true, live: false}
        }, chartData(this.samples), this.canvasHolder);
    }
}
